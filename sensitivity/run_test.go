package sensitivity

import (
	"encoding/json"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

func TestParseRunOptionsAcceptsGoJSONAndCommandLineForms(t *testing.T) {
	var fromJSON map[string]any
	dec := json.NewDecoder(strings.NewReader(`{"n": 12, "second_order": false, "params": ["x3", "x1"]}`))
	dec.UseNumber()
	if err := dec.Decode(&fromJSON); err != nil {
		t.Fatal(err)
	}
	want := RunOptions{N: 12, SecondOrder: false, Params: []string{"x3", "x1"}}
	for _, opts := range []map[string]any{
		fromJSON,
		{"n": 12, "second_order": false, "params": []string{"x3", "x1"}},
		{"n": "12", "second_order": "False", "params": "x3, x1"},
		{"n": 12.0, "second_order": "false", "params": "x3,x1"},
	} {
		got, err := ParseRunOptions(opts)
		if err != nil || got.N != want.N || got.SecondOrder != want.SecondOrder || !slices.Equal(got.Params, want.Params) {
			t.Errorf("ParseRunOptions(%v) = %+v, %v; want %+v", opts, got, err, want)
		}
	}
	def, err := ParseRunOptions(nil)
	if err != nil || def.N != 0 || !def.SecondOrder || def.Params != nil {
		t.Errorf("defaults = %+v, %v", def, err)
	}
	for _, bad := range []map[string]any{
		{"n": -1}, {"n": 1.5}, {"second_order": "maybe"}, {"params": ""}, {"params": 3}, {"popsize": 4},
	} {
		if _, err := ParseRunOptions(bad); err == nil {
			t.Errorf("ParseRunOptions(%v) accepted", bad)
		}
	}
}

func TestRunDesignRepeatsTheSessionsFirstDraw(t *testing.T) {
	sp, _ := ishigamiSpace(t, 8)
	const runSeed = 42
	// What the session and the strategy do: seed the session's generator, draw the
	// design's seed first.
	r := rand.New(rand.NewPCG(runSeed, runSeed^0x9e3779b97f4a7c15))
	want, err := NewDesign(sp, 100/DesignRows(3, 2, true), Options{Subset: []int{2, 1}, SecondOrder: true, Seed: r.Uint64()})
	if err != nil {
		t.Fatal(err)
	}
	got, err := RunDesign(sp, runSeed, 100, map[string]any{"params": "x3,x2"})
	if err != nil {
		t.Fatal(err)
	}
	if got.N != 16 || len(got.Points) != len(want.Points) || !slices.Equal(got.Subset, []int{2, 1}) {
		t.Fatalf("RunDesign: %d rows, %d points, subset %v", got.N, len(got.Points), got.Subset)
	}
	for i := range want.Points {
		if !slices.Equal(got.Points[i], want.Points[i]) {
			t.Fatalf("point %d: %v, want %v", i, got.Points[i], want.Points[i])
		}
	}
	if d, err := RunDesign(sp, runSeed, 0, map[string]any{"n": 5, "second_order": false}); err != nil || d.N != 5 || len(d.Points) != 25 {
		t.Errorf("explicit n: %v", err)
	}
	for _, c := range []struct {
		budget int
		opts   map[string]any
		want   string
	}{
		{0, nil, "neither a budget"},
		{5, nil, "below one design row"},
		{100, map[string]any{"params": "x9"}, `no parameter "x9"`},
	} {
		if _, err := RunDesign(sp, runSeed, c.budget, c.opts); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("RunDesign(budget %d, %v): err %v, want %q", c.budget, c.opts, err, c.want)
		}
	}
}
