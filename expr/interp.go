package expr

import (
	"fmt"
	"math"
	"strings"

	"github.com/ktune/ktune/space"
)

// The interpreter evaluates expressions without free names (constants, value lists) with
// exact Python semantics, ints included. Values are int64, float64, bool, string, []any or
// nil (None).

type evalErr struct {
	pos int
	msg string
	// raise marks an exception Python raises while computing (division by zero,
	// overflow, an operand of the wrong type, a negative shift), which a guard such as
	// 'a == 1 or 1 // 0 == 0' may keep Python from reaching; the others (an unknown name
	// or function, a wrong number of arguments, an integer beyond 64 bits) are mistakes in
	// the expression or limits of ktune.
	raise bool
	// unknown is the name of an "unknown name" error (Error.Unknown).
	unknown string
}

func (e *evalErr) Error() string { return e.msg }

func ierrf(n Node, format string, args ...any) error {
	return &evalErr{pos: n.Pos(), msg: fmt.Sprintf(format, args...)}
}

// raisef is ierrf for an exception Python raises while computing (evalErr.raise).
func raisef(n Node, format string, args ...any) error {
	return &evalErr{pos: n.Pos(), msg: fmt.Sprintf(format, args...), raise: true}
}

// EvalValues evaluates a constant list expression, as T1 files write parameter values
// (`[1, 2, 4] + list(range(32, 1024+1, 32))`), into typed values.
func EvalValues(src string) ([]space.Value, error) { return EvalValuesWith(src, nil) }

// EvalValuesWith is EvalValues for a list expression that may also read named constants (a
// kernel spec's, as in Kernel Tuner's tune_params["num_blocks"] = [NB]). A whole constant is
// an int, as restrictions read it, so that [NB] gives the int 64, not the float 64.0.
func EvalValuesWith(src string, constants map[string]float64) ([]space.Value, error) {
	n, err := Parse(src)
	if err != nil {
		return nil, err
	}
	var vars map[string]any
	if len(constants) > 0 {
		vars = make(map[string]any, len(constants))
		for name, c := range constants {
			vars[name] = constValue(c)
		}
	}
	v, err := interp(n, vars)
	if err != nil {
		return nil, wrapEval(src, err)
	}
	list, ok := v.([]any)
	if !ok {
		// A single value is a one-element list.
		list = []any{v}
	}
	out := make([]space.Value, len(list))
	for i, x := range list {
		val, err := toValue(x)
		if err != nil {
			return nil, &Error{Expr: src, Pos: 0, Msg: fmt.Sprintf("element %d: %v", i, err)}
		}
		out[i] = val
	}
	return out, nil
}

// Explain evaluates src, a number over named constants, as Python would, and returns the
// exception Python raises on the way (division by zero, a negative power of zero, an
// overflow), placed in src; nil when it evaluates. It says why a compiled Number gave NaN.
func Explain(src string, constants map[string]float64) error {
	n, err := Parse(src)
	if err != nil {
		return err
	}
	vars := make(map[string]any, len(constants))
	for name, c := range constants {
		vars[name] = constValue(c)
	}
	if _, err := interp(n, vars); err != nil {
		return wrapEval(src, err)
	}
	return nil
}

func wrapEval(src string, err error) error {
	if e, ok := err.(*evalErr); ok {
		return &Error{Expr: src, Pos: e.pos, Msg: e.msg, Unknown: e.unknown}
	}
	return err
}

func toValue(x any) (space.Value, error) {
	switch t := x.(type) {
	case int64:
		return space.IntValue(t), nil
	case float64:
		return space.FloatValue(t), nil
	case bool:
		return space.BoolValue(t), nil
	case string:
		return space.StringValue(t), nil
	}
	return space.Value{}, fmt.Errorf("%s is not a parameter value (int, float, bool or string)", typeName(x))
}

func typeName(x any) string {
	switch x.(type) {
	case int64:
		return "int"
	case float64:
		return "float"
	case bool:
		return "bool"
	case string:
		return "str"
	case []any:
		return "list"
	case nil:
		return "None"
	}
	return fmt.Sprintf("%T", x)
}

func truthy(x any) bool {
	switch t := x.(type) {
	case int64:
		return t != 0
	case float64:
		return t != 0
	case bool:
		return t
	case string:
		return t != ""
	case []any:
		return len(t) > 0
	}
	return false
}

// numeric returns x as int64 (ok int) or float64; bools are ints as in Python.
func numeric(x any) (i int64, f float64, isInt, ok bool) {
	switch t := x.(type) {
	case int64:
		return t, float64(t), true, true
	case bool:
		if t {
			return 1, 1, true, true
		}
		return 0, 0, true, true
	case float64:
		return 0, t, false, true
	}
	return 0, 0, false, false
}

func interp(n Node, vars map[string]any) (any, error) {
	switch t := n.(type) {
	case *numLit:
		if t.isInt {
			return t.i, nil
		}
		return t.f, nil
	case *strLit:
		return t.s, nil
	case *boolLit:
		return t.b, nil
	case *noneLit:
		return nil, nil
	case *name:
		if v, ok := vars[t.id]; ok {
			return v, nil
		}
		return nil, &evalErr{pos: t.Pos(), msg: fmt.Sprintf("unknown name %q", t.id), unknown: t.id}
	case *unary:
		x, err := interp(t.x, vars)
		if err != nil {
			return nil, err
		}
		if t.op == "not" {
			return !truthy(x), nil
		}
		i, f, isInt, ok := numeric(x)
		if !ok || (t.op == "~" && !isInt) {
			return nil, raisef(t, "bad operand type for unary %s: %s", t.op, typeName(x))
		}
		switch {
		case t.op == "~":
			return ^i, nil
		case t.op == "+" && isInt:
			return i, nil
		case t.op == "+":
			return f, nil
		case isInt && i == math.MinInt64:
			return nil, errBig(t)
		case isInt:
			return -i, nil
		}
		return -f, nil
	case *boolOp:
		l, err := interp(t.l, vars)
		if err != nil {
			return nil, err
		}
		if (t.op == "and") != truthy(l) {
			return l, nil
		}
		return interp(t.r, vars)
	case *ifExpr:
		c, err := interp(t.cond, vars)
		if err != nil {
			return nil, err
		}
		if truthy(c) {
			return interp(t.yes, vars)
		}
		return interp(t.no, vars)
	case *binary:
		l, err := interp(t.l, vars)
		if err != nil {
			return nil, err
		}
		r, err := interp(t.r, vars)
		if err != nil {
			return nil, err
		}
		return binop(t, l, r)
	case *compare:
		prev, err := interp(t.args[0], vars)
		if err != nil {
			return nil, err
		}
		for k, op := range t.ops {
			next, err := interp(t.args[k+1], vars)
			if err != nil {
				return nil, err
			}
			ok, err := cmpValues(t, op, prev, next)
			if err != nil {
				return nil, err
			}
			if !ok {
				return false, nil
			}
			prev = next
		}
		return true, nil
	case *listLit:
		out := make([]any, 0, len(t.elems))
		for _, e := range t.elems {
			v, err := interp(e, vars)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	case *listComp:
		it, err := interp(t.iter, vars)
		if err != nil {
			return nil, err
		}
		items, ok := it.([]any)
		if !ok {
			return nil, ierrf(t.iter, "cannot iterate over %s", typeName(it))
		}
		inner := make(map[string]any, len(vars)+1)
		for k, v := range vars {
			inner[k] = v
		}
		var out []any
		chars := 0 // in the strings made so far
		for _, item := range items {
			inner[t.v] = item
			if t.cond != nil {
				c, err := interp(t.cond, inner)
				if err != nil {
					return nil, err
				}
				if !truthy(c) {
					continue
				}
			}
			v, err := interp(t.elem, inner)
			if err != nil {
				return nil, err
			}
			if s, ok := v.(string); ok {
				if chars += len(s); chars > maxStrLen {
					return nil, ierrf(t, "strings longer than %d characters in all", maxStrLen)
				}
			}
			out = append(out, v)
		}
		if out == nil {
			out = []any{}
		}
		return out, nil
	case *call:
		args := make([]any, len(t.args))
		for k, a := range t.args {
			v, err := interp(a, vars)
			if err != nil {
				return nil, err
			}
			args[k] = v
		}
		return callBuiltin(t, args)
	}
	return nil, ierrf(n, "unsupported expression")
}

// maxListLen bounds every list a value expression builds: no parameter has a million
// values, and a typo such as (0,)*14444444 must be an error, not gigabytes of memory.
const maxListLen = 1 << 20

// maxStrLen bounds the strings a repetition ('ab' * n) makes, and the strings a list
// comprehension makes in all.
const maxStrLen = 1 << 20

func callBuiltin(t *call, args []any) (any, error) {
	switch t.fn {
	case "range":
		if len(args) < 1 || len(args) > 3 {
			return nil, ierrf(t, "range expects 1 to 3 arguments, got %d", len(args))
		}
		var ints [3]int64
		for k, a := range args {
			i, _, isInt, ok := numeric(a)
			if !ok || !isInt {
				return nil, ierrf(t.args[k], "range argument must be an integer, got %s", typeName(a))
			}
			ints[k] = i
		}
		start, stop, step := int64(0), ints[0], int64(1)
		if len(args) >= 2 {
			start, stop = ints[0], ints[1]
		}
		if len(args) == 3 {
			step = ints[2]
		}
		if step == 0 {
			return nil, ierrf(t, "range step must not be zero")
		}
		out := []any{}
		for v := start; (step > 0 && v < stop) || (step < 0 && v > stop); v += step {
			if len(out) >= maxListLen {
				return nil, ierrf(t, "range longer than %d elements", maxListLen)
			}
			out = append(out, v)
		}
		return out, nil
	case "list", "tuple", "sorted":
		if len(args) != 1 {
			return nil, ierrf(t, "%s expects 1 argument, got %d", t.fn, len(args))
		}
		l, ok := args[0].([]any)
		if !ok {
			return nil, ierrf(t, "%s expects a list, got %s", t.fn, typeName(args[0]))
		}
		out := append([]any{}, l...)
		if t.fn == "sorted" {
			for a := 1; a < len(out); a++ {
				for b := a; b > 0; b-- {
					less, err := cmpValues(t, "<", out[b], out[b-1])
					if err != nil {
						return nil, err
					}
					if !less {
						break
					}
					out[b], out[b-1] = out[b-1], out[b]
				}
			}
		}
		return out, nil
	case "len":
		if len(args) != 1 {
			return nil, ierrf(t, "len expects 1 argument")
		}
		switch x := args[0].(type) {
		case []any:
			return int64(len(x)), nil
		case string:
			return int64(len(x)), nil
		}
		return nil, ierrf(t, "len of %s", typeName(args[0]))
	case "min", "max":
		items := args
		if len(args) == 1 {
			l, ok := args[0].([]any)
			if !ok {
				return nil, ierrf(t, "%s of a single %s", t.fn, typeName(args[0]))
			}
			items = l
		}
		if len(items) == 0 {
			return nil, ierrf(t, "%s of an empty sequence", t.fn)
		}
		best := items[0]
		for _, x := range items[1:] {
			op := "<"
			if t.fn == "max" {
				op = ">"
			}
			better, err := cmpValues(t, op, x, best)
			if err != nil {
				return nil, err
			}
			if better {
				best = x
			}
		}
		return best, nil
	case "round":
		if len(args) == 2 && args[1] != nil {
			return roundDigits(t, args[0], args[1])
		}
		if len(args) != 1 && len(args) != 2 {
			return nil, ierrf(t, "round expects 1 or 2 arguments, got %d", len(args))
		}
		i, f, isInt, ok := numeric(args[0])
		switch {
		case !ok:
			return nil, ierrf(t, "round of %s", typeName(args[0]))
		case isInt:
			return i, nil
		}
		return floatToInt(t, math.RoundToEven(f))
	case "abs", "int", "float", "bool":
		if len(args) != 1 {
			return nil, ierrf(t, "%s expects 1 argument, got %d", t.fn, len(args))
		}
		if t.fn == "bool" {
			return truthy(args[0]), nil
		}
		i, f, isInt, ok := numeric(args[0])
		if !ok {
			return nil, ierrf(t, "%s of %s", t.fn, typeName(args[0]))
		}
		switch t.fn {
		case "abs":
			if isInt {
				if i == math.MinInt64 {
					return nil, errBig(t)
				}
				if i < 0 {
					return -i, nil
				}
				return i, nil
			}
			return math.Abs(f), nil
		case "int":
			if isInt {
				return i, nil
			}
			return floatToInt(t, math.Trunc(f))
		case "float":
			return f, nil
		}
	}
	return nil, ierrf(t, "unknown function %q (known: abs, min, max, int, float, round, bool, len, range, list)", t.fn)
}

// errBig reports an integer that Python would compute exactly with its big integers.
func errBig(n Node) error {
	return ierrf(n, "integer result beyond 64 bits (ktune has no big integers)")
}

// floatToInt converts a whole float to an int as Python's int() does.
func floatToInt(n Node, f float64) (any, error) {
	switch {
	case math.IsInf(f, 0):
		return nil, raisef(n, "cannot convert float infinity to integer")
	case math.IsNaN(f):
		return nil, raisef(n, "cannot convert float NaN to integer")
	case f < -0x1p63 || f >= 0x1p63:
		return nil, errBig(n)
	}
	return int64(f), nil
}

// roundDigits is Python's round(x, n): n must be an int; an int x stays an int (rounded to
// a multiple of 10**-n when n < 0), a float x is rounded to the nearest multiple of
// 10**-n, halves to even, on its exact binary value (round(2.675, 2) == 2.67).
func roundDigits(t *call, x, digits any) (any, error) {
	n, _, nInt, ok := numeric(digits)
	if !ok || !nInt {
		return nil, ierrf(t.args[1], "'%s' object cannot be interpreted as an integer", typeName(digits))
	}
	i, f, isInt, ok := numeric(x)
	switch {
	case !ok:
		return nil, ierrf(t, "round of %s", typeName(x))
	case isInt:
		return roundIntDigits(i, n), nil
	}
	r, ok := roundFloatDigits(f, n)
	if !ok {
		return nil, raisef(t, "rounded value too large to represent")
	}
	return r, nil
}

func binop(t *binary, l, r any) (any, error) {
	if t.op == "+" {
		if ls, ok := l.(string); ok {
			if rs, ok := r.(string); ok {
				return ls + rs, nil
			}
		}
		if ll, ok := l.([]any); ok {
			if rl, ok := r.([]any); ok {
				if len(ll)+len(rl) > maxListLen {
					return nil, ierrf(t, "list longer than %d elements", maxListLen)
				}
				return append(append([]any{}, ll...), rl...), nil
			}
		}
	}
	if t.op == "*" {
		if _, _, isInt, ok := numeric(l); ok && isInt {
			if _, ok := r.(string); ok {
				l, r = r, l // int * str is str * int
			} else if _, ok := r.([]any); ok {
				l, r = r, l
			}
		}
		if s, ok := l.(string); ok {
			if n, _, isInt, ok := numeric(r); ok && isInt {
				if n <= 0 || s == "" {
					return "", nil
				}
				if n > maxStrLen/int64(len(s)) {
					return nil, ierrf(t, "string longer than %d characters", maxStrLen)
				}
				return strings.Repeat(s, int(n)), nil
			}
		}
		if ll, ok := l.([]any); ok {
			if n, _, isInt, ok := numeric(r); ok && isInt {
				if n > 0 && int64(len(ll))*n > maxListLen || n > maxListLen {
					return nil, ierrf(t, "list longer than %d elements", maxListLen)
				}
				out := make([]any, 0, max(int64(len(ll))*n, 0))
				for k := int64(0); k < n; k++ {
					out = append(out, ll...)
				}
				return out, nil
			}
		}
	}
	li, lf, lInt, lok := numeric(l)
	ri, rf, rInt, rok := numeric(r)
	if !lok || !rok || (isBitwise(t.op) && (!lInt || !rInt)) {
		return nil, raisef(t, "unsupported operand types for %s: %s and %s", t.op, typeName(l), typeName(r))
	}
	if isBitwise(t.op) {
		lb, lBool := l.(bool)
		rb, rBool := r.(bool)
		if lBool && rBool && t.op != "<<" && t.op != ">>" {
			// bool & bool is a bool in Python, as are | and ^.
			switch t.op {
			case "&":
				return lb && rb, nil
			case "|":
				return lb || rb, nil
			}
			return lb != rb, nil
		}
		v, msg := intBitwise(t.op, li, ri)
		if msg == "negative shift count" {
			return nil, raisef(t, "%s", msg)
		}
		if msg != "" {
			return nil, ierrf(t, "%s", msg)
		}
		return v, nil
	}
	if lInt && rInt {
		switch t.op {
		case "+":
			s := li + ri
			if (s > li) != (ri > 0) {
				return nil, errBig(t)
			}
			return s, nil
		case "-":
			s := li - ri
			if (s < li) != (ri > 0) {
				return nil, errBig(t)
			}
			return s, nil
		case "*":
			if li != 0 && ri != 0 {
				p := li * ri
				if p/ri != li || (li == -1 && ri == math.MinInt64) || (ri == -1 && li == math.MinInt64) {
					return nil, errBig(t)
				}
				return p, nil
			}
			return int64(0), nil
		case "/":
			if ri == 0 {
				return nil, raisef(t, "division by zero")
			}
			return lf / rf, nil
		case "//", "%":
			if ri == 0 {
				return nil, raisef(t, "integer division or modulo by zero")
			}
			q, m := li/ri, li%ri
			if m != 0 && (m < 0) != (ri < 0) {
				q--
				m += ri
			}
			if t.op == "//" {
				return q, nil
			}
			return m, nil
		case "**":
			if ri < 0 {
				break // a float, as in Python: 2**-1 == 0.5
			}
			p, ok := intPow(li, ri)
			if !ok {
				return nil, errBig(t)
			}
			return p, nil
		}
	}
	switch t.op {
	case "+":
		return lf + rf, nil
	case "-":
		return lf - rf, nil
	case "*":
		return lf * rf, nil
	case "/":
		if rf == 0 {
			return nil, raisef(t, "float division by zero")
		}
		return lf / rf, nil
	case "//":
		if rf == 0 {
			return nil, raisef(t, "float floor division by zero")
		}
		return floorDiv(lf, rf), nil
	case "%":
		if rf == 0 {
			return nil, raisef(t, "float modulo by zero")
		}
		return pyMod(lf, rf), nil
	case "**":
		v, msg := floatPow(lf, rf)
		if msg != "" {
			return nil, raisef(t, "%s", msg)
		}
		return v, nil
	}
	return nil, ierrf(t, "unknown operator %s", t.op)
}

func cmpValues(n Node, op string, l, r any) (bool, error) {
	switch op {
	case "in", "not in":
		var found bool
		switch rv := r.(type) {
		case []any:
			for _, x := range rv {
				if eq, _ := cmpValues(n, "==", l, x); eq {
					found = true
					break
				}
			}
		case string:
			ls, ok := l.(string)
			if !ok {
				return false, ierrf(n, "'in <string>' requires a string on the left, not %s", typeName(l))
			}
			found = containsString(rv, ls)
		default:
			return false, ierrf(n, "argument of type %s is not a list", typeName(r))
		}
		return found == (op == "in"), nil
	}
	if ll, ok := l.([]any); ok && (op == "==" || op == "!=") {
		// Lists (and tuples) are equal when their elements are, in order.
		rl, ok := r.([]any)
		eq := ok && len(ll) == len(rl)
		for k := 0; eq && k < len(ll); k++ {
			e, err := cmpValues(n, "==", ll[k], rl[k])
			if err != nil {
				return false, err
			}
			eq = e
		}
		return eq == (op == "=="), nil
	}
	ls, lStr := l.(string)
	rs, rStr := r.(string)
	if lStr && rStr {
		switch op {
		case "==":
			return ls == rs, nil
		case "!=":
			return ls != rs, nil
		case "<":
			return ls < rs, nil
		case "<=":
			return ls <= rs, nil
		case ">":
			return ls > rs, nil
		case ">=":
			return ls >= rs, nil
		}
	}
	_, lf, _, lok := numeric(l)
	_, rf, _, rok := numeric(r)
	if !lok || !rok {
		if op == "==" || op == "!=" {
			eq := l == nil && r == nil
			return eq == (op == "=="), nil
		}
		return false, raisef(n, "%s not supported between %s and %s", op, typeName(l), typeName(r))
	}
	li, _, lInt, _ := numeric(l)
	ri, _, rInt, _ := numeric(r)
	if lInt && rInt {
		return cmpOrdered(op, li, ri), nil
	}
	return cmpOrdered(op, lf, rf), nil
}

func cmpOrdered[T int64 | float64 | string](op string, a, b T) bool {
	switch op {
	case "<":
		return a < b
	case "<=":
		return a <= b
	case ">":
		return a > b
	case ">=":
		return a >= b
	case "==":
		return a == b
	case "!=":
		return a != b
	}
	return false
}

func containsString(s, sub string) bool {
	for k := 0; k+len(sub) <= len(s); k++ {
		if s[k:k+len(sub)] == sub {
			return true
		}
	}
	return false
}

// floorDiv and pyMod give Python's float // and % (the result of % has the divisor's sign).
func floorDiv(a, b float64) float64 {
	return (a - pyMod(a, b)) / b
}

func pyMod(a, b float64) float64 {
	m := math.Mod(a, b)
	if m != 0 && (m < 0) != (b < 0) {
		m += b
	}
	return m
}

// EvalTruth evaluates n exactly with Python semantics under vars (int64, float64, bool,
// string values); an error at run time (division by zero) counts as false. Tests use it as
// an oracle for the compiled closures.
func EvalTruth(n Node, vars map[string]any) bool {
	v, err := interp(n, vars)
	return err == nil && truthy(v)
}

// intPow is b**e for e >= 0 by repeated squaring (1**(11**11) must not loop 11**11 times);
// false when the result overflows int64.
func intPow(b, e int64) (int64, bool) {
	r := int64(1)
	for e > 0 {
		if e&1 == 1 {
			var ok bool
			if r, ok = mulInt(r, b); !ok {
				return 0, false
			}
		}
		if e >>= 1; e > 0 {
			// Another factor of b**(2**k) is still to come, so an overflowing square means
			// an overflowing result (|b| >= 2 here; 0, 1 and -1 never overflow).
			var ok bool
			if b, ok = mulInt(b, b); !ok {
				return 0, false
			}
		}
	}
	return r, true
}

// mulInt is a*b, false when it overflows int64.
func mulInt(a, b int64) (int64, bool) {
	if a == 0 || b == 0 {
		return 0, true
	}
	p := a * b
	if p/b != a || (a == -1 && b == math.MinInt64) || (b == -1 && a == math.MinInt64) {
		return 0, false
	}
	return p, true
}
