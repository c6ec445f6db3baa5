package verify

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/opforge/opforge/generators/ir"
)

// The large case: kernels split work into blocks of a power of two (256
// threads, 1024 elements), and a size that fills whole blocks hides a
// missing bounds check or a wrong last-block mask. So one case per op has
// odd dims, one of them as large as the case allows (a row of 1031
// spans five 256-element blocks and ends in a partial one), while every
// tensor of it together stays small enough for the CPU interpreters the
// runners use (Triton's interpreter, PoCL).

// largeDims are the sizes the large dim tries, largest first: odd, so no
// tensor of the case fills whole power-of-two blocks.
var largeDims = []int64{1031, 521, 263, 131, 67, 37, 19, 13, 11, 9, 7, 5}

// smallOdd are the other dims, cycled.
var smallOdd = []int64{3, 5, 7}

const (
	// largeMaxElements bounds the elements of every input and output of
	// the large case together.
	largeMaxElements = 8192
	// largeMinElements: some input of the large case has at least this
	// many elements (more than one 256-element block).
	largeMinElements = 257
)

// largeCase finds the large case's sizes (and, for rank-polymorphic
// inputs, their rank): the largest of largeDims at the last position that
// keeps the case within largeMaxElements with an input above
// largeMinElements. ok is false, with why, when no size does.
func largeCase(op *ir.Op, f *ir.Facts, combo []ir.DType, params []Param) (sizes []int64, rank int, name string, why string) {
	n := len(drawnSymbols(op, f))
	if lo, hi := polyRanks(op); lo <= hi {
		rank = min(max(2, lo), hi)
		n = max(n, rank)
	}
	if n == 0 {
		return nil, 0, "", "the op has no shape symbol and no rank-polymorphic input to size"
	}
	for _, b := range largeDims {
		for pos := n - 1; pos >= 0; pos-- {
			s := make([]int64, n)
			for j := range s {
				s[j] = smallOdd[j%len(smallOdd)]
			}
			s[pos] = b
			c, err := build(op, f, s, combo, params, len(op.Inputs), rank, nil)
			if err != nil {
				continue
			}
			total, biggest := elements(c)
			if total <= largeMaxElements && biggest >= largeMinElements {
				return s, rank, largeName(op, f, s, rank), ""
			}
		}
	}
	return nil, 0, "", fmt.Sprintf("no odd sizes give an input above %d elements with at most %d elements in all", largeMinElements-1, largeMaxElements)
}

// elements counts a case's elements over every input and output (a
// data-dependent output at its upper bound), and its largest input's.
func elements(c Case) (total, biggest int64) {
	count := func(shape []int64) int64 {
		n := int64(1)
		for _, d := range shape {
			n *= d
		}
		return n
	}
	for _, t := range c.Inputs {
		if t.Absent {
			continue
		}
		n := count(t.Shape)
		total += n
		biggest = max(biggest, n)
	}
	for _, t := range c.Outputs {
		shape := t.Shape
		if shape == nil {
			shape = t.Upper
		}
		total += count(shape)
	}
	return total, biggest
}

func largeName(op *ir.Op, f *ir.Facts, sizes []int64, rank int) string {
	parts := []string{"large"}
	if len(drawnSymbols(op, f)) > 0 {
		parts = append(parts, sizeName(op, f, sizes))
	}
	if rank > 0 {
		dims := make([]string, rank)
		for j := range dims {
			dims[j] = strconv.FormatInt(sizes[j%len(sizes)], 10)
		}
		parts = append(parts, "rank="+strconv.Itoa(rank)+" ("+strings.Join(dims, ",")+")")
	}
	return strings.Join(parts, " ")
}
