package benchmark

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/ktune/ktune/simulator"
)

// shardConfig is a small benchmark on two recorded spaces: 3 strategies (one with a
// surrogate model) x 2 spaces x 3 budgets = 18 cells.
func shardConfig(t *testing.T) Config {
	t.Helper()
	pnpoly := newSim(t, "../testdata/benchmark_hub/kerneltuner_pnpoly/RTX_2080_Ti.json.gz", simulator.Options{})
	conv := newSim(t, "../testdata/benchmark_hub/convolution_milo/A100.json.gz", simulator.Options{Mode: simulator.Cartesian})
	return Config{
		Strategies: []Strategy{{Name: "random"}, {Name: "firstils"}, {Name: "bayes"}},
		Spaces:     []Space{{Name: "kerneltuner_pnpoly/RTX_2080_Ti", Sim: pnpoly}, {Name: "convolution_milo/A100", Sim: conv}},
		Budgets:    []int{10, 20, 40},
		Repeats:    3,
		Seed:       7,
		Workers:    2,
	}
}

func TestParseShard(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Shard
		err  string
	}{
		{"1/1", Shard{1, 1}, ""},
		{"3/4", Shard{3, 4}, ""},
		{" 2 / 5 ", Shard{2, 5}, ""},
		{"0/4", Shard{}, "the shard is 1 to 4"},
		{"5/4", Shard{}, "the shard is 1 to 4"},
		{"1/0", Shard{}, "the number of shards is 1 or more"},
		{"2", Shard{}, "want K/N"},
		{"a/b", Shard{}, "want K/N"},
	} {
		got, err := ParseShard(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("ParseShard(%q) = %v, %v; want an error saying %q", tc.in, got, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("ParseShard(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
}

// The shards of every count partition the cells: each cell in exactly one shard, none
// left out, and shards beyond the number of cells empty; the assignment is the same each
// time it is computed.
func TestShardsPartitionTheCells(t *testing.T) {
	cfg := shardConfig(t)
	all := cfg.Cells()
	if len(all) != 18 {
		t.Fatalf("%d cells, want 18", len(all))
	}
	for _, n := range []int{1, 2, 3, 5, 7, 18, 25} {
		seen := map[CellKey]int{}
		empty := 0
		for k := 1; k <= n; k++ {
			cells := cfg.ShardCells(Shard{k, n})
			if len(cells) == 0 {
				empty++
			}
			for _, c := range cells {
				if prev, dup := seen[c]; dup {
					t.Errorf("N=%d: %s is in shards %d and %d", n, c, prev, k)
				}
				seen[c] = k
			}
			if again := cfg.ShardCells(Shard{k, n}); !slices.Equal(cells, again) {
				t.Errorf("N=%d: shard %d is %v, then %v", n, k, cells, again)
			}
		}
		if len(seen) != len(all) {
			t.Errorf("N=%d: the shards hold %d of the %d cells", n, len(seen), len(all))
		}
		if n > len(all) && empty != n-len(all) {
			t.Errorf("N=%d: %d empty shards, want %d", n, empty, n-len(all))
		}
		if n <= len(all) && empty != 0 {
			t.Errorf("N=%d: %d empty shards with fewer shards than cells", n, empty)
		}
	}
}

// The shards' estimated costs are balanced: the costliest shard is within the costliest
// cell of the mean, as greedy assignment of the costliest first promises.
func TestShardsAreBalancedByEstimatedCost(t *testing.T) {
	cfg := shardConfig(t)
	cost := map[CellKey]float64{}
	var total, largest float64
	for _, sp := range cfg.Spaces {
		for _, b := range cfg.Budgets {
			for _, st := range cfg.Strategies {
				c := CellCost(st, sp, b, cfg.Repeats)
				cost[CellKey{st.DisplayName(), sp.Name, b}] = c
				total += c
				largest = max(largest, c)
			}
		}
	}
	for _, n := range []int{2, 3, 4} {
		load := make([]float64, n+1)
		for k, s := range Assign(cfg, n) {
			load[s] += cost[k]
		}
		if worst := slices.Max(load); worst > total/float64(n)+largest {
			t.Errorf("N=%d: loads %v, the largest above the mean %g by more than the costliest cell %g", n, load[1:], total/float64(n), largest)
		}
	}
}

// withoutTimes is cells with their real time per evaluation, a measurement, cleared.
func withoutTimes(cells []Cell) []Cell {
	out := slices.Clone(cells)
	for i := range out {
		out[i].MicrosPerEvaluation = 0
	}
	return out
}

// The cells of shards 1 to 3, merged, are the unsharded run's, bit for bit but for their
// times, in its order once run with --resume-like Done.
func TestShardsTogetherAreTheWholeRun(t *testing.T) {
	cfg := shardConfig(t)
	whole, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	var parts []Part
	for k := 1; k <= 3; k++ {
		c := cfg
		c.Shard = Shard{k, 3}
		cells, err := Run(context.Background(), c)
		if err != nil {
			t.Fatal(err)
		}
		if want := c.ShardCells(c.Shard); len(cells) != len(want) {
			t.Errorf("shard %d/3: %d cells, want %d", k, len(cells), len(want))
		}
		parts = append(parts, Part{Path: "p" + string(rune('0'+k)), Shard: c.Shard, Cells: cells})
	}
	merged, err := Merge(parts)
	if err != nil {
		t.Fatal(err)
	}
	if missing := cfg.Missing(merged); len(missing) != 0 {
		t.Fatalf("missing %v", missing)
	}
	cfg.Done = merged
	again, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.EqualFunc(withoutTimes(again), withoutTimes(whole), func(a, b Cell) bool {
		return a.Key() == b.Key() && sameResults(a, b)
	}) {
		t.Errorf("merged shards:\n%v\nunsharded:\n%v", withoutTimes(again), withoutTimes(whole))
	}
}

// Parts that hold one cell with the same results merge (a shard's checkpoint beside its
// output); with other results they are refused, naming the cell and both parts.
func TestMergeRefusesACellTwiceWithOtherResults(t *testing.T) {
	a := Cell{Strategy: "random", Space: "s", Budget: 10, MeanFraction: 0.5, Fractions: []float64{0.4, 0.6}, MicrosPerEvaluation: 1}
	same := a
	same.MicrosPerEvaluation = 2 // a measurement
	cells, err := Merge([]Part{{Path: "a.json", Cells: []Cell{a}}, {Path: "b.json", Cells: []Cell{same}}})
	if err != nil || len(cells) != 1 {
		t.Fatalf("%v, %v", cells, err)
	}
	other := a
	other.Fractions = []float64{0.6, 0.4}
	_, err = Merge([]Part{{Path: "a.json", Cells: []Cell{a}}, {Path: "b.json", Cells: []Cell{other}}})
	var overlap *OverlapError
	if !errors.As(err, &overlap) || !strings.Contains(err.Error(), "a.json and b.json both hold random on s at budget 10") {
		t.Errorf("%v", err)
	}
}

// A part that describes another benchmark (other spaces, budgets, strategies or options)
// is told apart from one of the same benchmark, its spaces and strategies in another order.
func TestSameBenchmarkSaysWhatDiffers(t *testing.T) {
	cfg := shardConfig(t)
	info := Describe(cfg, "cartesian", "deterministic")
	reordered := info
	reordered.Spaces = []SpaceInfo{info.Spaces[1], info.Spaces[0]}
	reordered.Strategies = []StrategyInfo{info.Strategies[2], info.Strategies[0], info.Strategies[1]}
	if err := SameBenchmark(cfg, reordered); err != nil {
		t.Errorf("the same benchmark in another order: %v", err)
	}
	fewer := info
	fewer.Spaces = info.Spaces[:1]
	budgets := info
	budgets.Budgets = []int{10, 20}
	strategies := info
	strategies.Strategies = info.Strategies[:2]
	for name, tc := range map[string]struct {
		info RunInfo
		want string
	}{
		"spaces":     {fewer, "another list of spaces: it lacks spaces of this benchmark (convolution_milo/A100)"},
		"budgets":    {budgets, "other budgets: 10, 20 there, 10, 20, 40 here"},
		"strategies": {strategies, "another list of strategies: it lacks bayes"},
	} {
		if err := SameBenchmark(cfg, tc.info); err == nil || err.Error() != tc.want {
			t.Errorf("%s: %v, want %q", name, err, tc.want)
		}
	}
}
