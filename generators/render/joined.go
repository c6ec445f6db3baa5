package render

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// Joined is the sections of a package-wide file, one per op, as a
// template prints them: whole, where it prints the value. A large
// package's sections are megabytes; printed through text/template they
// were joined into one string, copied into the printer's buffer, then
// into the template's, then normalized: four copies, each in fresh
// memory. So a Joined prints as a mark instead, and the file is put
// together around the marks after the template ran (executeInto): the
// sections are copied once, into the file.
//
// A template must print a Joined of its data's own fields (the top level
// of the struct, or of the struct a pointer points to); printing one
// from anywhere else fails the rendering.
type Joined struct {
	parts []string
	size  int
	mark  string
	// sums are the parts' sums (opSections.sum), when every part is an
	// op's keyed section (nil: some part is not): with them, a file's
	// frame stands for its bytes (frameKey).
	sums []string
}

// joinedNonce makes marks no template text can hold by chance or design:
// a NUL, then 16 random hex digits of this process. Made on first use:
// the random source's start costs every opforge command otherwise, a
// no-op build included.
var joinedNonce = sync.OnceValue(func() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return "\x00opforge-joined-" + hex.EncodeToString(b[:]) + "-"
})

var joinedCount atomic.Uint64

// NewJoined joins parts, in order.
func NewJoined(parts []string) *Joined {
	size := 0
	for _, p := range parts {
		size += len(p)
	}
	return &Joined{parts: parts, size: size, mark: joinedNonce() + strconv.FormatUint(joinedCount.Add(1), 10) + "\x00"}
}

// String is what a template prints: the mark executeInto puts the
// sections in place of.
func (j *Joined) String() string {
	if j == nil {
		return ""
	}
	return j.mark
}

// Text is the sections joined.
func (j *Joined) Text() string {
	if j == nil {
		return ""
	}
	return strings.Join(j.parts, "")
}

var joinedType = reflect.TypeFor[*Joined]()

// joinedOf is the Joined fields of data's top level, by mark.
func joinedOf(data any) map[string]*Joined {
	v := reflect.ValueOf(data)
	if v.Kind() == reflect.Pointer && !v.IsNil() {
		v = v.Elem()
	}
	if v.Kind() != reflect.Struct {
		return nil
	}
	var m map[string]*Joined
	for i := range v.NumField() {
		f := v.Field(i)
		if f.Type() != joinedType || f.IsNil() || !v.Type().Field(i).IsExported() {
			continue
		}
		if m == nil {
			m = map[string]*Joined{}
		}
		j := f.Interface().(*Joined)
		m[j.mark] = j
	}
	return m
}

// joinedMark is where a template printed a Joined: out[at:end] is its
// mark.
type joinedMark struct {
	at, end int
	j       *Joined
}

// marksOf finds the Joined marks in out, a template's output for data.
func marksOf(out []byte, data any) ([]joinedMark, error) {
	joined := joinedOf(data)
	var marks []joinedMark
	nonce := joinedNonce()
	for i := 0; ; {
		k := bytes.Index(out[i:], []byte(nonce))
		if k < 0 {
			return marks, nil
		}
		at := i + k
		end := bytes.IndexByte(out[at+len(nonce):], 0)
		if end < 0 {
			return nil, fmt.Errorf("a joined section's mark is cut short")
		}
		end += at + len(nonce) + 1
		j := joined[string(out[at:end])]
		if j == nil {
			return nil, fmt.Errorf("the template printed joined sections its data does not hold")
		}
		marks = append(marks, joinedMark{at, end, j})
		i = end
	}
}

// spliceJoined is out, a template's output, with every Joined mark
// replaced by its sections, room bytes (left for the file's header line)
// before it: a fresh slice of exactly that size, plus room for the final
// newline normalize may add.
func spliceJoined(out []byte, marks []joinedMark, room int) []byte {
	size := len(out)
	for _, m := range marks {
		size += m.j.size - (m.end - m.at)
	}
	b := make([]byte, room, room+size+1)
	last := 0
	for _, m := range marks {
		b = append(b, out[last:m.at]...)
		for _, s := range m.j.parts {
			b = append(b, s...)
		}
		last = m.end
	}
	return append(b, out[last:]...)
}

// frameKey is what the file a template printed as out stands for, with
// the header line head, when every Joined in it has sums ("": some has
// none): the frame's bytes with each mark replaced by its parts' sums.
// Equal keys are equal files, and a key costs a hash of the frame, not of
// the megabytes of sections spliced into it.
func frameKey(out []byte, marks []joinedMark, head string) string {
	h := sha256.New()
	var n [binary.MaxVarintLen64]byte
	count := func(c int) { h.Write(binary.AppendUvarint(n[:0], uint64(c))) }
	field := func(b []byte) { count(len(b)); h.Write(b) }
	// Every part counted or length-prefixed, so that the hash's input
	// reads back one way only: no frame text can pass for a sum, nor one
	// list of sums for another.
	count(len(marks))
	field([]byte(head))
	last := 0
	for _, m := range marks {
		if m.j.sums == nil {
			return ""
		}
		field(out[last:m.at])
		count(len(m.j.sums))
		for _, sum := range m.j.sums {
			field([]byte(sum))
		}
		last = m.end
	}
	field(out[last:])
	return hex.EncodeToString(h.Sum(nil)[:16])
}
