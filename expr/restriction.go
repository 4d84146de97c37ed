package expr

import (
	"fmt"

	"github.com/ktune/ktune/space"
)

// ParamScope returns the scope in which restrictions over params are compiled: each
// parameter's slot is its index.
func ParamScope(params []space.Param) (MapScope, error) {
	scope := make(MapScope, len(params))
	for i, p := range params {
		k, err := paramKind(p)
		if err != nil {
			return nil, err
		}
		scope[p.Name] = Var{Slot: i, Kind: k}
	}
	return scope, nil
}

func paramKind(p space.Param) (space.Kind, error) {
	var k space.Kind
	for _, v := range p.Values {
		vk := v.Kind()
		switch {
		case k == 0 || k == vk:
			k = vk
		case vk == space.String || k == space.String:
			return 0, fmt.Errorf("parameter %s mixes strings and numbers", p.Name)
		default:
			// Mixed int/float/bool compare as numbers.
			k = space.Float
		}
	}
	return k, nil
}

type restriction struct {
	pred   *Predicate
	params []int
}

func (r *restriction) Source() string               { return r.pred.Source }
func (r *restriction) Params() []int                { return r.params }
func (r *restriction) Holds(b *space.Bindings) bool { return r.pred.Eval(b) }

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
	return &restriction{pred: p, params: p.Slots}, nil
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
	return &restriction{pred: p, params: p.Slots}, nil
}

// NewSpace builds the space of params under restriction expressions.
func NewSpace(params []space.Param, restrictions []string) (*space.Space, error) {
	return space.New(params, restrictions, CompileRestriction)
}
