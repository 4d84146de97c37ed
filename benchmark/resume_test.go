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
