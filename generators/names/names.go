package names

import (
	"regexp"
	"strings"
	"sync"
)

var identRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`) })

// IsIdent reports whether s is an ASCII identifier in all emitted languages.
func IsIdent(s string) bool { return identRE().MatchString(s) }

// Reserved says why s may not be used as an identifier, or "" when it may.
// It covers keywords of C++ (and CUDA's additions), Python and OpenCL C
// (its keywords, qualifiers, scalar, vector and opaque types), and the
// identifiers C++ reserves for the implementation.
func Reserved(s string) string {
	switch {
	case cppKeywords()[s]:
		return "a C++ keyword"
	case cudaNames()[s]:
		return "a CUDA keyword or built-in"
	case pythonKeywords()[s]:
		return "a Python keyword"
	case openCLNames()[s]:
		return "an OpenCL C keyword or type"
	case strings.HasPrefix(s, "__"):
		return "reserved in C++ (starts with two underscores)"
	case len(s) > 1 && s[0] == '_' && s[1] >= 'A' && s[1] <= 'Z':
		return "reserved in C++ (underscore followed by an upper-case letter)"
	case strings.Contains(s, "__"):
		return "reserved in C++ (contains a double underscore)"
	}
	return ""
}

// Ident maps name to a safe identifier: runs of characters outside
// [A-Za-z0-9_] become one underscore, trailing underscores go, a leading
// digit gets a "t" prefix, and a reserved word gets a trailing underscore.
// Identifiers that are already safe are returned unchanged.
func Ident(name string) string {
	if IsIdent(name) && Reserved(name) == "" {
		return name
	}
	var sb strings.Builder
	pendingSep := false
	for i := 0; i < len(name); i++ {
		c := name[i]
		ok := c == '_' || c >= '0' && c <= '9' || (c|0x20) >= 'a' && (c|0x20) <= 'z'
		if !ok {
			pendingSep = sb.Len() > 0
			continue
		}
		if pendingSep {
			sb.WriteByte('_')
			pendingSep = false
		}
		sb.WriteByte(c)
	}
	s := strings.TrimRight(sb.String(), "_")
	// Collapse double underscores, which C++ reserves.
	for strings.Contains(s, "__") {
		s = strings.ReplaceAll(s, "__", "_")
	}
	s = strings.TrimLeft(s, "_")
	if s == "" {
		s = "t"
	}
	if s[0] >= '0' && s[0] <= '9' {
		s = "t" + s
	}
	if Reserved(s) != "" {
		s += "_"
	}
	return s
}

func set(words string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(words) {
		m[w] = true
	}
	return m
}

var cppKeywords = sync.OnceValue(func() map[string]bool {
	return set(`alignas alignof and and_eq asm auto bitand bitor bool break case catch char
char8_t char16_t char32_t class compl concept const consteval constexpr constinit const_cast continue
co_await co_return co_yield decltype default delete do double dynamic_cast else enum explicit export
extern false float for friend goto if inline int long mutable namespace new noexcept not not_eq nullptr
operator or or_eq private protected public register reinterpret_cast requires return short signed
sizeof static static_assert static_cast struct switch template this thread_local throw true try typedef
typeid typename union unsigned using virtual void volatile wchar_t while xor xor_eq
final override import module
NULL assert errno std main`)
})

var cudaNames = sync.OnceValue(func() map[string]bool {
	return set(`threadIdx blockIdx blockDim gridDim warpSize dim3 half half2 nv_bfloat16
cudaStream_t stream workspace inputDesc outputDesc inputs outputs`)
})

var pythonKeywords = sync.OnceValue(func() map[string]bool {
	return set(`False None True and as assert async await break class continue def del elif
else except finally for from global if import in is lambda nonlocal not or pass raise return try while
with yield self`)
})

var openCLNames = sync.OnceValue(func() map[string]bool {
	m := set(`kernel __kernel global __global local __local constant __constant private
__private read_only write_only read_write restrict uniform pipe complex imaginary quad vector
bool char uchar short ushort int uint long ulong float double half size_t ptrdiff_t intptr_t uintptr_t void
image1d_t image1d_array_t image1d_buffer_t image2d_t image2d_array_t image2d_depth_t image2d_array_depth_t
image3d_t sampler_t event_t queue_t ndrange_t clk_event_t reserve_id_t cl_mem_fence_flags`)
	// Every vector type: char2 ... double16.
	for _, base := range strings.Fields("char uchar short ushort int uint long ulong float double half bool") {
		for _, n := range []string{"2", "3", "4", "8", "16"} {
			m[base+n] = true
		}
	}
	return m
})

// Snake converts CamelCase to snake_case: "RoiAlignLite" -> "roi_align_lite",
// "TopKLast" -> "top_k_last"; existing underscores are kept.
func Snake(s string) string {
	var sb strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		upper := c >= 'A' && c <= 'Z'
		if upper && i > 0 && s[i-1] != '_' {
			prevLower := s[i-1] >= 'a' && s[i-1] <= 'z' || s[i-1] >= '0' && s[i-1] <= '9'
			nextLower := i+1 < len(s) && s[i+1] >= 'a' && s[i+1] <= 'z'
			prevUpper := s[i-1] >= 'A' && s[i-1] <= 'Z'
			if prevLower || (prevUpper && nextLower) {
				sb.WriteByte('_')
			}
		}
		if upper {
			c += 'a' - 'A'
		}
		sb.WriteByte(c)
	}
	return sb.String()
}

// LowerCamel is a CamelCase name as a lowerCamel identifier, spelling a
// leading acronym as a person would: "RMSNormLite" -> "rmsNormLite",
// "ROIAlign" -> "roiAlign", "IO" -> "io", "TopK" -> "topK". A run of capitals
// is lowered up to the one that starts the next word (a capital followed
// by a lowercase letter).
func LowerCamel(s string) string {
	isUpper := func(i int) bool { return i < len(s) && s[i] >= 'A' && s[i] <= 'Z' }
	isLower := func(i int) bool { return i < len(s) && s[i] >= 'a' && s[i] <= 'z' }
	n := 0
	for isUpper(n) {
		n++
	}
	if n > 1 && isLower(n) {
		n-- // the last capital starts the next word
	}
	if n == 0 {
		return s
	}
	return strings.ToLower(s[:n]) + s[n:]
}

// Distance is the Levenshtein distance of two names, for "did you mean"
// suggestions; capped (99) for texts over 64 bytes, which are never a
// near miss of a name.
func Distance(a, b string) int {
	if len(a) > 64 || len(b) > 64 {
		return 99
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
