package strategy

import (
	"context"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"

	"github.com/ktune/ktune/format"
	_ "github.com/ktune/ktune/format/all"
	"github.com/ktune/ktune/space"
	"github.com/ktune/ktune/stencil"
)

// Seed 002's example (Section 4.6): the sampled settings (0, 1), (4, 2) and (3, 4) are
// reindexed in ascending order to 0, 2 and 1, the gene's range [0, 2].
func TestSampledSetReindexesInAscendingOrder(t *testing.T) {
	params := []space.Param{
		{Name: "x", Values: []space.Value{space.IntValue(4), space.IntValue(3), space.IntValue(0)}},
		{Name: "y", Values: []space.Value{space.IntValue(4), space.IntValue(2), space.IntValue(1)}},
	}
	sp, err := space.NewCompiled(params, nil)
	if err != nil {
		t.Fatal(err)
	}
	at := func(x, y int64) space.Config {
		c, err := sp.ConfigOf([]space.Value{space.IntValue(x), space.IntValue(y)})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	var idx []int
	for _, c := range []space.Config{at(0, 1), at(4, 2), at(3, 4)} {
		i, _ := sp.Index(c)
		idx = append(idx, i)
	}
	set := newSampledSet(sp, idx)
	for _, tc := range []struct {
		c    space.Config
		want int
	}{{at(0, 1), 0}, {at(4, 2), 2}, {at(3, 4), 1}} {
		if got := set.rank(tc.c); got != tc.want {
			t.Errorf("setting %v reindexed to %d, want %d", sp.Values(tc.c), got, tc.want)
		}
	}
	if set.width != 2 {
		t.Errorf("gene of %d bits for 3 settings, want 2", set.width)
	}
}

// A child of the reindexed sample takes each bit of its gene from either parent, so
// parents 0b0011 and 0b0001 (no mutation) breed 1 and 3 and nothing else, both about as
// often; one parent alone breeds itself; with mutation, every child is still a member
// (positions past the last wrap around), and all members are bred.
func TestSampledSetBreedsMembersBitByBit(t *testing.T) {
	params := []space.Param{{Name: "x", Values: make([]space.Value, 40)}}
	for i := range params[0].Values {
		params[0].Values[i] = space.IntValue(int64(i))
	}
	sp, err := space.NewCompiled(params, nil)
	if err != nil {
		t.Fatal(err)
	}
	var idx []int
	for i := 39; i >= 0; i -= 2 { // 20 members: 1, 3, ..., 39
		idx = append(idx, i)
	}
	set := newSampledSet(sp, idx)
	r := rand.New(rand.NewPCG(3, 4))
	child := make(space.Config, 1)
	count := map[int]int{}
	for range 2000 {
		set.breed(3, 1, 0, r, child)
		count[set.rank(child)]++
	}
	if len(count) != 2 || count[1] < 900 || count[3] < 900 {
		t.Errorf("parents at 3 and 1 bred positions %v; want 1 and 3, about 1,000 each", count)
	}
	set.breed(5, -1, 0, r, child)
	if got := set.rank(child); got != 5 || sp.Values(child)[0].Int() != 11 {
		t.Errorf("one parent at position 5 bred position %d (%v), want itself (x = 11)", got, sp.Values(child))
	}
	clear(count)
	for range 5000 {
		set.breed(r.IntN(20), r.IntN(20), 0.3, r, child)
		i, _ := sp.Index(child)
		if _, ok := set.pos[i]; !ok {
			t.Fatalf("bred %v, not a sampled setting", sp.Values(child))
		}
		count[set.rank(child)]++
	}
	if len(count) != 20 {
		t.Errorf("bred %d of the 20 members, want all", len(count))
	}
}

// recordedProblem replays a recording's times: the least a Problem needs.
type recordedProblem struct {
	sp     *space.Space
	r      *rand.Rand
	time   map[int]float64
	budget int
	seen   map[int]bool
	asked  []space.Config
}

func (p *recordedProblem) Space() *space.Space { return p.sp }
func (p *recordedProblem) Rand() *rand.Rand    { return p.r }
func (p *recordedProblem) Budget() int         { return p.budget }
func (p *recordedProblem) Remaining() int      { return p.budget - len(p.seen) }
func (p *recordedProblem) Evaluate(_ context.Context, c space.Config) (float64, error) {
	if p.Remaining() <= 0 {
		return 0, ErrStop
	}
	i, _ := p.sp.Index(c)
	p.seen[i] = true
	p.asked = append(p.asked, c.Clone())
	return p.time[i], nil
}

// recordedTimes returns the space of the recording at path, its recorded configurations,
// and their times by index in it (+Inf where one failed).
func recordedTimes(t *testing.T, path string) (*space.Space, map[int]float64) {
	t.Helper()
	rec, err := format.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	cart, err := space.NewCompiled(rec.Params, nil)
	if err != nil {
		t.Fatal(err)
	}
	var configs []space.Config
	var times []float64
	for _, e := range rec.Evaluations {
		c, err := cart.ConfigOf(e.Config)
		if err != nil {
			t.Fatal(err)
		}
		configs = append(configs, c)
		times = append(times, e.Objective)
		if e.Failed() {
			times[len(times)-1] = math.Inf(1)
		}
	}
	sp, err := space.FromConfigs(rec.Params, configs)
	if err != nil {
		t.Fatal(err)
	}
	time := map[int]float64{}
	for i, c := range configs {
		idx, _ := sp.Index(c)
		time[idx] = times[i]
	}
	return sp, time
}

// With sample=quota, mpga searches the settings Algorithm 2 drew, and only those, under
// either encoding: on a measured stencil (30% of its 147 settings, the model trained on
// three other stencils) every configuration asked for is a sampled one, the run asks for
// every sampled setting and then ends below its budget; the same seed gives the same run,
// and the two encodings breed differently.
func TestMPGASearchesTheSampleOnly(t *testing.T) {
	dir := filepath.Join("..", "stencil", "testdata", "measured")
	var samples []stencil.Sample
	for _, name := range []string{"random2d1r_s11", "random2d3r_s13", "random2d4r_s14"} {
		rec, err := format.Open(filepath.Join(dir, name+".json.gz"))
		if err != nil {
			t.Fatal(err)
		}
		s, err := stencil.RecordingSamples(rec)
		if err != nil {
			t.Fatal(err)
		}
		samples = append(samples, s...)
	}
	model, err := stencil.Train(samples, stencil.TrainOptions{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	sp, time := recordedTimes(t, filepath.Join(dir, "random2d2r_s12.json.gz"))
	st, err := stencil.FromName("random2d2r_s12")
	if err != nil {
		t.Fatal(err)
	}
	q := quotaParams{ratio: 0.3, tr: 0.01, ar: 0.001, lr: 0.001}
	g, err := mpgaResolve(nil)
	if err != nil {
		t.Fatal(err)
	}
	const budget = 100
	run := func(reindex bool, seed uint64) (asked []space.Config, sample map[int]bool) {
		s := &mpga{g: g, sampler: &stencilSampler{q: q, model: model, stencil: st}, reindex: reindex}
		p := &recordedProblem{sp: sp, r: rand.New(rand.NewPCG(seed, 7)), time: time, budget: budget, seen: map[int]bool{}}
		if err := s.Run(context.Background(), p); err != nil {
			t.Fatal(err)
		}
		// the run's first draws are the sample's
		idx, err := s.sampler.sample(sp, rand.New(rand.NewPCG(seed, 7)), nil)
		if err != nil {
			t.Fatal(err)
		}
		sample = map[int]bool{}
		for _, i := range idx {
			sample[i] = true
		}
		return p.asked, sample
	}
	for _, reindex := range []bool{true, false} {
		for seed := uint64(1); seed <= 5; seed++ {
			asked, sample := run(reindex, seed)
			if n := len(sample); n < 44 || n >= budget {
				t.Fatalf("a sample of %d settings; want 30%% of 147 (44) or a few more, under the budget %d", n, budget)
			}
			got := map[int]bool{}
			for _, c := range asked {
				i, _ := sp.Index(c)
				if !sample[i] {
					t.Fatalf("reindex=%v seed %d: asked for %v, not a sampled setting", reindex, seed, sp.Values(c))
				}
				got[i] = true
			}
			if len(got) != len(sample) {
				t.Errorf("reindex=%v seed %d: asked for %d of the %d sampled settings, want all", reindex, seed, len(got), len(sample))
			}
			again, _ := run(reindex, seed)
			if !slices.EqualFunc(asked, again, slices.Equal) {
				t.Errorf("reindex=%v seed %d: one seed, two runs", reindex, seed)
			}
		}
	}
	a, _ := run(true, 1)
	b, _ := run(false, 1)
	if slices.EqualFunc(a, b, slices.Equal) {
		t.Error("encoding=reindex and encoding=nearest asked for the same configurations in the same order")
	}
}

// A restart keeps each sub-population's best: the first generation after it holds, in
// place 0 of each sub-population, a configuration asked for before (a cached answer, no
// budget), one of them the best found so far; the rest of the budget is spent all the
// same.
func TestMPGARestartKeepsTheBest(t *testing.T) {
	sp, time := recordedTimes(t, filepath.Join("..", "stencil", "testdata", "measured", "random2d2r_s12.json.gz"))
	tm := func(c space.Config) float64 {
		i, _ := sp.Index(c)
		return time[i]
	}
	const budget = 140
	for seed := uint64(1); seed <= 5; seed++ {
		run := func(restart bool) *recordedProblem {
			g, err := mpgaResolve(Options{"restart": restart})
			if err != nil {
				t.Fatal(err)
			}
			p := &recordedProblem{sp: sp, r: rand.New(rand.NewPCG(seed, 7)), time: time, budget: budget, seen: map[int]bool{}}
			if err := (&mpga{g: g}).Run(context.Background(), p); err != nil {
				t.Fatal(err)
			}
			return p
		}
		once, full := run(false), run(true)
		n := len(once.asked)
		if len(once.seen) >= budget || len(full.asked) < n+2*16 || len(full.seen) != budget {
			t.Fatalf("seed %d: without restarts %d evaluations (%d asked), with them %d (%d asked); want a restart within budget %d and the budget used",
				seed, len(once.seen), n, len(full.seen), len(full.asked), budget)
		}
		best := once.asked[0]
		for _, c := range once.asked {
			if tm(c) < tm(best) {
				best = c
			}
		}
		kept := []space.Config{full.asked[n], full.asked[n+16]}
		for k, c := range kept {
			if !slices.ContainsFunc(once.asked, func(d space.Config) bool { return slices.Equal(c, d) }) {
				t.Errorf("seed %d: sub-population %d restarted with %v in place 0, not asked for before", seed, k, sp.Values(c))
			}
		}
		if !slices.ContainsFunc(kept, func(c space.Config) bool { return tm(c) == tm(best) }) {
			t.Errorf("seed %d: the restart kept %v and %v, not the best so far %v", seed, sp.Values(kept[0]), sp.Values(kept[1]), sp.Values(best))
		}
	}
}
