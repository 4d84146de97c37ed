package spec

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Comparison methods of verification: how an output is compared with its reference.
const (
	// MethodAllclose passes when every element has |got - want| <= atol + rtol*|want|,
	// as numpy.allclose (integers: got == want).
	MethodAllclose = "allclose"
	// MethodAbsoluteSum passes when the sum over the elements of |got - want| is at most
	// the tolerance: KTT's AbsoluteDifference.
	MethodAbsoluteSum = "absolute_sum"
	// MethodRelativeNorm passes when ||got - want|| / ||want|| (Euclidean norms over the
	// elements) is at most the tolerance: the normwise relative error of BLAS testers.
	MethodRelativeNorm = "relative_norm"
	// MethodFunction passes when the user's C or C++ function (Check.Function) returns 0
	// for the output and its reference: Kernel Tuner's verify function.
	MethodFunction = "function"
)

// Methods are the comparison methods, the default first.
var Methods = []string{MethodAllclose, MethodAbsoluteSum, MethodRelativeNorm, MethodFunction}

// Check says how one compared output is compared with its reference.
type Check struct {
	Method     string  // one of Methods
	Atol, Rtol float64 // allclose: |got - want| <= Atol + Rtol*|want| per element
	// EqualNaN (allclose's equal_nan, as NumPy's) lets a NaN pass where the reference has
	// a NaN too; without it a NaN never passes.
	EqualNaN  bool
	Tolerance float64 // absolute_sum: sum |got - want| <= Tolerance; relative_norm: ||got - want|| <= Tolerance * ||want||; function: passed to it
	// Start and End are the compared elements, [Start, End); End 0: the whole output.
	Start, End int
	// Function is method function's C or C++ function (see FunctionSignature), compiled
	// as a host C kernel is; nil for the other methods. Outputs that inherit it from
	// verification share it.
	Function *Kernel
	// functionField is where Function is written (verification.function,
	// verification.outputs[1].function), for the errors of reading its files.
	functionField string
}

// Check is how the compared output Outputs[j] is compared: its own settings, or for a
// Verification made without them, allclose with Atol and Rtol over the whole output.
func (v *Verification) Check(j int) Check {
	if j < len(v.Checks) {
		return v.Checks[j]
	}
	return Check{Method: MethodAllclose, Atol: v.Atol, Rtol: v.Rtol}
}

// String names the method with its tolerances, for messages: "allclose (atol 1e-06,
// rtol 1e-05)", "relative_norm (tolerance 1e-06)".
func (c Check) String() string {
	if c.Method == MethodAllclose || c.Method == "" {
		if c.EqualNaN {
			return fmt.Sprintf("allclose (atol %v, rtol %v, equal_nan)", c.Atol, c.Rtol)
		}
		return fmt.Sprintf("allclose (atol %v, rtol %v)", c.Atol, c.Rtol)
	}
	if c.Method == MethodFunction && c.Function != nil {
		return fmt.Sprintf("the verification function %s (tolerance %v)", c.Function.Describe(), c.Tolerance)
	}
	return fmt.Sprintf("%s (tolerance %v)", c.Method, c.Tolerance)
}

// checkSettings holds comparison settings as a level of verification gives them (its
// own, or an outputs entry's), with where each was written.
type checkSettings struct {
	c      Check
	tolSet bool // a tolerance was given (the methods other than allclose need one)
	// lines of the fields written at this level, 0 where inherited
	methodLine, atolLine, rtolLine, tolLine, functionLine, equalNaNLine int
}

// readCheck reads method, atol, rtol, equal_nan, tolerance, function and (for an output, arg >= 0)
// range among entries of field, over the settings inherited; it reports what is written
// where it cannot apply. A function written without a method makes the method function.
func (p *parser) readCheck(entries []entry, field string, inherited Check, tolSet bool, arg int) Check {
	d := p.d
	cs := checkSettings{c: inherited, tolSet: tolSet}
	// A method that could not be read leaves the checks that depend on it unsaid, and a
	// tolerance written but wrong is not also missing: each mistake is reported once.
	badMethod := false
	for _, e := range entries {
		f := join(field, e.key)
		switch e.key {
		case "method":
			m, ok := d.str(e.value, f)
			if !ok {
				badMethod = true
				continue
			}
			if !contains(Methods, m) {
				d.errf(e.value, f, "unknown method %q%s; expected %s (ktune help spec gives each one's rule)", m, suggest(m, Methods), strings.Join(Methods, ", "))
				badMethod = true
				continue
			}
			cs.c.Method, cs.methodLine = m, e.line
		case "atol", "rtol", "tolerance":
			x, ok := d.number(e.value, f)
			if ok && (x < 0 || math.IsNaN(x)) {
				d.errf(e.value, f, "%v; expected a non-negative tolerance", x)
				ok = false
			}
			if !ok {
				cs.tolSet = cs.tolSet || e.key == "tolerance"
				continue
			}
			switch e.key {
			case "atol":
				cs.c.Atol, cs.atolLine = x, e.line
			case "rtol":
				cs.c.Rtol, cs.rtolLine = x, e.line
			default:
				cs.c.Tolerance, cs.tolLine, cs.tolSet = x, e.line, true
			}
		case "equal_nan":
			if b, ok := d.boolean(e.value, f); ok {
				cs.c.EqualNaN, cs.equalNaNLine = b, e.line
			}
		case "range":
			cs.c.Start, cs.c.End = p.outputRange(e.value, f, arg)
		case "function":
			if fn := p.verifyFunction(e.value, f, e.line); fn != nil {
				cs.c.Function, cs.c.functionField, cs.functionLine = fn, f, e.line
			}
		}
	}
	if cs.functionLine > 0 || hasKey(entries, "function") {
		switch {
		case cs.methodLine == 0:
			cs.c.Method = MethodFunction
		case cs.c.Method != MethodFunction:
			d.errAt(cs.methodLine, join(field, "method"), "%s, but a function is given beside it: a function is method function's; leave out method (or write method: function) to compare by the function, or leave out the function", cs.c.Method)
		}
	}
	if badMethod {
		return cs.c
	}
	m := cs.c.Method
	if m != MethodFunction {
		cs.c.Function, cs.c.functionField = nil, ""
	} else if cs.c.Function == nil && cs.methodLine > 0 {
		d.errAt(cs.methodLine, join(field, "function"), "missing; method function needs the C or C++ function that compares: function: {name: check, source: check.c} (ktune help spec gives its signature)")
	}
	if m == MethodAllclose {
		if cs.tolLine > 0 {
			d.errAt(cs.tolLine, join(field, "tolerance"), "method allclose takes atol and rtol, not a tolerance; write those, or name the method the tolerance is for (method: %s or %s)", MethodAbsoluteSum, MethodRelativeNorm)
		}
		if arg >= 0 && !p.s.Arguments[arg].floatType() {
			if cs.equalNaNLine > 0 {
				d.errAt(cs.equalNaNLine, join(field, "equal_nan"), "%s is %s, whose values are never NaN; leave equal_nan out",
					p.s.Arguments[arg].Name, p.s.Arguments[arg].Type)
			}
			for _, at := range []struct {
				key  string
				line int
			}{{"atol", cs.atolLine}, {"rtol", cs.rtolLine}} {
				if at.line > 0 {
					d.errAt(at.line, join(field, at.key), "%s is %s: allclose compares integers exactly; for a tolerance, write method: %s with a tolerance (the largest sum of |got - want| that passes)",
						p.s.Arguments[arg].Name, p.s.Arguments[arg].Type, MethodAbsoluteSum)
				}
			}
		}
		return cs.c
	}
	for _, at := range []struct {
		key  string
		line int
	}{{"atol", cs.atolLine}, {"rtol", cs.rtolLine}} {
		if at.line > 0 {
			d.errAt(at.line, join(field, at.key), "%s is method allclose's; method %s takes a tolerance instead: write tolerance: X", at.key, m)
		}
	}
	if cs.equalNaNLine > 0 {
		d.errAt(cs.equalNaNLine, join(field, "equal_nan"), "equal_nan is method allclose's; method %s fails an output holding a NaN", m)
	}
	cs.c.EqualNaN = false // inherited from an allclose level, it does not apply here
	if m == MethodFunction {
		if !cs.tolSet {
			cs.c.Tolerance = unsetTolerance // the output type's default atol (withDefaults)
		}
		return cs.c
	}
	// where the method is inherited, verification's own level said it lacks one
	if !cs.tolSet && cs.methodLine > 0 {
		d.errAt(cs.methodLine, join(field, "tolerance"), "missing; method %s needs one: %s", m, toleranceMeaning[m])
	}
	return cs.c
}

// toleranceMeaning says what a method's tolerance bounds, for messages.
var toleranceMeaning = map[string]string{
	MethodAbsoluteSum:  "the largest sum over the compared elements of |got - want| that passes (KTT's default is 1e-4)",
	MethodRelativeNorm: "the largest ||got - want|| / ||want|| that passes (for a well-conditioned result a few times the type's unit roundoff: about 1e-3 for float16, 1e-6 for float32, 1e-15 for float64)",
}

// outputRange reads an output's range: a length (the elements before it) or [start, end)
// as two indices, each a whole number or an expression over the constants. It returns
// 0, 0 (the whole output) where it is wrong, after saying why.
func (p *parser) outputRange(n *yaml.Node, field string, arg int) (start, end int) {
	d, s := p.d, p.s
	if arg < 0 {
		d.errf(n, field, "a range belongs to one output; give it in that output's entry of outputs: {name: c, range: [0, N]}")
		return 0, 0
	}
	if !p.paramsOK {
		return 0, 0
	}
	_, nums, ok := p.exprList(n, field, p.c.constScope, 1, 2)
	if !ok {
		return 0, 0
	}
	vals := make([]int, len(nums))
	for i, num := range nums {
		v := num.num.Eval(p.c.constEnv())
		if math.IsNaN(v) || v != math.Trunc(v) || v < 0 || v > 1<<53 {
			d.errAt(num.line, num.field, "%s evaluates to %v; expected a whole number of elements, at least 0", num.num.Source, v)
			return 0, 0
		}
		vals[i] = int(v)
	}
	if len(vals) == 1 {
		start, end = 0, vals[0]
	} else {
		start, end = vals[0], vals[1]
	}
	if end <= start {
		d.errf(n, field, "[%d, %d) holds no element; expected a length (the first elements) or [start, end) with start < end", start, end)
		return 0, 0
	}
	a := s.Arguments[arg]
	if l := p.c.args[arg].length; l != nil && p.c.constOnly(l.num) {
		if length := l.num.Eval(p.c.constEnv()); float64(end) > length {
			d.errf(n, field, "[%d, %d) ends beyond %s's %s elements (arguments[%d].length: %s); expected an end at most its length",
				start, end, a.Name, strconv.FormatFloat(length, 'f', -1, 64), arg, a.Length)
			return 0, 0
		}
	}
	return start, end
}

// floatType reports whether the argument's elements are floating point.
func (a Argument) floatType() bool {
	t, ok := lookupType(a.Type)
	return ok && t.float
}

// comparedOutput reads one entry of verification.outputs: an argument's name, or a
// mapping {name, method, atol, rtol, tolerance, range, function}. It returns the argument's index
// (-1 when wrong, after saying why) and its comparison.
func (p *parser) comparedOutput(it *yaml.Node, field string, global Check, tolSet bool, outputNames []string) (int, Check) {
	d, s := p.d, p.s
	var entries []entry
	nameNode := it
	if rn := d.resolve(it); rn != nil && rn.Kind == yaml.MappingNode {
		var ok bool
		entries, ok = d.mapping(rn, field, []string{"name", "method", "atol", "rtol", "equal_nan", "tolerance", "range", "function"})
		if !ok && entries == nil {
			return -1, global
		}
		nameNode = nil
		for _, e := range entries {
			if e.key == "name" {
				nameNode = e.value
			}
		}
		if nameNode == nil {
			d.errf(rn, join(field, "name"), "missing; expected the name of an output argument")
			return -1, global
		}
		field = join(field, "name")
	}
	name, good := d.name(nameNode, field)
	if !good {
		return -1, global
	}
	k := -1
	for i, a := range s.Arguments {
		if a.Name == name {
			k = i
		}
	}
	switch {
	case k < 0:
		d.errf(nameNode, field, "no argument %q%s", name, suggest(name, outputNames))
		return -1, global
	case !s.Arguments[k].Output:
		d.errf(nameNode, field, "argument %q is not an output; mark it output: true", name)
		return -1, global
	}
	return k, p.readCheck(entries, strings.TrimSuffix(field, ".name"), global, tolSet, k)
}

// unsetTolerance marks an atol or rtol that no level of verification gives: withDefaults
// puts the element type's default in its place.
const unsetTolerance = -1

// withDefaults returns c with the defaults of outputs of element type typ where atol or
// rtol is unset: DefaultHalfAtol and DefaultHalfRtol for float16, whose precision is
// about three decimal digits, DefaultAtol and DefaultRtol otherwise. Each falls back on
// its own: a spec that gives only rtol keeps half's atol. A function's unset tolerance
// is the type's default atol, as Kernel Tuner passes its atol to a verify function.
func (c Check) withDefaults(typ string) Check {
	atol, rtol := DefaultAtol, DefaultRtol
	if t, ok := lookupType(typ); ok && t.name == "float16" {
		atol, rtol = DefaultHalfAtol, DefaultHalfRtol
	}
	if c.Atol < 0 {
		c.Atol = atol
	}
	if c.Rtol < 0 {
		c.Rtol = rtol
	}
	if c.Tolerance < 0 {
		c.Tolerance = atol
	}
	return c
}

// UnchangedInputs lists the arrays that verification expects the kernel to leave as it
// got them, as indices into Arguments: every array the kernel (or a launch of its
// sequence) takes that is neither output: true nor scratch: true. Constant memory, local
// memory and scalars are not written back; an array only the reference takes is never
// given to the kernel; the two arrays of a launch's swap are ping-pong buffers, each
// written by the repetitions in turn.
func (s *Spec) UnchangedInputs() []int {
	taken := make([]bool, len(s.Arguments))
	if len(s.Launches) == 0 {
		for i := range taken {
			taken[i] = true
		}
	}
	for _, l := range s.Launches {
		for _, k := range l.Args {
			taken[k] = true
		}
	}
	for _, l := range s.Launches {
		for _, k := range l.Swap {
			taken[k] = false
		}
	}
	var out []int
	for i, a := range s.Arguments {
		if taken[i] && a.Kind == ArgArray && !a.Output && !a.Scratch {
			out = append(out, i)
		}
	}
	return out
}
