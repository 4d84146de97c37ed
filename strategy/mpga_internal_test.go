package strategy

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/ktune/ktune/space"
)

// mpgaTestPops returns n sub-populations of size places: place i of sub-population k holds
// the configuration {k, i} with fitness i, so place 0 is each one's best and the last its
// worst.
func mpgaTestPops(n, size int) []mpgaPop {
	pops := make([]mpgaPop, n)
	for k := range pops {
		for i := range size {
			pops[k].cs = append(pops[k].cs, space.Config{k, i})
			pops[k].fit = append(pops[k].fit, float64(i))
		}
	}
	return pops
}

func mpgaHas(pop mpgaPop, c space.Config) bool {
	return slices.ContainsFunc(pop.cs, func(d space.Config) bool { return slices.Equal(c, d) })
}

// Migration moves copies of each sub-population's best individuals to both of its ring
// neighbours, where they replace the worst, and leaves the rest in place.
func TestMPGAMigrationMovesTheBestAroundTheRing(t *testing.T) {
	for _, tc := range []struct{ pops, size, migrants int }{{4, 6, 1}, {4, 6, 2}, {5, 16, 3}, {2, 16, 1}, {3, 2, 1}} {
		pops := mpgaTestPops(tc.pops, tc.size)
		mpgaMigrate(pops, tc.migrants)
		n := tc.pops
		for k, pop := range pops {
			from := []int{(k + n - 1) % n, (k + 1) % n}
			if from[0] == from[1] {
				from = from[:1]
			}
			arrived := min(len(from)*tc.migrants, tc.size-1)
			// the arrivals, from the one before on the ring first, took the worst places
			var want []space.Config
			for _, f := range from {
				for i := range tc.migrants {
					want = append(want, space.Config{f, i})
				}
			}
			want = want[:arrived]
			for _, c := range want {
				if !mpgaHas(pop, c) {
					t.Errorf("%+v: sub-population %d lacks %v from its ring neighbour", tc, k, c)
				}
			}
			for i := range tc.size - arrived {
				if !slices.Equal(pop.cs[i], space.Config{k, i}) || pop.fit[i] != float64(i) {
					t.Errorf("%+v: sub-population %d place %d holds %v (fitness %v); want its own %v kept",
						tc, k, i, pop.cs[i], pop.fit[i], space.Config{k, i})
				}
			}
			for i := tc.size - arrived; i < tc.size; i++ {
				if c := pop.cs[i]; pop.fit[i] != float64(c[1]) {
					t.Errorf("%+v: sub-population %d place %d: %v arrived with fitness %v", tc, k, i, c, pop.fit[i])
				}
			}
		}
	}
	// a migrant is a copy: changing it later leaves its sender alone
	pops := mpgaTestPops(3, 4)
	mpgaMigrate(pops, 1)
	pops[1].cs[3][1] = 99
	if pops[0].cs[0][1] != 0 && pops[2].cs[0][1] != 0 {
		t.Errorf("a migrant shares its sender's configuration")
	}
	// one sub-population, or no migrants: nothing moves
	for _, tc := range []struct{ pops, migrants int }{{1, 3}, {4, 0}} {
		pops := mpgaTestPops(tc.pops, 4)
		mpgaMigrate(pops, tc.migrants)
		if !slices.EqualFunc(pops, mpgaTestPops(tc.pops, 4), func(a, b mpgaPop) bool {
			return slices.EqualFunc(a.cs, b.cs, slices.Equal) && slices.Equal(a.fit, b.fit)
		}) {
			t.Errorf("%+v: the populations changed", tc)
		}
	}
}

// Each place has four distinct neighbours other than itself (seed 002's four
// neighbourhoods) in populations of seven or more, as many as there are in smaller ones,
// and neighbourhood is mutual.
func TestMPGANeighbours(t *testing.T) {
	for n := 2; n <= 40; n++ {
		near := mpgaNeighbours(n)
		for i, nb := range near {
			want := 4
			switch {
			case n < 5:
				want = n - 1
			case n == 6:
				want = 3 // 3 to a row: the places above and below are one
			}
			if len(nb) != want || slices.Contains(nb, i) {
				t.Errorf("popsize %d: place %d has neighbours %v; want %d others", n, i, nb, want)
			}
			for _, j := range nb {
				if !slices.Contains(near[j], i) {
					t.Errorf("popsize %d: %d neighbours %d but not the other way round", n, i, j)
				}
			}
		}
	}
}

// Parents are drawn by rank: the fittest of four most often, in the ratio 4:3:2:1, and a
// failed neighbour only when all failed.
func TestMPGAParentsByRank(t *testing.T) {
	fit := []float64{3, popInf, 1, 2, 0}
	if got := mpgaRankNeighbours(fit, []int{0, 1, 2, 3}, nil); !slices.Equal(got, []int{2, 3, 0}) {
		t.Errorf("ranked %v; want [2 3 0], the failed one left out", got)
	}
	if got := mpgaRankNeighbours([]float64{popInf, popInf}, []int{1, 0}, nil); !slices.Equal(got, []int{1, 0}) {
		t.Errorf("all failed: ranked %v; want [1 0]", got)
	}
	r := rand.New(rand.NewPCG(1, 1))
	var count [4]int
	const draws = 100_000
	for range draws {
		count[mpgaPick(4, r)]++
	}
	for pos, c := range count {
		want := float64(4-pos) / 10 * draws
		if d := float64(c) - want; d > 0.02*draws || d < -0.02*draws {
			t.Errorf("position %d drawn %d times of %d; want about %.0f", pos, c, draws, want)
		}
	}
}

// Mutation flips bits of a value's index and wraps an index past the last value around.
func TestMPGAMutate(t *testing.T) {
	r := rand.New(rand.NewPCG(2, 2))
	sizes := []int{1, 2, 5, 8}
	widths := []int{0, 1, 3, 3}
	c := space.Config{0, 1, 4, 7}
	mpgaMutate(c, sizes, widths, 0, r)
	if !slices.Equal(c, space.Config{0, 1, 4, 7}) {
		t.Errorf("mutation 0 changed the child: %v", c)
	}
	mpgaMutate(c, sizes, widths, 1, r) // every bit flips: 1^1=0, 4^7=3, 7^7=0
	if !slices.Equal(c, space.Config{0, 0, 3, 0}) {
		t.Errorf("mutation 1: %v; want [0 0 3 0]", c)
	}
	c = space.Config{0, 0, 1, 0}
	mpgaMutate(c, sizes, widths, 1, r) // 1^7=6, past the last of 5 values: 6 mod 5
	if c[2] != 1 {
		t.Errorf("mutation 1 of index 1 of 5 values: %d; want 6 wrapped to 1", c[2])
	}
}
