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
