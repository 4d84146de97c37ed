package strategy

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/ktune/ktune/space"
)

// Unit tests of the pieces genetic local search and the greedy searches add: the twin
// child of crossover, restricted tournament selection, and the fixed sweep order.

func TestCrossoverTwinTakesTheOtherParent(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	a := space.Config{0, 1, 2, 3, 4, 5, 6, 7}
	b := space.Config{10, 11, 12, 13, 14, 15, 16, 17}
	for _, kind := range []string{"1point", "2point", "uniform"} {
		for range 50 {
			child, twin := make(space.Config, len(a)), make(space.Config, len(a))
			gaCross(kind, a, b, child, twin, r)
			for j := range a {
				if !(child[j] == a[j] && twin[j] == b[j] || child[j] == b[j] && twin[j] == a[j]) {
					t.Fatalf("%s: parameter %d: child %d, twin %d from parents %d and %d", kind, j, child[j], twin[j], a[j], b[j])
				}
			}
			if kind != "uniform" {
				// b's values form one run (1-point: a suffix) in the child.
				runs := 0
				for j := range child {
					if child[j] == b[j] && (j == 0 || child[j-1] != b[j-1]) {
						runs++
					}
				}
				if runs > 1 || kind == "1point" && runs == 1 && child[len(child)-1] != b[len(b)-1] {
					t.Fatalf("%s: child %v is not a %s crossover", kind, child, kind)
				}
			}
		}
	}
}

func TestRTSReplacesTheMostSimilarMemberOnlyWhenBetter(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	pop := []member{
		{space.Config{0, 0, 0, 0}, 5},
		{space.Config{3, 3, 3, 3}, 1},
		{space.Config{3, 3, 0, 0}, 9},
	}
	kids := []member{
		{space.Config{0, 0, 0, 1}, 4},  // nearest: member 0 (3 equal), better: replaces it
		{space.Config{3, 3, 3, 2}, 2},  // nearest: member 1, worse than its 1: stays out
		{space.Config{3, 3, 1, 0}, 99}, // nearest: member 2, worse: stays out
	}
	glsRTS(pop, kids, r)
	want := []member{
		{space.Config{0, 0, 0, 1}, 4},
		{space.Config{3, 3, 3, 3}, 1},
		{space.Config{3, 3, 0, 0}, 9},
	}
	for i := range want {
		if !slices.Equal(pop[i].c, want[i].c) || pop[i].f != want[i].f {
			t.Errorf("member %d = %v, want %v", i, pop[i], want[i])
		}
	}
	// The child's configuration is copied: reusing the child's storage leaves pop alone.
	kids[0].c[0] = 7
	if pop[0].c[0] != 0 {
		t.Error("the population shares storage with a child")
	}
}

func TestFixedSweepChangesOnlyTheOrderedParameters(t *testing.T) {
	p := newFake(t, []int{4, 5, 6}, 200, 1)
	s := newSearcher(context.Background(), p, space.Hamming)
	s.sweep = []int{2, 0}
	start := space.Config{3, 2, 5}
	c, _, err := s.climb(start.Clone(), 1e9, true, false)
	if err != nil {
		t.Fatal(err)
	}
	// The fake's fitness is the configuration's index, lowest at all zeros: the climb
	// reaches the zero of parameters 2 and 0 and never touches parameter 1.
	if want := (space.Config{0, 2, 0}); !slices.Equal(c, want) {
		t.Errorf("climbed to %v, want %v", c, want)
	}
	var cfg space.Config
	for _, idx := range p.evaluated {
		cfg = p.sp.At(idx, cfg)
		if cfg[1] != start[1] {
			t.Fatalf("evaluated %v: parameter 1 changed", cfg)
		}
	}
	// In list order, first improvement tries parameter 2's values from 0 up: 0 improves.
	if first := p.sp.At(p.evaluated[0], nil); !slices.Equal(first, space.Config{3, 2, 0}) {
		t.Errorf("first evaluation %v, want [3 2 0] (parameter 2 first, lowest value first)", first)
	}
}
