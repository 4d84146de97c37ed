package expr

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/ktune/ktune/space"
)

// Env holds the values of the names a compiled program reads, by slot. Numbers (ints,
// floats and booleans as 0/1) live in Num, strings in Str; a slot is used by one of them.
type Env = space.Bindings

// Var describes a name a program may read.
type Var struct {
	Slot int        // index into Env.Num or Env.Str
	Kind space.Kind // String reads Env.Str, anything else Env.Num
	// Const marks a named constant: the expression reads Value, not a slot (and the name is
	// not among the names and slots it reads).
	Const bool
	Value float64
	// Bound is the largest magnitude of a numeric parameter's values, 0 when unknown: with
	// it, arithmetic that cannot leave the integers a float64 holds exactly is not checked.
	Bound float64
	// Mixed marks a Float parameter whose values mix ints and floats: a value is a float
	// when it is not whole or is one of WholeFloats (values such as 2.0), an int otherwise.
	Mixed       bool
	WholeFloats []float64
}

// Scope resolves the names an expression reads.
type Scope interface {
	Lookup(name string) (Var, bool)
	Names() []string // for "unknown name" messages
}

// MapScope is a Scope backed by a map.
type MapScope map[string]Var

// Lookup implements Scope.
func (m MapScope) Lookup(name string) (Var, bool) { v, ok := m[name]; return v, ok }

// Names implements Scope.
func (m MapScope) Names() []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sortStrings(out)
	return out
}

func sortStrings(s []string) {
	for a := 1; a < len(s); a++ {
		for b := a; b > 0 && s[b] < s[b-1]; b-- {
			s[b], s[b-1] = s[b-1], s[b]
		}
	}
}

// Predicate is a compiled boolean expression, such as a restriction.
type Predicate struct {
	Source string   // the expression as written
	Names  []string // the names it reads, in order of first appearance
	Slots  []int    // the slots of those names
	fn     func(*Env) bool
	node   Node // the parsed expression, for holdsAlways
}

// Eval evaluates the predicate. Python's errors at run time (division by zero) make it false.
func (p *Predicate) Eval(env *Env) bool {
	env.Fault, env.Inexact = false, false
	v := p.fn(env)
	return v && !env.Fault
}

// Number is a compiled numeric expression, such as a metric or a problem size.
type Number struct {
	Source string
	Names  []string
	Slots  []int
	fn     func(*Env) float64
}

// Eval evaluates the expression; Python's errors at run time give NaN.
func (n *Number) Eval(env *Env) float64 {
	env.Fault, env.Inexact = false, false
	v := n.fn(env)
	if env.Fault {
		return math.NaN()
	}
	return v
}

// CompilePredicate parses and compiles src as a condition; its value is its truthiness.
func CompilePredicate(src string, scope Scope) (*Predicate, error) {
	fn, n, names, slots, err := compileAs(src, scope, (*compiler).asBool)
	if err != nil {
		return nil, err
	}
	return &Predicate{Source: src, Names: names, Slots: slots, fn: fn, node: n}, nil
}

// CompileNumber parses and compiles src as a numeric expression.
func CompileNumber(src string, scope Scope) (*Number, error) {
	fn, _, names, slots, err := compileAs(src, scope, (*compiler).asNum)
	if err != nil {
		return nil, err
	}
	return &Number{Source: src, Names: names, Slots: slots, fn: fn}, nil
}

// compileAs parses src against scope and compiles it to a function of the kind that as
// makes of the compiled expression (a condition, a number); it returns the parsed
// expression and the names (and their slots) that the function reads besides.
func compileAs[T any](src string, scope Scope, as func(*compiler, cexpr, Node) (func(*Env) T, error)) (fn func(*Env) T, n Node, names []string, slots []int, err error) {
	n, names, slots, err = parseScoped(src, scope)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	c := &compiler{src: src, scope: scope}
	ce, err := c.compile(n)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	if fn, err = as(c, ce, n); err != nil {
		return nil, nil, nil, nil, err
	}
	return fn, n, names, slots, nil
}

func parseScoped(src string, scope Scope) (Node, []string, []int, error) {
	n, err := Parse(src)
	if err != nil {
		return nil, nil, nil, err
	}
	names := Names(n)
	slots := make([]int, 0, len(names))
	for _, id := range names {
		v, ok := scope.Lookup(id)
		if !ok {
			pos := findName(n, id)
			known := scope.Names()
			hint := ""
			if s := Closest(id, known); s != "" {
				hint = fmt.Sprintf("; did you mean %q?", s)
			}
			return nil, nil, nil, &Error{Expr: src, Pos: pos, Msg: fmt.Sprintf("unknown name %q: expected one of the names it may read (%s)%s", id, strings.Join(known, ", "), hint), Unknown: id}
		}
		if v.Const {
			continue
		}
		slots = append(slots, v.Slot)
	}
	if len(slots) < len(names) {
		vars := names[:0:0]
		for _, id := range names {
			if v, _ := scope.Lookup(id); !v.Const {
				vars = append(vars, id)
			}
		}
		names = vars
	}
	return n, names, slots, nil
}

func findName(n Node, id string) int {
	pos := -1
	var walk func(Node)
	walk = func(n Node) {
		if pos >= 0 {
			return
		}
		switch t := n.(type) {
		case *name:
			if t.id == id {
				pos = t.pos
			}
		case *unary:
			walk(t.x)
		case *binary:
			walk(t.l)
			walk(t.r)
		case *boolOp:
			walk(t.l)
			walk(t.r)
		case *compare:
			for _, a := range t.args {
				walk(a)
			}
		case *call:
			for _, a := range t.args {
				walk(a)
			}
		case *listLit:
			for _, a := range t.elems {
				walk(a)
			}
		case *listComp:
			walk(t.iter)
			walk(t.elem)
		case *ifExpr:
			walk(t.cond)
			walk(t.yes)
			walk(t.no)
		}
	}
	walk(n)
	if pos < 0 {
		return 0
	}
	return pos
}

// Closest returns the known name nearest to id when it is near enough to be a typo: equal
// but for case and underscores, or within a small edit distance. It returns "" otherwise.
// Spec and expression errors use it for their "did you mean" hints.
func Closest(id string, known []string) string {
	best, bestD := "", 3
	if len(id) > 8 {
		bestD = 4
	}
	flat := func(s string) string { return strings.ToLower(strings.ReplaceAll(s, "_", "")) }
	for _, k := range known {
		if flat(k) == flat(id) {
			return k
		}
		if d := editDistance(id, k); d < bestD {
			best, bestD = k, d
		}
	}
	return best
}

func editDistance(a, b string) int {
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

type ctype uint8

const (
	cNum ctype = iota
	cBool
	cStr
	cList
)

func (t ctype) String() string {
	return [...]string{"number", "bool", "str", "list"}[t]
}

// cexpr is a compiled sub-expression: exactly one of the closures is set, by typ.
type cexpr struct {
	typ     ctype
	num     func(*Env) float64
	bl      func(*Env) bool
	str     func(*Env) string
	list    []cexpr
	konst   bool
	kval    any  // the constant's value when konst
	slot    int  // for a numeric parameter read directly: its slot
	slotSet bool // whether slot is set
	// For a number: whether it is a Python int or float, and, when ranged, the largest
	// magnitude it can have.
	nk     numKind
	bound  float64
	ranged bool
	// For a number of kind kAny: whether its value is a float, told at run time (nil:
	// when it is not whole). It computes the value's operands again, so only what
	// Python's int and float disagree on asks it (bitwise operators, repeating a str).
	isFloat func(*Env) bool
}

// floatFn returns whether x's value in an Env is a Python float.
func (x cexpr) floatFn() func(*Env) bool {
	switch {
	case x.typ != cNum || x.nk == kInt:
		return func(*Env) bool { return false }
	case x.nk == kFloat:
		return func(*Env) bool { return true }
	case x.isFloat != nil:
		return x.isFloat
	}
	f := x.num
	return func(e *Env) bool { return !isWhole(f(e)) }
}

// anyFloat is the kind of a value that is a float when either of l and r is (l op r for
// + - * // %): its floatFn, nil unless that is told at run time.
func anyFloat(nk numKind, l, r cexpr) func(*Env) bool {
	if nk != kAny {
		return nil
	}
	lf, rf := l.floatFn(), r.floatFn()
	return func(e *Env) bool { return lf(e) || rf(e) }
}

// numKind is the Python type of a compiled number. Numbers are float64 at run time: an int
// is exact while its magnitude is below 2**53, and an int result beyond that is reported
// (Env.Inexact) instead of rounded, since Python would give it exactly.
type numKind uint8

const (
	kAny   numKind = iota // an int or a float, told apart at run time (cexpr.isFloat)
	kInt                  // a Python int (or bool)
	kFloat                // a Python float
)

// exact is the magnitude from which an int result may not be exact as a float64.
const exact = 0x1p53

func (x cexpr) kind() numKind {
	if x.typ == cBool {
		return kInt
	}
	return x.nk
}

// magnitude is the largest magnitude x can have, when known.
func (x cexpr) magnitude() (float64, bool) {
	if x.typ == cBool {
		return 1, true
	}
	return x.bound, x.ranged && x.typ == cNum
}

// arithKind is the kind of l op r for + - * // % **: int with ints, float with a float.
func arithKind(l, r numKind) numKind {
	switch {
	case l == kInt && r == kInt:
		return kInt
	case l == kFloat || r == kFloat:
		return kFloat
	}
	return kAny
}

// choiceKind is the kind of a value that is one of two (a if c else b, min, max).
func choiceKind(l, r numKind) numKind {
	if l == r {
		return l
	}
	return kAny
}

func num(f func(*Env) float64, nk numKind) cexpr { return cexpr{typ: cNum, num: f, nk: nk} }

// withNum is a number of x's kind (and run-time kind) computed by f: -x, abs(x).
func (x cexpr) withNum(f func(*Env) float64) cexpr {
	y := num(f, x.kind())
	if y.nk == kAny {
		y.isFloat = x.floatFn()
	}
	return y
}

// withBound returns x with magnitude at most b (unless b is infinite or NaN).
func (x cexpr) withBound(b float64, ok bool) cexpr {
	if ok && b-b == 0 {
		x.bound, x.ranged = b, true
	}
	return x
}

// isWhole reports whether x is a finite whole number.
func isWhole(x float64) bool { return x == math.Trunc(x) && x-x == 0 }

func fault(e *Env) float64 {
	e.Fault = true
	return math.NaN()
}

func inexact(e *Env) float64 {
	e.Fault, e.Inexact = true, true
	return math.NaN()
}

type compiler struct {
	src   string
	scope Scope
}

func (c *compiler) errf(n Node, format string, args ...any) error {
	return &Error{Expr: c.src, Pos: n.Pos(), Msg: fmt.Sprintf(format, args...)}
}

// constant turns an interpreter value into a compiled constant.
// constValue is a named constant's value as expressions read it: a whole number is an int,
// as Python would have it for the N: 1024 a spec writes.
func constValue(v float64) any {
	if v == math.Trunc(v) && math.Abs(v) < 1<<53 {
		return int64(v)
	}
	return v
}

func (c *compiler) constant(n Node, v any) (cexpr, error) {
	switch t := v.(type) {
	case int64:
		f := float64(t)
		if math.Abs(f) >= exact && (math.Abs(f) >= 0x1p63 || int64(f) != t) {
			return cexpr{}, c.errf(n, "integer %d is not exact as a float64, which restrictions compute with", t)
		}
		return cexpr{typ: cNum, num: func(*Env) float64 { return f }, konst: true, kval: v, nk: kInt, bound: math.Abs(f), ranged: true}, nil
	case float64:
		return cexpr{typ: cNum, num: func(*Env) float64 { return t }, konst: true, kval: v, nk: kFloat, bound: math.Abs(t), ranged: true}, nil
	case bool:
		return cexpr{typ: cBool, bl: func(*Env) bool { return t }, konst: true, kval: v}, nil
	case string:
		return cexpr{typ: cStr, str: func(*Env) string { return t }, konst: true, kval: v}, nil
	case []any:
		out := cexpr{typ: cList, konst: true, kval: v}
		for _, x := range t {
			e, err := c.constant(n, x)
			if err != nil {
				return cexpr{}, err
			}
			out.list = append(out.list, e)
		}
		return out, nil
	}
	return cexpr{}, c.errf(n, "%s is not supported here", typeName(v))
}

func (c *compiler) compile(n Node) (cexpr, error) {
	if len(Names(n)) == 0 {
		// Constant sub-expressions are evaluated once, exactly, by the interpreter.
		v, err := interp(n, nil)
		if err != nil {
			if e, ok := err.(*evalErr); ok {
				if e.raise {
					// Python raises only where it computes this, which a guard before it
					// ('a == 1 or 1 // 0 == 0') may prevent: a configuration that reaches
					// it is not satisfied, as with any exception.
					return cexpr{typ: cNum, nk: kAny, num: fault}, nil
				}
				return cexpr{}, &Error{Expr: c.src, Pos: e.pos, Msg: e.msg}
			}
			return cexpr{}, err
		}
		return c.constant(n, v)
	}
	switch t := n.(type) {
	case *name:
		v, _ := c.scope.Lookup(t.id)
		if v.Const {
			return c.constant(n, constValue(v.Value))
		}
		slot := v.Slot
		switch v.Kind {
		case space.String:
			return cexpr{typ: cStr, str: func(e *Env) string { return e.Str[slot] }}, nil
		case space.Bool:
			return cexpr{typ: cBool, bl: func(e *Env) bool { return e.Num[slot] != 0 }}, nil
		}
		x := cexpr{typ: cNum, num: func(e *Env) float64 { return e.Num[slot] }, slot: slot, slotSet: true, nk: kInt}
		if v.Kind == space.Float {
			x.nk = kFloat
			if v.Mixed {
				x.nk = kAny
				wf := v.WholeFloats
				x.isFloat = func(e *Env) bool {
					v := e.Num[slot]
					if !isWhole(v) {
						return true
					}
					for _, w := range wf {
						if v == w {
							return true
						}
					}
					return false
				}
			}
		}
		return x.withBound(v.Bound, v.Bound > 0), nil
	case *unary:
		x, err := c.compile(t.x)
		if err != nil {
			return cexpr{}, err
		}
		if t.op == "not" {
			f, err := c.asBool(x, t.x)
			if err != nil {
				return cexpr{}, err
			}
			return cexpr{typ: cBool, bl: func(e *Env) bool { return !f(e) }}, nil
		}
		f, err := c.asNum(x, t.x)
		if err != nil {
			return cexpr{}, err
		}
		b, ok := x.magnitude()
		switch t.op {
		case "+":
			return x.withNum(f).withBound(b, ok), nil
		case "~":
			return c.invert(x, f).withBound(b+1, ok), nil
		}
		return x.withNum(func(e *Env) float64 { return -f(e) }).withBound(b, ok), nil
	case *boolOp:
		return c.boolOp(t)
	case *ifExpr:
		return c.ifExpr(t)
	case *binary:
		return c.binary(t)
	case *compare:
		return c.compare(t)
	case *call:
		return c.call(t)
	case *listLit:
		out := cexpr{typ: cList}
		for _, el := range t.elems {
			e, err := c.compile(el)
			if err != nil {
				return cexpr{}, err
			}
			if e.typ == cList {
				return cexpr{}, c.errf(el, "nested lists are not supported")
			}
			out.list = append(out.list, e)
		}
		return out, nil
	case *listComp:
		return cexpr{}, c.errf(t, "a list comprehension may not read parameters")
	}
	return cexpr{}, c.errf(n, "unsupported expression")
}

func (c *compiler) asNum(x cexpr, n Node) (func(*Env) float64, error) {
	switch x.typ {
	case cNum:
		return x.num, nil
	case cBool:
		f := x.bl
		return func(e *Env) float64 {
			if f(e) {
				return 1
			}
			return 0
		}, nil
	}
	return nil, c.errf(n, "expected a number, found a %s", x.typ)
}

func (c *compiler) asBool(x cexpr, n Node) (func(*Env) bool, error) {
	switch x.typ {
	case cBool:
		return x.bl, nil
	case cNum:
		f := x.num
		return func(e *Env) bool { return f(e) != 0 }, nil
	case cStr:
		f := x.str
		return func(e *Env) bool { return f(e) != "" }, nil
	case cList:
		l := len(x.list) > 0
		ev := make([]func(*Env), len(x.list))
		for k, el := range x.list {
			ev[k] = effect(el)
		}
		return func(e *Env) bool {
			for _, f := range ev {
				f(e) // Python builds the list, and an element may raise
			}
			return l
		}, nil
	}
	return nil, c.errf(n, "cannot use a %s as a condition", x.typ)
}

// effect evaluates x for its errors only (Env.Fault), where Python computes a value that
// cannot change the outcome: a str compared with a number, a list's other elements.
func effect(x cexpr) func(*Env) {
	switch {
	case x.konst:
		return func(*Env) {}
	case x.typ == cNum:
		f := x.num
		return func(e *Env) { f(e) }
	case x.typ == cBool:
		f := x.bl
		return func(e *Env) { f(e) }
	case x.typ == cStr:
		f := x.str
		return func(e *Env) { f(e) }
	}
	fs := make([]func(*Env), len(x.list))
	for k, el := range x.list {
		fs[k] = effect(el)
	}
	return func(e *Env) {
		for _, f := range fs {
			f(e)
		}
	}
}

// inList is l in r for a list r. Python computes l and every element of r before it
// looks for l, so an element that raises makes the test raise even after an equal one
// (a in [1, 1 // b]), and an l that raises does so even where no element could equal it
// (a // b in [] or a // b in ['x']). Numbers (and bools) equal numbers, strs strs.
func (c *compiler) inList(l, r cexpr, ln Node) (func(*Env) bool, error) {
	if l.typ == cList {
		return nil, c.errf(ln, "a list in a list is not supported")
	}
	var (
		knums   []float64            // constant numbers l may equal
		kstrs   []string             // constant strs l may equal
		nums    []func(*Env) float64 // computed numbers l may equal
		strs    []func(*Env) string  // computed strs l may equal
		effects []func(*Env)         // elements that cannot equal l, computed for their errors
		isStr   = l.typ == cStr
	)
	for _, el := range r.list {
		switch {
		case el.typ == cList:
			return nil, c.errf(ln, "nested lists are not supported")
		case (el.typ == cStr) != isStr:
			if !el.konst {
				effects = append(effects, effect(el))
			}
		case isStr && el.konst:
			kstrs = append(kstrs, el.str(nil))
		case isStr:
			strs = append(strs, el.str)
		default:
			f, err := c.asNum(el, ln)
			if err != nil {
				return nil, err
			}
			if el.konst {
				knums = append(knums, f(nil))
			} else {
				nums = append(nums, f)
			}
		}
	}
	run := func(e *Env) {
		for _, f := range effects {
			f(e)
		}
	}
	if isStr {
		return member(l.str, strs, kstrs, run), nil
	}
	a, err := c.asNum(l, ln)
	if err != nil {
		return nil, err
	}
	return member(a, nums, knums, run), nil
}

// member is the test of in: x is computed, then every computed element (all of them, as
// Python computes the list before it looks, so one that raises does), then the elements
// that cannot equal x (run), and x is looked for among the computed and constant ones.
func member[T comparable](x func(*Env) T, computed []func(*Env) T, constant []T, run func(*Env)) func(*Env) bool {
	return func(e *Env) bool {
		v := x(e)
		found := false
		for _, f := range computed {
			if f(e) == v {
				found = true
			}
		}
		run(e)
		return found || slices.Contains(constant, v)
	}
}

// boolOp keeps Python's operand-returning semantics when both sides have the same
// scalar type (`(a or 1) * 2`); otherwise the result is the truth value.
func (c *compiler) boolOp(t *boolOp) (cexpr, error) {
	l, err := c.compile(t.l)
	if err != nil {
		return cexpr{}, err
	}
	r, err := c.compile(t.r)
	if err != nil {
		return cexpr{}, err
	}
	and := t.op == "and"
	if l.typ == cNum && r.typ == cNum {
		lf, rf := l.num, r.num
		nk := choiceKind(l.kind(), r.kind())
		lb, lok := l.magnitude()
		rb, rok := r.magnitude()
		// x is l's value where it decides (falsy for and, truthy for or), else r's.
		x := num(func(e *Env) float64 {
			if v := lf(e); (v == 0) == and {
				return v
			}
			return rf(e)
		}, nk).withBound(max(lb, rb), lok && rok)
		if nk == kAny {
			lF, rF := l.floatFn(), r.floatFn()
			x.isFloat = func(e *Env) bool {
				if (lf(e) == 0) == and {
					return lF(e)
				}
				return rF(e)
			}
		}
		return x, nil
	}
	if l.typ == cStr && r.typ == cStr {
		lf, rf := l.str, r.str
		return cexpr{typ: cStr, str: func(e *Env) string {
			if v := lf(e); (v != "") != and {
				return v
			}
			return rf(e)
		}}, nil
	}
	lb, err := c.asBool(l, t.l)
	if err != nil {
		return cexpr{}, err
	}
	rb, err := c.asBool(r, t.r)
	if err != nil {
		return cexpr{}, err
	}
	if and {
		return cexpr{typ: cBool, bl: func(e *Env) bool { return lb(e) && rb(e) }}, nil
	}
	return cexpr{typ: cBool, bl: func(e *Env) bool { return lb(e) || rb(e) }}, nil
}

func (c *compiler) ifExpr(t *ifExpr) (cexpr, error) {
	cond, err := c.compile(t.cond)
	if err != nil {
		return cexpr{}, err
	}
	cb, err := c.asBool(cond, t.cond)
	if err != nil {
		return cexpr{}, err
	}
	yes, err := c.compile(t.yes)
	if err != nil {
		return cexpr{}, err
	}
	no, err := c.compile(t.no)
	if err != nil {
		return cexpr{}, err
	}
	switch {
	case yes.typ == cStr && no.typ == cStr:
		y, n := yes.str, no.str
		return cexpr{typ: cStr, str: func(e *Env) string {
			if cb(e) {
				return y(e)
			}
			return n(e)
		}}, nil
	case yes.typ == cBool && no.typ == cBool:
		y, n := yes.bl, no.bl
		return cexpr{typ: cBool, bl: func(e *Env) bool {
			if cb(e) {
				return y(e)
			}
			return n(e)
		}}, nil
	}
	y, err := c.asNum(yes, t.yes)
	if err != nil {
		return cexpr{}, err
	}
	n, err := c.asNum(no, t.no)
	if err != nil {
		return cexpr{}, err
	}
	yb, yok := yes.magnitude()
	nb, nok := no.magnitude()
	x := num(func(e *Env) float64 {
		if cb(e) {
			return y(e)
		}
		return n(e)
	}, choiceKind(yes.kind(), no.kind())).withBound(max(yb, nb), yok && nok)
	if x.nk == kAny {
		yF, nF := yes.floatFn(), no.floatFn()
		x.isFloat = func(e *Env) bool {
			if cb(e) {
				return yF(e)
			}
			return nF(e)
		}
	}
	return x, nil
}

func (c *compiler) binary(t *binary) (cexpr, error) {
	l, err := c.compile(t.l)
	if err != nil {
		return cexpr{}, err
	}
	r, err := c.compile(t.r)
	if err != nil {
		return cexpr{}, err
	}
	if t.op == "+" && l.typ == cStr && r.typ == cStr {
		lf, rf := l.str, r.str
		return cexpr{typ: cStr, str: func(e *Env) string { return lf(e) + rf(e) }}, nil
	}
	if t.op == "+" && l.typ == cList && r.typ == cList {
		return cexpr{typ: cList, list: append(append([]cexpr{}, l.list...), r.list...)}, nil
	}
	if t.op == "*" && l.typ == cStr && r.typ != cStr && r.typ != cList {
		return c.repeatStr(l, r, t.r)
	}
	if t.op == "*" && r.typ == cStr && l.typ != cStr && l.typ != cList {
		return c.repeatStr(r, l, t.l)
	}
	a, err := c.asNum(l, t.l)
	if err != nil {
		return cexpr{}, c.errf(t, "unsupported operand types for %s: %s and %s", t.op, l.typ, r.typ)
	}
	b, err := c.asNum(r, t.r)
	if err != nil {
		return cexpr{}, c.errf(t, "unsupported operand types for %s: %s and %s", t.op, l.typ, r.typ)
	}
	if isBitwise(t.op) {
		return c.bitwise(t.op, l, r, a, b), nil
	}
	nk := arithKind(l.kind(), r.kind())
	lb, lok := l.magnitude()
	rb, rok := r.magnitude()
	// An int result must stay below 2**53 to be exact; where the operands' magnitudes
	// cannot take it there, no check is compiled.
	var bound float64
	switch t.op {
	case "+", "-":
		bound = lb + rb
	case "*":
		bound = lb * rb
	}
	checked := nk != kFloat && !(lok && rok && bound < exact)
	isFloat := anyFloat(nk, l, r)
	// Python's ZeroDivisionError and the like set e.Fault and give NaN, which fails
	// every comparison.
	if !checked {
		if f := fastArith(t.op, l, r); f != nil {
			x := num(f, nk).withBound(bound, lok && rok)
			x.isFloat = isFloat
			return x, nil
		}
	}
	var f func(*Env) float64
	switch t.op {
	case "+":
		f = func(e *Env) float64 { return a(e) + b(e) }
		if checked {
			f = checkedArith(a, b, isFloat, func(x, y float64) float64 { return x + y })
		}
	case "-":
		f = func(e *Env) float64 { return a(e) - b(e) }
		if checked {
			f = checkedArith(a, b, isFloat, func(x, y float64) float64 { return x - y })
		}
	case "*":
		f = func(e *Env) float64 { return a(e) * b(e) }
		if checked {
			f = checkedArith(a, b, isFloat, func(x, y float64) float64 { return x * y })
		}
	case "/":
		nk = kFloat
		f = func(e *Env) float64 {
			d := b(e)
			if d == 0 {
				return fault(e)
			}
			return a(e) / d
		}
	case "//":
		bound = lb // |a // b| <= |a| for a nonzero int b
		f = func(e *Env) float64 {
			d := b(e)
			if d == 0 {
				return fault(e)
			}
			return floorDiv(a(e), d)
		}
	case "%":
		bound = rb
		if r.konst {
			d := b(nil) // r may be a constant bool: b is it as a number
			if d > 0 && d == math.Trunc(d) && d < 1<<31 {
				// The common `x % 32 == 0`: integer modulo when x is integral.
				di := int64(d)
				f = func(e *Env) float64 {
					x := a(e)
					if xi := int64(x); float64(xi) == x {
						m := xi % di
						if m < 0 {
							m += di
						}
						return float64(m)
					}
					return pyMod(x, d)
				}
				break
			}
		}
		f = func(e *Env) float64 {
			d := b(e)
			if d == 0 {
				return fault(e)
			}
			x := a(e)
			if xi, di := int64(x), int64(d); float64(xi) == x && float64(di) == d {
				m := xi % di
				if m != 0 && (m < 0) != (di < 0) {
					m += di
				}
				return float64(m)
			}
			return pyMod(x, d)
		}
	case "**":
		return c.power(l, r, a, b), nil
	default:
		return cexpr{}, c.errf(t, "unknown operator %s", t.op)
	}
	x := num(f, nk)
	if nk == kAny {
		x.isFloat = isFloat
	}
	if nk == kInt && (t.op == "//" || t.op == "%") {
		x = x.withBound(bound, (t.op == "//" && lok) || (t.op == "%" && rok))
	} else if !checked && t.op != "/" && t.op != "//" && t.op != "%" {
		x = x.withBound(bound, lok && rok)
	}
	return x, nil
}

// checkedArith is a + - * whose result may be a Python int: one of 2**53 or more is
// reported (e.Inexact), since Python would give it exactly and a float64 cannot. isFloat
// tells a result that is a float at run time; nil, it is an int.
func checkedArith(a, b func(*Env) float64, isFloat func(*Env) bool, op func(x, y float64) float64) func(*Env) float64 {
	return func(e *Env) float64 {
		x, y := a(e), b(e)
		v := op(x, y)
		if math.Abs(v) >= exact && (isFloat == nil || !isFloat(e)) {
			return inexact(e)
		}
		return v
	}
}

// power is l ** r with Python's errors: ZeroDivisionError for 0 to a negative power,
// OverflowError for a float result too large, a complex result for a negative number to a
// fractional power (not supported), and an int result beyond 2**53 reported as inexact.
func (c *compiler) power(l, r cexpr, a, b func(*Env) float64) cexpr {
	lk, rk := l.kind(), r.kind()
	nk := arithKind(lk, rk)
	var k float64
	if r.konst {
		k = b(nil)
	}
	switch {
	case nk == kInt && r.konst && k < 0:
		nk = kFloat // an int to a negative int power is a float: 1 ** -1 is 1.0
	case nk == kInt && !r.konst:
		nk = kAny // 2 ** n is a float when n < 0
	}
	lb, lok := l.magnitude()
	var bound float64
	bounded := false
	if r.konst && k >= 0 && lok {
		bound, bounded = math.Pow(max(lb, 1), k), true
	}
	limit := math.MaxFloat64
	if nk != kFloat {
		limit = exact
	}
	// The result is a float where an operand is or the exponent is negative.
	var isFloat func(*Env) bool
	if nk == kAny {
		lF, rF := l.floatFn(), r.floatFn()
		isFloat = func(e *Env) bool { return lF(e) || rF(e) || b(e) < 0 }
	}
	if r.konst && k == 2 && bounded && bound < limit {
		x := num(func(e *Env) float64 { x := a(e); return x * x }, nk).withBound(bound, true)
		x.isFloat = isFloat
		return x
	}
	mayInt := nk != kFloat
	f := func(e *Env) float64 {
		x, y := a(e), b(e)
		v := math.Pow(x, y)
		if v-v == 0 && math.Abs(v) < exact {
			return v
		}
		return powSlow(e, x, y, v, mayInt && (isFloat == nil || !isFloat(e)))
	}
	x := num(f, nk).withBound(bound, bounded && bound < limit)
	x.isFloat = isFloat
	return x
}

// powSlow finishes x ** y == v where v is large, infinite or NaN; isInt tells that it is
// an int ** a non-negative int.
func powSlow(e *Env, x, y, v float64, isInt bool) float64 {
	if isInt {
		return inexact(e) // an int, of 2**53 or more
	}
	if v-v == 0 || !isFinite(x) || !isFinite(y) {
		return v // a large float, or inf and NaN passed through as Python does
	}
	return fault(e) // 0.0 ** -1, (-8) ** (1/3), 10.0 ** 400
}

// bitwise is l op r for & | ^ << >>: bools give a bool for & | ^, ints an int; a float
// is Python's TypeError, a negative shift count its ValueError.
// maxRepeat is the longest string a repetition ('ab' * n) makes; a longer one counts as
// Python's MemoryError, not satisfied.
const maxRepeat = 1 << 24

// repeatStr is Python's str * int (and int * str, with the operands swapped): the string
// n times, "" for n of zero or less; a bool counts as an int, and a float count raises
// TypeError in Python, so it is not satisfied.
func (c *compiler) repeatStr(s, n cexpr, nn Node) (cexpr, error) {
	count, err := c.asNum(n, nn)
	if err != nil {
		return cexpr{}, err
	}
	if n.kind() == kFloat {
		return cexpr{typ: cStr, str: func(e *Env) string { s.str(e); count(e); fault(e); return "" }}, nil
	}
	str, isFloat := s.str, n.floatFn()
	return cexpr{typ: cStr, str: func(e *Env) string {
		x, k := str(e), count(e)
		switch {
		case k != k: // an error computing it, which set e.Fault
			return ""
		case n.nk == kAny && isFloat(e): // a float of a parameter that mixes ints and floats
			fault(e)
			return ""
		case k <= 0 || x == "":
			return ""
		case k*float64(len(x)) > maxRepeat:
			fault(e)
			return ""
		}
		return strings.Repeat(x, int(k))
	}}, nil
}

func (c *compiler) bitwise(op string, l, r cexpr, a, b func(*Env) float64) cexpr {
	if l.typ == cBool && r.typ == cBool && op != "<<" && op != ">>" {
		x, y := l.bl, r.bl
		switch op {
		case "&":
			return cexpr{typ: cBool, bl: func(e *Env) bool { return x(e) && y(e) }}
		case "|":
			return cexpr{typ: cBool, bl: func(e *Env) bool { return x(e) || y(e) }}
		}
		return cexpr{typ: cBool, bl: func(e *Env) bool { return x(e) != y(e) }}
	}
	lk, rk := l.kind(), r.kind()
	if lk == kFloat || rk == kFloat {
		return num(func(e *Env) float64 { a(e); b(e); return fault(e) }, kInt)
	}
	lb, lok := l.magnitude()
	rb, rok := r.magnitude()
	ranged := lok && rok
	if lk == kInt && rk == kInt && op != "<<" && op != ">>" {
		// Ints below 2**53 in magnitude: the result is too, and exact.
		var f func(*Env) float64
		switch op {
		case "&":
			f = func(e *Env) float64 { return float64(int64(a(e)) & int64(b(e))) }
		case "|":
			f = func(e *Env) float64 { return float64(int64(a(e)) | int64(b(e))) }
		default:
			f = func(e *Env) float64 { return float64(int64(a(e)) ^ int64(b(e))) }
		}
		return num(f, kInt).withBound(2*max(lb, rb), ranged)
	}
	lF, rF := l.floatFn(), r.floatFn()
	f := func(e *Env) float64 {
		x, y := a(e), b(e)
		if lF(e) || rF(e) {
			return fault(e) // a float operand of mixed kind
		}
		v, msg := intBitwise(op, int64(x), int64(y))
		switch {
		case msg == "negative shift count":
			return fault(e)
		case msg != "", math.Abs(float64(v)) >= exact:
			return inexact(e)
		}
		return float64(v)
	}
	x := num(f, kInt)
	switch op {
	case "&", "|", "^":
		x = x.withBound(2*max(lb, rb), ranged)
	case ">>":
		x = x.withBound(lb, lok)
	}
	return x
}

// invert is ~x: -x-1 for an int, TypeError for a float.
func (c *compiler) invert(x cexpr, f func(*Env) float64) cexpr {
	switch x.kind() {
	case kFloat:
		return num(func(e *Env) float64 { f(e); return fault(e) }, kInt)
	case kInt:
		return num(func(e *Env) float64 { return -f(e) - 1 }, kInt)
	}
	isFloat := x.floatFn()
	return num(func(e *Env) float64 {
		v := f(e)
		if isFloat(e) {
			return fault(e)
		}
		return -v - 1
	}, kInt)
}

func (c *compiler) compare(t *compare) (cexpr, error) {
	args := make([]cexpr, len(t.args))
	for k, a := range t.args {
		e, err := c.compile(a)
		if err != nil {
			return cexpr{}, err
		}
		args[k] = e
	}
	var terms []func(*Env) bool
	for k, op := range t.ops {
		f, err := c.compare2(t, op, args[k], args[k+1], t.args[k], t.args[k+1])
		if err != nil {
			return cexpr{}, err
		}
		terms = append(terms, f)
	}
	if len(terms) == 1 {
		return cexpr{typ: cBool, bl: terms[0]}, nil
	}
	return cexpr{typ: cBool, bl: func(e *Env) bool {
		for _, f := range terms {
			if !f(e) {
				return false
			}
		}
		return true
	}}, nil
}

func (c *compiler) compare2(t *compare, op string, l, r cexpr, ln, rn Node) (func(*Env) bool, error) {
	if op == "in" || op == "not in" {
		var f func(*Env) bool
		switch r.typ {
		case cList:
			var err error
			if f, err = c.inList(l, r, ln); err != nil {
				return nil, err
			}
		case cStr:
			if l.typ != cStr {
				return nil, c.errf(ln, "'in <string>' requires a string on the left, not a %s", l.typ)
			}
			a, b := l.str, r.str
			f = func(e *Env) bool { return strings.Contains(b(e), a(e)) }
		default:
			return nil, c.errf(rn, "the right side of %q must be a list or a string, found a %s", op, r.typ)
		}
		if op == "not in" {
			g := f
			f = func(e *Env) bool { return !g(e) }
		}
		return f, nil
	}
	if l.typ == cList || r.typ == cList {
		return nil, c.errf(t, "comparing lists with %s is not supported", op)
	}
	if l.typ == cStr || r.typ == cStr {
		if l.typ != r.typ {
			// A str never equals a number, but Python computes both first, and either
			// may raise.
			el, er := effect(l), effect(r)
			switch op {
			case "==":
				return func(e *Env) bool { el(e); er(e); return false }, nil
			case "!=":
				return func(e *Env) bool { el(e); er(e); return true }, nil
			}
			return nil, c.errf(t, "%s is not supported between a %s and a %s", op, l.typ, r.typ)
		}
		if f := comparison(op, l.str, r.str); f != nil {
			return f, nil
		}
	}
	a, err := c.asNum(l, ln)
	if err != nil {
		return nil, err
	}
	b, err := c.asNum(r, rn)
	if err != nil {
		return nil, err
	}
	if r.konst {
		k := b(nil)
		switch op {
		case "==":
			return func(e *Env) bool { return a(e) == k }, nil
		case "!=":
			return func(e *Env) bool { return a(e) != k }, nil
		case "<":
			return func(e *Env) bool { return a(e) < k }, nil
		case "<=":
			return func(e *Env) bool { return a(e) <= k }, nil
		case ">":
			return func(e *Env) bool { return a(e) > k }, nil
		case ">=":
			return func(e *Env) bool { return a(e) >= k }, nil
		}
	}
	// A Python error is NaN and sets e.Fault, which fails the restriction however the
	// comparison goes; a NaN Python computes (inf - inf) differs from everything.
	if f := comparison(op, a, b); f != nil {
		return f, nil
	}
	return nil, c.errf(t, "unknown comparison %s", op)
}

// comparison returns a(e) op b(e) as a function of its own for each operator (a function
// that switched on op would do so at every evaluation), or nil for an op that is not one
// of ==, !=, <, <=, >, >=. Strings compare as Python's do, by code point: Go compares
// UTF-8 bytes in the same order.
func comparison[T string | float64](op string, a, b func(*Env) T) func(*Env) bool {
	switch op {
	case "==":
		return func(e *Env) bool { return a(e) == b(e) }
	case "!=":
		return func(e *Env) bool { return a(e) != b(e) }
	case "<":
		return func(e *Env) bool { return a(e) < b(e) }
	case "<=":
		return func(e *Env) bool { return a(e) <= b(e) }
	case ">":
		return func(e *Env) bool { return a(e) > b(e) }
	case ">=":
		return func(e *Env) bool { return a(e) >= b(e) }
	}
	return nil
}

func (c *compiler) call(t *call) (cexpr, error) {
	args := make([]cexpr, len(t.args))
	for k, a := range t.args {
		e, err := c.compile(a)
		if err != nil {
			return cexpr{}, err
		}
		args[k] = e
	}
	nums := func() ([]func(*Env) float64, error) {
		items := args
		if len(args) == 1 && args[0].typ == cList {
			items = args[0].list
		}
		out := make([]func(*Env) float64, len(items))
		for k, a := range items {
			f, err := c.asNum(a, t)
			if err != nil {
				return nil, err
			}
			out[k] = f
		}
		return out, nil
	}
	switch t.fn {
	case "min", "max":
		fs, err := nums()
		if err != nil {
			return cexpr{}, err
		}
		if len(fs) == 0 {
			return cexpr{}, c.errf(t, "%s needs at least one argument", t.fn)
		}
		isMax := t.fn == "max"
		items := args
		if len(args) == 1 && args[0].typ == cList {
			items = args[0].list
		}
		nk, bound, ranged := items[0].kind(), 0.0, true
		for _, x := range items {
			nk = choiceKind(nk, x.kind())
			b, ok := x.magnitude()
			bound, ranged = max(bound, b), ranged && ok
		}
		// pick is the index of the item Python returns: the first of the largest (or
		// smallest).
		pick := func(e *Env) (int, float64) {
			k, best := 0, fs[0](e)
			for j, f := range fs[1:] {
				v := f(e)
				if (isMax && v > best) || (!isMax && v < best) {
					k, best = j+1, v
				}
			}
			return k, best
		}
		x := cexpr{typ: cNum, nk: nk, bound: bound, ranged: ranged, num: func(e *Env) float64 {
			best := fs[0](e)
			for _, f := range fs[1:] {
				v := f(e)
				if (isMax && v > best) || (!isMax && v < best) {
					best = v
				}
			}
			return best
		}}
		if nk == kAny {
			floats := make([]func(*Env) bool, len(items))
			for k, it := range items {
				floats[k] = it.floatFn()
			}
			x.isFloat = func(e *Env) bool {
				k, _ := pick(e)
				return floats[k](e)
			}
		}
		return x, nil
	case "round":
		if len(args) == 2 {
			return c.roundDigits(t, args[0], args[1])
		}
		fallthrough
	case "abs", "int", "float", "bool":
		if len(args) != 1 {
			return cexpr{}, c.errf(t, "%s expects 1 argument, got %d", t.fn, len(args))
		}
		if t.fn == "bool" {
			f, err := c.asBool(args[0], t.args[0])
			return cexpr{typ: cBool, bl: f}, err
		}
		f, err := c.asNum(args[0], t.args[0])
		if err != nil {
			return cexpr{}, err
		}
		b, ok := args[0].magnitude()
		switch {
		case t.fn == "abs":
			return args[0].withNum(func(e *Env) float64 { return math.Abs(f(e)) }).withBound(b, ok), nil
		case t.fn == "float":
			return num(f, kFloat).withBound(b, ok), nil
		case args[0].kind() == kInt:
			return num(f, kInt).withBound(b, ok), nil // int(i) and round(i) are i
		}
		conv := math.Trunc
		if t.fn == "round" {
			conv = math.RoundToEven
		}
		return num(func(e *Env) float64 {
			v := conv(f(e))
			if v-v != 0 {
				return fault(e) // Python's OverflowError or ValueError for inf and NaN
			}
			return v
		}, kInt), nil
	}
	return cexpr{}, c.errf(t, "unknown function %q (known: abs, min, max, int, float, round, bool)", t.fn)
}

// roundDigits is round(x, n): an int x gives an int, a float x a float rounded on its
// exact value, halves to even; n must be an int (a float n is Python's TypeError).
func (c *compiler) roundDigits(t *call, x, n cexpr) (cexpr, error) {
	f, err := c.asNum(x, t.args[0])
	if err != nil {
		return cexpr{}, err
	}
	nf, err := c.asNum(n, t.args[1])
	if err != nil {
		return cexpr{}, err
	}
	nFloat, xFloat := n.floatFn(), x.floatFn()
	y := x.withNum(func(e *Env) float64 {
		v, d := f(e), nf(e)
		if nFloat(e) {
			return fault(e) // round(x, 1.0) is Python's TypeError
		}
		digits := int64(max(min(d, 1e6), -1e6))
		if !xFloat(e) && math.Abs(v) < 0x1p63 {
			return float64(roundIntDigits(int64(v), digits))
		}
		r, ok := roundFloatDigits(v, digits)
		if !ok {
			return fault(e)
		}
		return r
	})
	return y, nil
}

// isSlot reports whether x reads a numeric parameter directly.
func isSlot(x cexpr) bool { return x.typ == cNum && x.slotSet }

// fastArith specialises + - * when an operand is a parameter or a constant, saving the
// closure calls that would load them: restrictions are evaluated millions of times while a
// space is built.
func fastArith(op string, l, r cexpr) func(*Env) float64 {
	if op != "+" && op != "-" && op != "*" {
		return nil
	}
	ls, rs := isSlot(l), isSlot(r)
	var lk, rk float64
	if l.konst && l.typ == cNum {
		lk = l.num(nil)
	}
	if r.konst && r.typ == cNum {
		rk = r.num(nil)
	}
	a, b := l.slot, r.slot
	lf, rf := l.num, r.num
	switch {
	case ls && rs:
		switch op {
		case "+":
			return func(e *Env) float64 { return e.Num[a] + e.Num[b] }
		case "-":
			return func(e *Env) float64 { return e.Num[a] - e.Num[b] }
		default:
			return func(e *Env) float64 { return e.Num[a] * e.Num[b] }
		}
	case ls && r.konst && r.typ == cNum:
		switch op {
		case "+":
			return func(e *Env) float64 { return e.Num[a] + rk }
		case "-":
			return func(e *Env) float64 { return e.Num[a] - rk }
		default:
			return func(e *Env) float64 { return e.Num[a] * rk }
		}
	case l.konst && l.typ == cNum && rs:
		switch op {
		case "+":
			return func(e *Env) float64 { return lk + e.Num[b] }
		case "-":
			return func(e *Env) float64 { return lk - e.Num[b] }
		default:
			return func(e *Env) float64 { return lk * e.Num[b] }
		}
	case r.konst && r.typ == cNum && lf != nil:
		switch op {
		case "+":
			return func(e *Env) float64 { return lf(e) + rk }
		case "-":
			return func(e *Env) float64 { return lf(e) - rk }
		default:
			return func(e *Env) float64 { return lf(e) * rk }
		}
	case l.konst && l.typ == cNum && rf != nil:
		switch op {
		case "+":
			return func(e *Env) float64 { return lk + rf(e) }
		case "-":
			return func(e *Env) float64 { return lk - rf(e) }
		default:
			return func(e *Env) float64 { return lk * rf(e) }
		}
	case ls && rf != nil:
		switch op {
		case "+":
			return func(e *Env) float64 { return e.Num[a] + rf(e) }
		case "-":
			return func(e *Env) float64 { return e.Num[a] - rf(e) }
		default:
			return func(e *Env) float64 { return e.Num[a] * rf(e) }
		}
	case rs && lf != nil:
		switch op {
		case "+":
			return func(e *Env) float64 { return lf(e) + e.Num[b] }
		case "-":
			return func(e *Env) float64 { return lf(e) - e.Num[b] }
		default:
			return func(e *Env) float64 { return lf(e) * e.Num[b] }
		}
	}
	return nil
}
