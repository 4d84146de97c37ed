package benchmark

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/ktune/ktune/simulator"
)

// The cells of a real run, as 'ktune bench --json' writes them: decoded as they are, with
// the repeats or without (files of versions that did not record them), and from a file of
// a version without us_per_evaluation.
func TestDecodeCellsTakesTheCellsARunWrites(t *testing.T) {
	cells, raw := recordedCells(t)
	for _, repeats := range []int{3, 0} {
		got, err := DecodeCells(raw, repeats)
		if err != nil || len(got) != len(cells) {
			t.Fatalf("repeats %d: %d cells, %v", repeats, len(got), err)
		}
		for i := range got {
			if got[i].MeanFraction != cells[i].MeanFraction || len(got[i].Fractions) != 3 {
				t.Errorf("cell %d: %+v, wrote %+v", i, got[i], cells[i])
			}
		}
	}
	old := editCells(t, raw, func(c []map[string]any) { delete(c[0], "us_per_evaluation") })
	if _, err := DecodeCells(old, 3); err != nil {
		t.Errorf("a cell without us_per_evaluation: %v", err)
	}
}

// A cell no run wrote (an edited or damaged file) is refused, naming the cell by its place
// and by its strategy, space and budget, and what is wrong (QA: fractions of 7.5, -1, 1e308
// and null, a mean of 0.1 over fractions of 0.95, a budget of 0 and a second copy of a
// cell were taken as they were; a wrong count of fractions was run again in silence).
func TestDecodeCellsRefusesCellsNoRunWrites(t *testing.T) {
	_, raw := recordedCells(t)
	for _, tc := range []struct {
		name string
		edit func(c []map[string]any)
		want string
	}{
		{"fraction above 1", func(c []map[string]any) { fractionsOf(c[1])[0] = 7.5 }, "fraction 1 of 3 is 7.5, outside [0, 1]"},
		{"negative fraction", func(c []map[string]any) { fractionsOf(c[1])[2] = -1 }, "fraction 3 of 3 is -1, outside [0, 1]"},
		{"huge fraction", func(c []map[string]any) { fractionsOf(c[1])[0] = 1e308 }, "fraction 1 of 3 is 1e+308"},
		{"null fraction", func(c []map[string]any) { fractionsOf(c[1])[0] = nil }, "fraction 1 of 3 is null"},
		{"string fraction", func(c []map[string]any) { fractionsOf(c[1])[0] = "0.5" }, "fraction 1 of 3 is a JSON string, want a number"},
		{"fractions missing", func(c []map[string]any) { delete(c[1], "fractions") }, "it has no fractions"},
		{"too few fractions", func(c []map[string]any) { c[1]["fractions"] = fractionsOf(c[1])[:1] }, "it has 1 fraction, one per run, but the file has 3 repeats"},
		{"mean of other fractions", func(c []map[string]any) { c[1]["mean_fraction_of_optimum"] = 0.1 }, "mean_fraction_of_optimum 0.1 is not the mean of its fractions"},
		{"std of other fractions", func(c []map[string]any) { c[1]["std_fraction_of_optimum"] = 0.5 }, "std_fraction_of_optimum 0.5 is not the standard deviation"},
		{"null mean", func(c []map[string]any) { c[1]["mean_fraction_of_optimum"] = nil }, "mean_fraction_of_optimum is null"},
		{"budget 0", func(c []map[string]any) { c[1]["budget"] = 0 }, "at budget 0): a budget is 1 evaluation or more"},
		{"negative budget", func(c []map[string]any) { c[1]["budget"] = -50 }, "at budget -50): a budget is 1 evaluation or more"},
		{"fractional budget", func(c []map[string]any) { c[1]["budget"] = 7.5 }, "budget is 7.5, want a whole number"},
		{"evaluations over the budget", func(c []map[string]any) { c[1]["mean_evaluations"] = 6 }, "mean_evaluations 6 is outside [0, 5], its budget"},
		{"negative cost", func(c []map[string]any) { c[1]["us_per_evaluation"] = -3 }, "us_per_evaluation -3 is negative"},
		{"no strategy", func(c []map[string]any) { delete(c[1], "strategy") }, "(no strategy on p at budget 5): it names no strategy"},
		{"a cell twice", func(c []map[string]any) { c[2] = c[1] }, "cell 3 of 4 (firstils on p at budget 5): cell 2 has the same strategy, space and budget"},
	} {
		_, err := DecodeCells(editCells(t, raw, tc.edit), 3)
		var ce *CellError
		if !errors.As(err, &ce) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want a *CellError saying %q", tc.name, err, tc.want)
			continue
		}
		if tc.name != "no strategy" && !strings.Contains(err.Error(), "on p at budget ") {
			t.Errorf("%s: %v does not name the cell", tc.name, err)
		}
	}
	if _, err := DecodeCells(json.RawMessage(`{"strategy": "random"}`), 3); err == nil || err.Error() != "cells is a JSON object, want a list of cells" {
		t.Errorf("cells not a list: %v", err)
	}
	// where the file does not say its repeats, the first cell does
	if _, err := DecodeCells(editCells(t, raw, func(c []map[string]any) { c[3]["fractions"] = fractionsOf(c[3])[:2] }), 0); err == nil ||
		!strings.Contains(err.Error(), "cell 4 of 4 (firstils on p at budget 10): it has 2 fractions, one per run, but cell 1 has 3") {
		t.Errorf("repeats not given: %v", err)
	}
}

// recordedCells runs random and firstils on a recorded space at budgets 5 and 10, 3
// repeats, and returns the cells and their JSON: random and firstils at 5, then at 10.
func recordedCells(t *testing.T) ([]Cell, json.RawMessage) {
	t.Helper()
	sim := newSim(t, "../testdata/benchmark_hub/kerneltuner_pnpoly/RTX_2080_Ti.json.gz", simulator.Options{})
	strategies, err := ParseStrategies("random,firstils")
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{Strategies: strategies, Spaces: []Space{{Name: "p", Sim: sim}}, Budgets: []int{5, 10}, Repeats: 3, Seed: 1}
	cells, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := json.Marshal(cells)
	if err != nil {
		t.Fatal(err)
	}
	return cells, raw
}

// editCells changes the cells of raw as generic JSON, as a person editing the file would.
func editCells(t *testing.T, raw json.RawMessage, edit func([]map[string]any)) json.RawMessage {
	t.Helper()
	var cells []map[string]any
	if err := json.Unmarshal(raw, &cells); err != nil {
		t.Fatal(err)
	}
	edit(cells)
	out, err := json.Marshal(cells)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func fractionsOf(c map[string]any) []any { return c["fractions"].([]any) }
