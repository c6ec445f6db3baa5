// Package shapeexpr parses the dimension expressions of op definitions:
//
//	expr    = term { ("+" | "-") term }
//	term    = unary { ("*" | "//" | "/") unary }
//	unary   = "-" unary | primary
//	primary = INT | NAME | NAME "[" INT "]" | FUNC "(" expr { "," expr } ")" | "(" expr ")"
//	        | "elem_size" "(" NAME ")" | "len" "(" NAME ")" | NAME "." "shape" "[" AXIS "]"
//	        | ROUND "(" expr ")"
//	AXIS    = INT | "-" INT | NAME
//	FUNC    = floor_div | ceil_div | min | max
//	ROUND   = floor | ceil | round
//
// floor(e), ceil(e) and round(e) turn a real-valued e into an integer: e
// may use float params (and their elements) and true division "/", which
// are allowed nowhere else, so every other dim stays integer arithmetic.
// Inside them e is computed in float64, a float param holding the value
// its dtype stores (a float32 param's value rounded to float32); round is
// half up, floor(e + 0.5), the same in Go, Python and C++. len(p) is the
// number of elements of array param p.
//
// The operations are exactly the ones every target can express: a
// runtime's dimension-expression API (sum, difference, product, floor and
// ceiling division, binary min and max), the shape expressions of a
// Python plugin, and plain integer arithmetic in Python and C++. NAME is
// a dimension symbol bound by an input shape, an integer param, a
// data-dependent size, or (with an index) an element of an array param or
// of a shape-tensor input's values. elem_size(x) is the size in bytes of
// one element of tensor x at run time (1 for 4-bit types), which only code
// that sees the tensors' dtypes can compute: the validator allows it where
// a target does (a workspace size). x.shape[axis] is the dim at axis
// of input x, whatever its rank: axis is a literal or an integer param, and
// a negative axis counts from the last dim, as in numpy; targets normalize
// and range-check it against x's rank where the rank is known (validation
// for a fixed rank, the generated code otherwise).
//
// Parser, canonical printer and evaluator of dimension expressions (`+ - *
// //`, `floor_div`, `ceil_div`, `min`, `max`, `elem_size(x)`, and
// `x.shape[axis]`, an input's dim at a literal or param axis): exactly the
// operations every target can express. An axis that only the run time can
// check is read, range-checked and normalized by statements each printer
// places before the expression (`PythonAxisCheck`/`PythonDimAxis` for the
// Python printers; a target's C++ printer for its shape functions). Evaluation
// refuses int64 overflow; `Range` bounds an expression from the ranges of its
// names (interval arithmetic), for the value checks of `validate`.
//
// floor, ceil and round (half up) of a real expression, where float params
// and / are allowed (FloatEnv), and len(p) of an array param (LenEnv);
// Syntax.Ref receives them, so each target renders or refuses them; with
// Syntax.Ratio (a float reference as an exact numerator and denominator)
// Render computes the roundings itself as integer divisions of fractions
// (ratio.go), for integer-only syntaxes; RealOperand names what that form
// cannot take.
package shapeexpr
