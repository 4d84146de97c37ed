package benchmark

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/ktune/ktune/simulator"
)

// A benchmark resumed from an earlier one's JSON runs only the cells it lacks, and gives
// the cells a whole run gives; cells of other options, seeds or repeats are not taken.
func TestResumedBenchmarkEqualsAWholeOne(t *testing.T) {
	sim := newSim(t, "../testdata/benchmark_hub/kerneltuner_pnpoly/RTX_2080_Ti.json.gz", simulator.Options{})
	strategies, err := ParseStrategies("random,firstils,adj=firstmls:neighbourhood=adjacent")
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{Strategies: strategies, Spaces: []Space{{Name: "p", Sim: sim}}, Budgets: []int{20, 40}, Repeats: 6, Seed: 4}
	whole, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	// An earlier benchmark of the first budget, through JSON as 'ktune bench --json' keeps it.
	early := cfg
	early.Budgets = []int{20}
	cells, err := Run(context.Background(), early)
	if err != nil {
		t.Fatal(err)
	}
	data, err := json.Marshal(struct {
		RunInfo
		Cells []Cell `json:"cells"`
	}{Describe(early, "recorded", "deterministic"), cells})
	if err != nil {
		t.Fatal(err)
	}
	var prev struct {
		RunInfo
		Cells []Cell `json:"cells"`
	}
	if err := json.Unmarshal(data, &prev); err != nil {
		t.Fatal(err)
	}
	done, skipped, err := Reusable(cfg, "recorded", "deterministic", prev.RunInfo, prev.Cells)
	if err != nil || len(done) != 3 || skipped != 0 {
		t.Fatalf("%d cells reusable, %d skipped, %v", len(done), skipped, err)
	}
	resumed := cfg
	resumed.Done = done
	got, err := Run(context.Background(), resumed)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(whole) {
		t.Fatalf("%d cells resumed, %d whole", len(got), len(whole))
	}
	for i := range got {
		if got[i].Strategy != whole[i].Strategy || got[i].Budget != whole[i].Budget || !reflect.DeepEqual(got[i].Fractions, whole[i].Fractions) {
			t.Errorf("cell %d: resumed %s at %d %v, whole %s at %d %v", i, got[i].Strategy, got[i].Budget, got[i].Fractions,
				whole[i].Strategy, whole[i].Budget, whole[i].Fractions)
		}
	}

	// Other options under the same label, another seed or other repeats: nothing is taken.
	changed, err := ParseStrategies("random,firstils:restart=false,adj=firstmls:neighbourhood=Hamming")
	if err != nil {
		t.Fatal(err)
	}
	other := cfg
	other.Strategies = changed
	if done, skipped, err := Reusable(other, "recorded", "deterministic", prev.RunInfo, prev.Cells); err != nil || len(done) != 1 || skipped != 2 {
		t.Errorf("changed options: %d reusable (want random's 1), %d skipped, %v", len(done), skipped, err)
	}
	// Another recording under the same name: nothing is taken.
	elsewhere := cfg
	elsewhere.Spaces = []Space{{Name: "p", Sim: newSim(t, "../testdata/benchmark_hub/convolution_milo/A100.json.gz", simulator.Options{})}}
	if done, skipped, err := Reusable(elsewhere, "recorded", "deterministic", prev.RunInfo, prev.Cells); err != nil || len(done) != 0 || skipped != 3 {
		t.Errorf("another recording of the same name: %d reusable, %d skipped, %v", len(done), skipped, err)
	}
	for _, c := range []struct {
		mutate func(*Config) (string, string)
		want   string
	}{
		{func(c *Config) (string, string) { c.Seed = 5; return "recorded", "deterministic" }, "seed 4"},
		{func(c *Config) (string, string) { c.Repeats = 7; return "recorded", "deterministic" }, "6 repeats"},
		{func(c *Config) (string, string) { return "cartesian", "deterministic" }, "recorded mode"},
		{func(c *Config) (string, string) { return "recorded", "stochastic" }, "deterministic fitness"},
	} {
		mod := cfg
		mode, fitness := c.mutate(&mod)
		if _, _, err := Reusable(mod, mode, fitness, prev.RunInfo, prev.Cells); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("want an error naming %q, got %v", c.want, err)
		}
	}
}

// A space of an earlier file whose name matches none of this benchmark's is still the
// same recording when exactly one space here has its file name, size and optimum (the
// folder was renamed, or an earlier version left it out): its cells come back under the
// name given here. With two candidates here, or two alike there, nothing is guessed.
func TestResumeMatchesARenamedSpaceOnlyWhenItIsUnambiguous(t *testing.T) {
	pnpoly := newSim(t, "../testdata/benchmark_hub/kerneltuner_pnpoly/RTX_2080_Ti.json.gz", simulator.Options{})
	conv := newSim(t, "../testdata/benchmark_hub/convolution_milo/A100.json.gz", simulator.Options{})
	strategies, err := ParseStrategies("random")
	if err != nil {
		t.Fatal(err)
	}
	cfg := func(spaces ...Space) Config {
		return Config{Strategies: strategies, Spaces: spaces, Budgets: []int{10}, Repeats: 2, Seed: 1}
	}
	prevCfg := cfg(Space{Name: "RTX_2080_Ti", Sim: pnpoly}, Space{Name: "A100", Sim: conv})
	cells, err := Run(context.Background(), prevCfg)
	if err != nil {
		t.Fatal(err)
	}
	prev := Describe(prevCfg, "recorded", "deterministic")
	for _, tc := range []struct {
		what   string
		spaces []Space
		want   []string // the spaces of the cells taken, in order
	}{
		{"named with their folders", []Space{{Name: "kerneltuner_pnpoly/RTX_2080_Ti", Sim: pnpoly}, {Name: "convolution_milo/A100", Sim: conv}},
			[]string{"kerneltuner_pnpoly/RTX_2080_Ti", "convolution_milo/A100"}},
		{"a file name of another recording", []Space{{Name: "x/RTX_2080_Ti", Sim: conv}, {Name: "y/A100", Sim: conv}},
			[]string{"y/A100"}},
		{"two candidates", []Space{{Name: "a/RTX_2080_Ti", Sim: pnpoly}, {Name: "b/RTX_2080_Ti", Sim: pnpoly}},
			nil},
	} {
		done, skipped, err := Reusable(cfg(tc.spaces...), "recorded", "deterministic", prev, cells)
		var got []string
		for _, c := range done {
			got = append(got, c.Space)
		}
		if err != nil || !reflect.DeepEqual(got, tc.want) || skipped != len(cells)-len(tc.want) {
			t.Errorf("%s: took %v, %d skipped, %v; want %v", tc.what, got, skipped, err, tc.want)
		}
	}
	// two alike in the earlier file: neither is guessed
	twins := cfg(Space{Name: "a/RTX_2080_Ti", Sim: pnpoly}, Space{Name: "b/RTX_2080_Ti", Sim: pnpoly})
	twinCells, err := Run(context.Background(), twins)
	if err != nil {
		t.Fatal(err)
	}
	done, _, err := Reusable(cfg(Space{Name: "c/RTX_2080_Ti", Sim: pnpoly}), "recorded", "deterministic",
		Describe(twins, "recorded", "deterministic"), twinCells)
	if err != nil || len(done) != 0 {
		t.Errorf("two alike in the earlier file: took %d cells, %v", len(done), err)
	}
}

// Keep returns the earlier file's cells a run neither takes nor runs, with the run's
// description widened to them, so that a later run of the earlier benchmark takes every
// one of them again from the checkpoint; cells that cannot stand beside the run's are
// said, not kept.
func TestKeepHoldsTheEarlierCellsARunDoesNotRun(t *testing.T) {
	pnpoly := newSim(t, "../testdata/benchmark_hub/kerneltuner_pnpoly/RTX_2080_Ti.json.gz", simulator.Options{})
	conv := newSim(t, "../testdata/benchmark_hub/convolution_milo/A100.json.gz", simulator.Options{})
	large, err := ParseStrategies("random,adj=firstmls:neighbourhood=adjacent")
	if err != nil {
		t.Fatal(err)
	}
	spaces := []Space{{Name: "p/pnpoly", Sim: pnpoly}, {Name: "c/A100", Sim: conv}}
	largeCfg := Config{Strategies: large, Spaces: spaces, Budgets: []int{20, 40}, Repeats: 3, Seed: 1}
	cells, err := Run(context.Background(), largeCfg)
	if err != nil {
		t.Fatal(err)
	}
	prev := Describe(largeCfg, "recorded", "deterministic")

	small, _ := ParseStrategies("random")
	smallCfg := Config{Strategies: small, Spaces: spaces[:1], Budgets: []int{20}, Repeats: 3, Seed: 1}
	kept := Keep(smallCfg, Describe(smallCfg, "recorded", "deterministic"), prev, cells)
	if len(kept.Cells) != 7 || len(kept.Lost) != 0 || kept.Replaced != 0 {
		t.Fatalf("kept %d cells (want 7), lost %v, replaced %d", len(kept.Cells), kept.Lost, kept.Replaced)
	}
	// the small run's cell and the kept ones, as its checkpoint holds them, are the large
	// benchmark's cells again
	smallCells, err := Run(context.Background(), smallCfg)
	if err != nil {
		t.Fatal(err)
	}
	done, skipped, err := Reusable(largeCfg, "recorded", "deterministic", kept.Info, append(smallCells, kept.Cells...))
	if err != nil || len(done) != 8 || skipped != 0 {
		t.Fatalf("the large benchmark takes %d cells of the checkpoint (want 8), %d skipped, %v", len(done), skipped, err)
	}

	// adj runs random here; another recording is named c/A100; adj has other options at 20
	for _, tc := range []struct {
		strategies string
		spaces     []Space
		lost       int
		why        string
	}{
		{"random,adj=random", spaces[:1], 4, "adj runs random here, firstmls there"},
		{"random", []Space{spaces[0], {Name: "c/A100", Sim: pnpoly}}, 4, "c/A100 here is another recording"},
		{"random,adj=firstmls:neighbourhood=Hamming", spaces[:1], 1, "adj has other options at budget 20 here"},
	} {
		sts, err := ParseStrategies(tc.strategies)
		if err != nil {
			t.Fatal(err)
		}
		cfg := Config{Strategies: sts, Spaces: tc.spaces, Budgets: []int{20}, Repeats: 3, Seed: 1}
		kept := Keep(cfg, Describe(cfg, "recorded", "deterministic"), prev, cells)
		if len(kept.Lost) != tc.lost || !strings.Contains(strings.Join(kept.Lost, "\n"), tc.why) {
			t.Errorf("%s: lost %d (want %d): %q", tc.strategies, len(kept.Lost), tc.lost, kept.Lost)
		}
	}
}

// A file written when bench kept option values as text ("adjacent", "10", "true") gives
// its cells to a run that reads them as values (strategy.ParseValue: 10, true).
func TestResumeTakesOptionsWrittenAsText(t *testing.T) {
	sim := newSim(t, "../testdata/benchmark_hub/kerneltuner_pnpoly/RTX_2080_Ti.json.gz", simulator.Options{})
	sts, err := ParseStrategies("g=genetic:popsize=10;mutation=0.05,m=firstmls:restart=true")
	if err != nil {
		t.Fatal(err)
	}
	if sts[0].Options["popsize"] != 10 || sts[1].Options["restart"] != true {
		t.Fatalf("options read as %v, %v", sts[0].Options, sts[1].Options)
	}
	cfg := Config{Strategies: sts, Spaces: []Space{{Name: "p", Sim: sim}}, Budgets: []int{20}, Repeats: 2, Seed: 1}
	old := Describe(cfg, "recorded", "deterministic")
	old.Strategies[0].Options = map[string]map[string]any{"20": {"popsize": "10", "mutation": "0.05"}}
	old.Strategies[1].Options = map[string]map[string]any{"20": {"restart": "true"}}
	cells := []Cell{{Strategy: "g", Space: "p", Budget: 20, Fractions: []float64{1, 1}}, {Strategy: "m", Space: "p", Budget: 20, Fractions: []float64{1, 1}}}
	if done, skipped, err := Reusable(cfg, "recorded", "deterministic", old, cells); err != nil || len(done) != 2 || skipped != 0 {
		t.Errorf("took %d (want 2), %d skipped, %v", len(done), skipped, err)
	}
	old.Strategies[0].Options["20"]["popsize"] = "12"
	if done, _, _ := Reusable(cfg, "recorded", "deterministic", old, cells); len(done) != 1 {
		t.Errorf("another popsize: took %d cells, want 1", len(done))
	}
}

// A benchmark resumed from one whose strategy entries spelled the same options otherwise
// takes their cells: under a label of its own (adj=firstils:neighbourhood=hamming is
// adj=firstils:neighbourhood=Hamming) and as an entry labelled by its text
// (firstmls:neighbourhood=hamming;restart=1 is firstmls:restart=true;neighbourhood=Hamming),
// whose cells come back under this benchmark's label; they are the cells a whole run
// gives. Its checkpoint keeps the earlier cells it does not run under its own labels, not
// beside them. Other values are other cells.
func TestResumeTakesTheCellsOfOptionsSpelledOtherwise(t *testing.T) {
	sim := newSim(t, "../testdata/benchmark_hub/kerneltuner_pnpoly/RTX_2080_Ti.json.gz", simulator.Options{})
	spaces := []Space{{Name: "p", Sim: sim}}
	before, err := ParseStrategies("random,firstmls:neighbourhood=hamming;restart=1,adj=firstils:neighbourhood=hamming;exit_after_no_improve=1e1")
	if err != nil {
		t.Fatal(err)
	}
	prevCfg := Config{Strategies: before, Spaces: spaces, Budgets: []int{20, 40}, Repeats: 3, Seed: 2}
	cells, err := Run(context.Background(), prevCfg)
	if err != nil {
		t.Fatal(err)
	}
	prev := Describe(prevCfg, "recorded", "deterministic")

	now, err := ParseStrategies("random,firstmls:restart=true;neighbourhood=Hamming,adj=firstils:neighbourhood=HAMMING;exit_after_no_improve=10")
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{Strategies: now, Spaces: spaces, Budgets: []int{20, 40}, Repeats: 3, Seed: 2}
	done, skipped, err := Reusable(cfg, "recorded", "deterministic", prev, cells)
	if err != nil || len(done) != 6 || skipped != 0 {
		t.Fatalf("took %d cells (want 6), %d skipped, %v", len(done), skipped, err)
	}
	whole, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	resumed := cfg
	resumed.Done = done
	resumed.Progress = func(p Progress) {
		if p.Evaluations > 0 {
			t.Errorf("a taken cell ran again: %+v", p)
		}
	}
	got, err := Run(context.Background(), resumed)
	if err != nil || len(got) != len(whole) {
		t.Fatalf("%d cells resumed, %d whole, %v", len(got), len(whole), err)
	}
	for i := range got {
		if got[i].Strategy != whole[i].Strategy || got[i].Budget != whole[i].Budget || !reflect.DeepEqual(got[i].Fractions, whole[i].Fractions) {
			t.Errorf("cell %d: resumed %s at %d %v, whole %s at %d %v", i, got[i].Strategy, got[i].Budget, got[i].Fractions,
				whole[i].Strategy, whole[i].Budget, whole[i].Fractions)
		}
	}

	// a smaller run spelled otherwise keeps the earlier cells it does not run under its
	// own label, and the earlier benchmark takes them all again from its checkpoint
	small, err := ParseStrategies("firstmls:neighbourhood=HAMMING;restart=t")
	if err != nil {
		t.Fatal(err)
	}
	smallCfg := Config{Strategies: small, Spaces: spaces, Budgets: []int{20}, Repeats: 3, Seed: 2}
	info := Describe(smallCfg, "recorded", "deterministic")
	kept := Keep(smallCfg, info, prev, cells)
	if len(kept.Cells) != 5 || len(kept.Lost) != 0 || kept.Replaced != 0 || len(kept.Info.Strategies) != 3 {
		t.Fatalf("kept %d cells (want 5), lost %v, replaced %d, %d strategies (want 3: %+v)", len(kept.Cells), kept.Lost, kept.Replaced,
			len(kept.Info.Strategies), kept.Info.Strategies)
	}
	for _, c := range kept.Cells {
		if strings.HasPrefix(c.Strategy, "firstmls") && c.Strategy != "firstmls:neighbourhood=HAMMING;restart=t" {
			t.Errorf("kept a cell of %s beside this run's firstmls:neighbourhood=HAMMING;restart=t", c.Strategy)
		}
	}
	smallCells, err := Run(context.Background(), smallCfg)
	if err != nil {
		t.Fatal(err)
	}
	if done, skipped, err := Reusable(prevCfg, "recorded", "deterministic", kept.Info, append(smallCells, kept.Cells...)); err != nil || len(done) != 6 || skipped != 0 {
		t.Errorf("the earlier benchmark takes %d cells of the checkpoint (want 6), %d skipped, %v", len(done), skipped, err)
	}

	// other values are other cells
	other, err := ParseStrategies("random,firstmls:neighbourhood=adjacent;restart=1,adj=firstils:neighbourhood=hamming;exit_after_no_improve=11")
	if err != nil {
		t.Fatal(err)
	}
	otherCfg := Config{Strategies: other, Spaces: spaces, Budgets: []int{20, 40}, Repeats: 3, Seed: 2}
	if done, skipped, err := Reusable(otherCfg, "recorded", "deterministic", prev, cells); err != nil || len(done) != 2 || skipped != 4 {
		t.Errorf("other values: took %d cells (want random's 2), %d skipped, %v", len(done), skipped, err)
	}
}

// One entry listed twice in two spellings would run its cells twice under two labels: it
// is refused, as one listed twice in one spelling is.
func TestParseStrategiesRefusesAnEntrySpelledTwice(t *testing.T) {
	_, err := ParseStrategies("firstmls:neighbourhood=hamming;restart=1,random,firstmls:restart=true;neighbourhood=Hamming")
	if err == nil || !strings.Contains(err.Error(), `strategy "firstmls:restart=true;neighbourhood=Hamming" is listed twice, also as "firstmls:neighbourhood=hamming;restart=1"`) {
		t.Errorf("error %v", err)
	}
	// labelled, the same options may run twice; other values are other entries
	if _, err := ParseStrategies("a=firstmls:neighbourhood=hamming,b=firstmls:neighbourhood=Hamming,firstmls:neighbourhood=adjacent,firstmls:neighbourhood=Hamming"); err != nil {
		t.Error(err)
	}
}
