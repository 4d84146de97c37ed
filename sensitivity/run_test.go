package sensitivity

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

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
	got, err := RunDesign(sp, runSeed, 100, RunOptions{SecondOrder: true, Params: []string{"x3", "x2"}})
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
	if d, err := RunDesign(sp, runSeed, 0, RunOptions{N: 5}); err != nil || d.N != 5 || len(d.Points) != 25 {
		t.Errorf("explicit n: %v", err)
	}
	for _, c := range []struct {
		budget int
		opts   RunOptions
		want   string
	}{
		{0, RunOptions{SecondOrder: true}, "neither a budget"},
		{5, RunOptions{SecondOrder: true}, "below one design row"},
		{100, RunOptions{SecondOrder: true, Params: []string{"x9"}}, `no parameter "x9"`},
	} {
		if _, err := RunDesign(sp, runSeed, c.budget, c.opts); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("RunDesign(budget %d, %v): err %v, want %q", c.budget, c.opts, err, c.want)
		}
	}
}
