package expr_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/ktune/ktune/expr"
	"github.com/ktune/ktune/space"
)

// A restriction may read named constants (a kernel spec's), and with them bound to their
// values it reads on its own, as it is stored with a run.
func TestRestrictionsReadConstants(t *testing.T) {
	params := []space.Param{
		{Name: "bx", Values: []space.Value{space.IntValue(32), space.IntValue(64), space.IntValue(128)}},
		{Name: "tile", Values: []space.Value{space.IntValue(1), space.IntValue(3)}},
	}
	consts := map[string]float64{"N": 192, "half": 0.5, "neg": -2}
	const src = "N % (bx * tile) == 0 and bx * half >= 16 and tile > neg and 1 in [N for N in [1]]"
	r, err := expr.CompileRestrictionWith(params, consts, src)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(r.Params(), []int{0, 1}) {
		t.Errorf("params %v, want [0 1]: constants are not parameters", r.Params())
	}
	bound, err := expr.BindConstants(src, consts)
	if err != nil {
		t.Fatal(err)
	}
	if want := "192 % (bx * tile) == 0 and bx * 0.5 >= 16 and tile > (-2) and 1 in [N for N in [1]]"; bound != want {
		t.Errorf("bound %q,\nwant  %q", bound, want)
	}
	withConsts, err := space.New(params, []string{src}, func(p []space.Param, s string) (space.Restriction, error) {
		return expr.CompileRestrictionWith(p, consts, s)
	})
	if err != nil {
		t.Fatal(err)
	}
	alone, err := expr.NewSpace(params, []string{bound})
	if err != nil {
		t.Fatal(err)
	}
	// 192 is a multiple of 32, 64, 96 (32·3) and 192 (64·3), not of 128 or 384
	if withConsts.Len() != 4 || alone.Len() != 4 {
		t.Errorf("%d and %d configurations, want 4", withConsts.Len(), alone.Len())
	}
	if _, err := expr.CompileRestriction(params, src); err == nil || !strings.Contains(err.Error(), `unknown name "N"`) {
		t.Errorf("without the constants: %v", err)
	}
}

// A value list may read named constants too (Kernel Tuner's tune_params["n"] = [NB]): a
// whole constant is an int, as in a restriction, and a comprehension's variable shadows one.
func TestValueListsReadConstants(t *testing.T) {
	consts := map[string]float64{"NB": 64, "L": 3, "half": 0.5}
	tests := []struct{ src, want string }{
		{"[NB, 2*NB]", "64 128"},
		{"[2**i for i in range(L)]", "1 2 4"},
		{"[half, NB // 3, NB / 4]", "0.5 21 16.0"},
		{"[NB for NB in range(2)]", "0 1"},
		{"NB", "64"},
	}
	for _, tt := range tests {
		vals, err := expr.EvalValuesWith(tt.src, consts)
		if err != nil {
			t.Errorf("%s: %v", tt.src, err)
			continue
		}
		got := make([]string, len(vals))
		for i, v := range vals {
			got[i] = v.String()
		}
		if strings.Join(got, " ") != tt.want {
			t.Errorf("%s = %v, want %s", tt.src, got, tt.want)
		}
	}
	if vals, _ := expr.EvalValuesWith("[NB]", consts); vals[0].Kind() != space.Int {
		t.Errorf("[NB] is a %v, want an int", vals[0].Kind())
	}
	if _, err := expr.EvalValues("[NB]"); err == nil || !strings.Contains(err.Error(), `unknown name "NB"`) {
		t.Errorf("without the constants: %v", err)
	}
}
