package expr_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ktune/ktune/expr"
	"github.com/ktune/ktune/space"
)

func ints(name string, lo, hi int) space.Param {
	p := space.Param{Name: name}
	for v := lo; v <= hi; v++ {
		p.Values = append(p.Values, space.IntValue(int64(v)))
	}
	return p
}

// A restriction that no combination of its integer parameters' values can break is proven
// to hold always; one that some combination breaks, or that reads what the proof does not
// follow, is not. Every proven one is checked on every combination.
func TestRestrictionsProvenToHoldAlways(t *testing.T) {
	params := []space.Param{ints("a", 1, 10), ints("b", 1, 10), ints("z", -3, 0),
		{Name: "f", Values: []space.Value{space.FloatValue(0.5), space.FloatValue(1)}},
		{Name: "t", Values: []space.Value{space.BoolValue(false), space.BoolValue(true)}},
		{Name: "s", Values: []space.Value{space.StringValue("x"), space.StringValue("y")}}}
	consts := map[string]float64{"N": 1000, "half": 0.5}
	for _, c := range []struct {
		src    string
		always bool
	}{
		{"a + b > 0", true},
		{"a + b >= 2", true},
		{"a + b > 2", false}, // a = b = 1 breaks it
		{"a * b <= 100", true},
		{"a * b < 100", false},
		{"a - b < 10", true},
		{"a - b < 9", false},
		{"-a < 0", true},
		{"a * z <= 0", true},
		{"a + z >= -2", true},
		{"0 < a <= 10", true},
		{"0 < a < 10", false},
		{"a != 0 and b != 11", true},
		{"a > 5 or b > 0", true},
		{"a > 5 or b > 5", false},
		{"not (a + b < 2)", true},
		{"not a + b < 2", true}, // not binds looser than <: not (a + b < 2)
		{"not a", false},
		{"a", true}, // truthiness: never 0
		{"z", false},
		{"a + t > 0", true},
		{"t >= 0", true},
		{"a < N", true},
		{"a < N + 1 and a * half < 6", false}, // a float constant: not followed
		{"f > 0", false},                      // a float parameter: not followed
		{"s != 'z'", false},                   // strings: not followed
		{"a > 5 or 1 / 0 == 1", false},        // a division: not followed
		{"a // 1 > 0", false},
		{"a ** 2 > 0", false},
		{"min(a, b) > 0", false},
		{"a in [1, 2]", false},
		{"a * 100000000 * 100000000 > 0", false}, // past 2**53: not followed
		{"True", true},
		{"a == a", false}, // true, but intervals do not see it
	} {
		r, err := expr.CompileRestrictionWith(params, consts, c.src)
		if err != nil {
			t.Errorf("%q: %v", c.src, err)
			continue
		}
		ha, ok := r.(interface{ HoldsAlways() bool })
		if !ok {
			t.Fatalf("%q: the restriction has no HoldsAlways", c.src)
		}
		if got := ha.HoldsAlways(); got != c.always {
			t.Errorf("%q: HoldsAlways = %v, want %v", c.src, got, c.always)
		}
		if !ha.HoldsAlways() {
			continue
		}
		// proven: no combination breaks it
		b := &space.Bindings{Num: make([]float64, len(params)), Str: make([]string, len(params))}
		c2 := make([]int, len(params))
		for {
			for p, v := range c2 {
				b.Num[p] = params[p].Values[v].Float()
				if params[p].Values[v].Kind() == space.String {
					b.Str[p] = params[p].Values[v].Str()
				}
			}
			if !r.Holds(b) {
				t.Errorf("%q is proven to hold always but does not at %v", c.src, c2)
				break
			}
			p := 0
			for ; p < len(c2); p++ {
				if c2[p]++; c2[p] < len(params[p].Values) {
					break
				}
				c2[p] = 0
			}
			if p == len(c2) {
				break
			}
		}
	}
}

// The QA's space: twelve parameters of ten positive values tied by a restriction that
// always holds (their sum is positive) are a product of independent parameters, indexed
// at once, where enumerating the 1e12 combinations ran the machine out of memory.
func TestARestrictionThatAlwaysHoldsTiesNoParameters(t *testing.T) {
	var params []space.Param
	var names []string
	for i := range 12 {
		params = append(params, ints(fmt.Sprintf("p%d", i), 1, 10))
		names = append(names, params[i].Name)
	}
	start := time.Now()
	s, err := expr.NewSpace(params, []string{strings.Join(names, "+") + " > 0"})
	if err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > time.Second {
		t.Errorf("built in %v, want at once", took)
	}
	if s.Len() != 1e12 || len(s.Groups()) != 12 || len(s.Restrictions()) != 1 {
		t.Errorf("Len %d, %d groups, %d restrictions: want 1e12 configurations in 12 groups, the restriction kept", s.Len(), len(s.Groups()), len(s.Restrictions()))
	}
	c := s.At(s.Len()-1, nil)
	if s.Satisfies(c) != nil || !s.Contains(c) {
		t.Errorf("the last configuration %v is not valid", c)
	}
}
