package expr

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/ktune/ktune/space"
)

// Unmatched returns, for the restriction src over params, a description of every
// comparison of a parameter with a literal that equals none of the parameter's values:
// ACC == 'dubble' where ACC takes 'single' and 'double', block_size_x != 48 where no block
// size is 48, or an element of a literal list after "ACC in". Python computes such a
// comparison without complaint (it is never true, or with != and not in always), so a
// misspelled value quietly removes configurations from the space, or none; the
// descriptions are for warnings. Comparisons with a constant, an expression, or a loop
// variable of a comprehension are not looked at, nor is src when it does not parse.
func Unmatched(params []space.Param, src string) []string {
	n, err := Parse(src)
	if err != nil {
		return nil
	}
	byName := make(map[string]*space.Param, len(params))
	for i := range params {
		byName[params[i].Name] = &params[i]
	}
	var out []string
	inspect(n, func(n Node, bound map[string]bool) {
		if t, ok := n.(*compare); ok {
			for k, op := range t.ops {
				out = append(out, unmatchedIn(op, t.args[k], t.args[k+1], byName, bound)...)
			}
		}
	})
	return out
}

// unmatchedIn describes the comparison l op r when it compares a parameter with a literal
// (or, for in and not in, a literal list) that the parameter never equals.
func unmatchedIn(op string, l, r Node, params map[string]*space.Param, bound map[string]bool) []string {
	param := func(n Node) *space.Param {
		if t, ok := n.(*name); ok && !bound[t.id] {
			return params[t.id]
		}
		return nil
	}
	switch op {
	case "==", "!=":
		p, lit := param(l), r
		if p == nil {
			p, lit = param(r), l
		}
		if p == nil {
			return nil
		}
		v, ok := literalValue(lit)
		if !ok || takes(p, v) {
			return nil
		}
		never := "never"
		if op == "!=" {
			never = "always"
		}
		return []string{fmt.Sprintf("%s %s %s is %s true: %s", p.Name, op, repr(v), never, notAValue(p, v))}
	case "in", "not in":
		p := param(l)
		list, ok := r.(*listLit)
		if p == nil || !ok {
			return nil
		}
		var out []string
		for _, e := range list.elems {
			if v, ok := literalValue(e); ok && !takes(p, v) {
				out = append(out, fmt.Sprintf("%s %s [...] lists %s: %s", p.Name, op, repr(v), notAValue(p, v)))
			}
		}
		return out
	}
	return nil
}

// notAValue says that p takes other values than v, with the nearest string value as a
// suggestion.
func notAValue(p *space.Param, v space.Value) string {
	vals := make([]string, 0, min(len(p.Values), 9))
	var strs []string
	for i, x := range p.Values {
		if i < 8 {
			vals = append(vals, repr(x))
		} else if i == 8 {
			vals = append(vals, fmt.Sprintf("... (%d in all)", len(p.Values)))
		}
		if x.Kind() == space.String {
			strs = append(strs, x.Str())
		}
	}
	msg := fmt.Sprintf("%s is none of %s's values (%s)", repr(v), p.Name, strings.Join(vals, ", "))
	if v.Kind() == space.String {
		if near := Closest(v.Str(), strs); near != "" {
			msg += fmt.Sprintf("; did you mean %s?", repr(space.StringValue(near)))
		}
	}
	return msg
}

// takes reports whether p has a value equal to v, as Python compares them.
func takes(p *space.Param, v space.Value) bool {
	for _, x := range p.Values {
		if x.Equal(v) {
			return true
		}
	}
	return false
}

// literalValue is the value of a literal: a number (with its sign), a string or a boolean.
func literalValue(n Node) (space.Value, bool) {
	switch t := n.(type) {
	case *numLit:
		if t.isInt {
			return space.IntValue(t.i), true
		}
		return space.FloatValue(t.f), true
	case *strLit:
		return space.StringValue(t.s), true
	case *boolLit:
		return space.BoolValue(t.b), true
	case *unary:
		num, ok := t.x.(*numLit)
		if !ok || t.op != "-" && t.op != "+" {
			return space.Value{}, false
		}
		switch {
		case t.op == "+" && num.isInt:
			return space.IntValue(num.i), true
		case t.op == "+":
			return space.FloatValue(num.f), true
		case num.isInt && num.i != -num.i: // -(-2**63) does not fit
			return space.IntValue(-num.i), true
		case !num.isInt:
			return space.FloatValue(-num.f), true
		}
	}
	return space.Value{}, false
}

// repr writes v as Python's repr does: strings in quotes.
func repr(v space.Value) string {
	if v.Kind() == space.String {
		s := v.Str()
		if strings.Contains(s, "'") && !strings.Contains(s, `"`) {
			return `"` + s + `"`
		}
		q := strconv.Quote(s)
		inner := strings.ReplaceAll(q[1:len(q)-1], `\"`, `"`)
		return "'" + strings.ReplaceAll(inner, "'", `\'`) + "'"
	}
	return v.String()
}
