package expr

import (
	"fmt"
	"math"

	"github.com/ktune/ktune/space"
)

// ParamScope returns the scope in which restrictions over params are compiled: each
// parameter's slot is its index.
func ParamScope(params []space.Param) (MapScope, error) {
	scope := make(MapScope, len(params))
	for i, p := range params {
		v, err := paramVar(p)
		if err != nil {
			return nil, err
		}
		v.Slot = i
		scope[p.Name] = v
	}
	return scope, nil
}

// paramVar describes a parameter by its values: their kind, whether ints and floats mix
// (and which whole values are floats), and their largest magnitude.
func paramVar(p space.Param) (Var, error) {
	var v Var
	var ints, floats bool
	for _, x := range p.Values {
		vk := x.Kind()
		switch {
		case v.Kind == 0 || v.Kind == vk:
			v.Kind = vk
		case vk == space.String || v.Kind == space.String:
			return Var{}, fmt.Errorf("parameter %s mixes strings and numbers", p.Name)
		case (vk == space.Int || vk == space.Bool) && (v.Kind == space.Int || v.Kind == space.Bool):
			v.Kind = space.Int // bools are ints
		default:
			v.Kind = space.Float
		}
		ints = ints || vk == space.Int || vk == space.Bool
		floats = floats || vk == space.Float
		if f := x.Float(); vk == space.Float && f == math.Trunc(f) {
			v.WholeFloats = append(v.WholeFloats, f) // told from the ints by value
		}
		if vk != space.String {
			v.Bound = max(v.Bound, math.Abs(x.Float()))
		}
	}
	v.Mixed = ints && floats
	if !v.Mixed {
		v.WholeFloats = nil
	}
	return v, nil
}

type restriction struct {
	pred   *Predicate
	params []int
	always bool // proven to hold for every combination of the parameters' values
}

func (r *restriction) Source() string               { return r.pred.Source }
func (r *restriction) Params() []int                { return r.params }
func (r *restriction) Holds(b *space.Bindings) bool { return r.pred.Eval(b) }

// HoldsAlways reports that the restriction is proven to hold for every combination of its
// parameters' values (interval arithmetic over integers: "a + b > 0" of positive values),
// so that building a space leaves it out instead of enumerating the parameters it ties.
func (r *restriction) HoldsAlways() bool { return r.always }

// newRestriction is the compiled restriction p over params, with the constants it may read.
func newRestriction(p *Predicate, params []space.Param, constants map[string]float64) *restriction {
	return &restriction{pred: p, params: p.Slots, always: holdsAlways(p.node, intRanges{params, constants})}
}

// CompileRestriction compiles a restriction over params; it is a space.Compiler.
func CompileRestriction(params []space.Param, src string) (space.Restriction, error) {
	scope, err := ParamScope(params)
	if err != nil {
		return nil, err
	}
	p, err := CompilePredicate(src, scope)
	if err != nil {
		return nil, err
	}
	return newRestriction(p, params, nil), nil
}

// CompileRestrictionWith is CompileRestriction for an expression that may also read named
// constants (a kernel spec's constants), which take their values.
func CompileRestrictionWith(params []space.Param, constants map[string]float64, src string) (space.Restriction, error) {
	scope, err := ParamScope(params)
	if err != nil {
		return nil, err
	}
	for name, v := range constants {
		if _, isParam := scope[name]; !isParam {
			scope[name] = Var{Const: true, Value: v}
		}
	}
	p, err := CompilePredicate(src, scope)
	if err != nil {
		return nil, err
	}
	return newRestriction(p, params, constants), nil
}

// NewSpace builds the space of params under restriction expressions.
func NewSpace(params []space.Param, restrictions []string) (*space.Space, error) {
	return space.New(params, restrictions, CompileRestriction)
}
