package shapeexpr

import (
	"strconv"
	"strings"
)

// PythonAxisShape is the Python tuple of a shape written relative to
// another (`shape: {like: x, axis: a, ...}`): the dims of seq (a Python
// iterable of dims) with the dim at index axis (a local already
// normalized to 0..rank-1) removed (replace == "" and !keep), replaced by
// replace, or kept as one. Every target's Python (Python plugins, fake
// implementations, parser and optimizer plugins) prints it with its own
// seq and one.
func PythonAxisShape(seq, axis, replace, one string, keep bool) string {
	switch {
	case keep:
		replace = one
	case replace == "":
		return "tuple(_s for _d, _s in enumerate(" + seq + ") if _d != " + axis + ")"
	}
	return "tuple((" + replace + ") if _d == " + axis + " else _s for _d, _s in enumerate(" + seq + "))"
}

// PythonAxisShapeIf is seq with the dim at axis kept as one when the
// Python condition keep holds and removed otherwise (a bool param that
// decides, like torch's keepdim).
func PythonAxisShapeIf(seq, axis, one, keep string) string {
	return "(" + PythonAxisShape(seq, axis, "", one, true) + " if " + keep + " else " + PythonAxisShape(seq, axis, "", one, false) + ")"
}

// PythonAxisCheck are the Python statements that read an axis (value,
// an integer expression) into local, raise IndexError with message (a
// Python expression, e.g. an f-string using {local}) when it is not an
// axis of a tensor of rank rank, and normalize it to 0..rank-1.
func PythonAxisCheck(local, value, rank, message string) []string {
	return []string{
		local + " = int(" + value + ")",
		"if not -" + rank + " <= " + local + " < " + rank + ": raise IndexError(" + message + ")",
		local + " %= " + rank,
	}
}

// PythonDimAxis names the Python local that holds the normalized axis of
// x.shape[axis] (e, a Dim) of the op's input number input, and gives the
// value it is read from: the axis param (number param of the op's params,
// read as paramValue) or the literal. Every Python printer reads the axis
// with PythonAxisCheck into that local, so one op's code reads each axis
// once.
func PythonDimAxis(input, param int, e *Expr, paramValue string) (local, value string) {
	local = "_" + DimAxisLocal(input, param, e)
	if e.Axis != "" {
		return local, paramValue
	}
	return local, strconv.Itoa(e.Index)
}

// DimAxisLocal is the name of the local that holds the axis of
// x.shape[axis] (e) of input number input: dim<input>_p<param> for the
// axis param number param, dim<input>_l<n> (m for a minus) for a literal.
// Numbers, not names, keep the locals of different axes apart whatever the
// inputs and params are called (x_a with b and x with a_b would meet as
// names), and the dim prefix keeps them apart from the locals of shapes
// like an input's.
func DimAxisLocal(input, param int, e *Expr) string {
	local := "dim" + strconv.Itoa(input) + "_"
	if e.Axis != "" {
		return local + "p" + strconv.Itoa(param)
	}
	return local + "l" + strings.Replace(strconv.Itoa(e.Index), "-", "m", 1)
}
