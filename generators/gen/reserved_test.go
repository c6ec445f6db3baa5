package gen

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/opforge/opforge/generators/diag"
)

// reservedWords are the reserved words of every language a name reaches,
// written down here from the languages' definitions (not taken from
// generators/names, which this test checks).
var reservedWords = map[string]string{
	"C++": `alignas alignof and and_eq asm auto bitand bitor bool break case catch char char8_t char16_t
char32_t class compl concept const consteval constexpr constinit const_cast continue co_await co_return
co_yield decltype default delete do double dynamic_cast else enum explicit export extern false float for
friend goto if inline int long mutable namespace new noexcept not not_eq nullptr operator or or_eq private
protected public register reinterpret_cast requires return short signed sizeof static static_assert
static_cast struct switch template this thread_local throw true try typedef typeid typename union unsigned
using virtual void volatile wchar_t while xor xor_eq final override import module`,
	"C":    `_Alignas _Alignof _Atomic _Bool _Complex _Generic _Imaginary _Noreturn _Static_assert _Thread_local restrict`,
	"CUDA": `__global__ __device__ __host__ __shared__ __constant__ threadIdx blockIdx blockDim gridDim warpSize dim3`,
	"Python": `False None True and as assert async await break class continue def del elif else except finally for
from global if import in is lambda nonlocal not or pass raise return try while with yield match case type _`,
	"OpenCL C": `__kernel kernel __global global __local local __constant constant __private private __read_only
read_only __write_only write_only __read_write read_write restrict uniform pipe bool char uchar short ushort
int uint long ulong float double half size_t ptrdiff_t intptr_t uintptr_t void image1d_t image1d_array_t
image1d_buffer_t image2d_t image2d_array_t image3d_t sampler_t event_t queue_t ndrange_t clk_event_t
reserve_id_t float2 float3 float4 float8 float16 int2 int4 half2 half4 char2 uchar4 complex imaginary
quad vector`,
	"TensorRT Python plugin": `tactic outputs stream`,
}

// namePositions are where a name of the opdef goes; each takes the word w
// (an identifier that may be reserved somewhere).
var namePositions = []struct {
	name string
	op   func(w string) string
}{
	{"op name", func(w string) string { return opWith(w, "x", "y", "p", "T", "N", "v") }},
	{"input name", func(w string) string { return opWith("Op", w, "y", "p", "T", "N", "v") }},
	{"output name", func(w string) string { return opWith("Op", "x", w, "p", "T", "N", "v") }},
	{"param name", func(w string) string { return opWith("Op", "x", "y", w, "T", "N", "v") }},
	{"type variable", func(w string) string { return opWith("Op", "x", "y", "p", w, "N", "v") }},
	{"shape symbol", func(w string) string { return opWith("Op", "x", "y", "p", "T", w, "v") }},
	{"enum value", func(w string) string { return opWith("Op", "x", "y", "p", "T", "N", w) }},
}

func opWith(op, in, out, param, tv, sym, enum string) string {
	q := func(s string) string { return `"` + s + `"` }
	return fmt.Sprintf(`  - name: %s
    types: {%s: [float32, float16]}
    inputs:
      - {name: %s, type: %s, shape: [%s, 4]}
    params:
      - {name: %s, type: int32, default: 1}
      - {name: mode, type: enum, values: [%s, other], default: other}
    outputs:
      - {name: %s, type: %s, shape: [%s, 4]}
    targets:
      trt: {qdp: true}
      htp: {}
      aipu: {targets: [X2_1204]}
`, q(op), q(tv), q(in), q(tv), q(sym), q(param), q(enum), q(out), q(tv), q(sym))
}

// TestReservedWordsRefusedOrCompile generates every reserved word of every
// language in every name position: each must be refused with a positioned
// diagnostic that says why, or generate files that the real tools accept
// (TensorRT C++ against the real headers, Python parse, OpenCL through
// clang).
func TestReservedWordsRefusedOrCompile(t *testing.T) {
	seen := map[string]bool{}
	var words []string
	langs := make([]string, 0, len(reservedWords))
	for l := range reservedWords {
		langs = append(langs, l)
	}
	sort.Strings(langs)
	for _, l := range langs {
		for i, w := range strings.Fields(reservedWords[l]) {
			// -short: every fifth word of each language (about a minute
			// less of compiling).
			if testing.Short() && i%5 != 0 {
				continue
			}
			if !seen[w] {
				seen[w] = true
				words = append(words, w)
			}
		}
	}
	dir := t.TempDir()
	if keep := os.Getenv("OPFORGE_KEEP"); keep != "" {
		dir = keep
	}
	var cases []hostileCase
	refused, accepted := 0, 0
	for pi, pos := range namePositions {
		before := refused
		for wi, w := range words {
			pkg := fmt.Sprintf("R%dw%d", pi, wi)
			src := fmt.Sprintf("version: 1\npackage: {name: %s, domain: reserved, version: 1.0.0, namespace: r%dw%d}\nops:\n%s", pkg, pi, wi, pos.op(w))
			set, l := generateText(t, []byte(src))
			if set == nil || l.HasErrors() {
				refused++
				if !positioned(l) {
					t.Errorf("%s %q: refused without a positioned diagnostic:\n%s", pos.name, w, diagText(l))
				}
				continue
			}
			accepted++
			writeSet(t, set, dir)
			cases = append(cases, hostileCase{pkg: pkg, text: pos.name + " " + w})
		}
		t.Logf("%s: %d of %d words refused", pos.name, refused-before, len(words))
	}
	t.Logf("%d words x %d positions: %d refused, %d generated", len(words), len(namePositions), refused, accepted)
	// Names reach make and CMake only as identifiers already checked.
	checkWithTools(t, dir, cases, "make", "cmake")
	checkCUDA(t, dir, cases)
}

// positioned: every error has a line and a code.
func positioned(l *diag.List) bool {
	ok := false
	for _, d := range l.Sorted() {
		if d.Severity != diag.Error {
			continue
		}
		if d.Pos.Line == 0 || d.Code == "" {
			return false
		}
		ok = true
	}
	return ok
}

// checkCUDA compiles the kernel sources with nvcc when there is one.
func checkCUDA(t *testing.T, dir string, cases []hostileCase) {
	t.Run("cuda", func(t *testing.T) {
		nvcc := os.Getenv("NVCC")
		if nvcc == "" {
			if py := os.Getenv("OPFORGE_PYTHON"); py != "" {
				if out, err := exec.Command(py, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])").Output(); err == nil {
					nvcc = filepath.Join(strings.TrimSpace(string(out)), "nvidia/cu13/bin/nvcc")
				}
			}
		}
		if _, err := os.Stat(nvcc); nvcc == "" || err != nil {
			t.Skip("no nvcc (NVCC or OPFORGE_PYTHON's nvidia wheels): the kernels are not compiled")
		}
		// Two translation units (the machines have two cores), each
		// including the kernels of every other package.
		var units [2]strings.Builder
		for i, c := range cases {
			srcs, _ := filepath.Glob(filepath.Join(dir, "trt", c.pkg, "src", "ops", "*.cu"))
			for _, s := range srcs {
				fmt.Fprintf(&units[i%2], "#include %q\n", s)
			}
		}
		var fns []func() error
		for i := range units {
			unit := filepath.Join(dir, "trt", fmt.Sprintf("unity-kernels-%d.cu", i))
			if err := os.WriteFile(unit, []byte(units[i].String()), 0o644); err != nil {
				t.Fatal(err)
			}
			fns = append(fns, func() error {
				out, err := exec.Command(nvcc, "-std=c++17", "-arch=sm_80", "-c", unit, "-o", unit+".o").CombinedOutput()
				if err != nil {
					return fmt.Errorf("%s: %v\n%s", unit, err, tail(string(out), 6000))
				}
				return nil
			})
		}
		for _, err := range runParallel(fns) {
			t.Error(err)
		}
	})
}

func tail(s string, n int) string {
	if len(s) > n {
		return "..." + s[len(s)-n:]
	}
	return s
}
