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
	// one run per cell, consistently (a file edited to repeats 1): no benchmark writes it,
	// and its t-tests have no degree of freedom (QA: 'ktune report' of it panicked)
	oneRun := editCells(t, raw, func(c []map[string]any) {
		for _, cell := range c {
			f := fractionsOf(cell)[0]
			cell["fractions"], cell["mean_fraction_of_optimum"], cell["std_fraction_of_optimum"] = []any{f}, f, 0
		}
	})
	for _, repeats := range []int{1, 0} {
		if _, err := DecodeCells(oneRun, repeats); err == nil ||
			!strings.Contains(err.Error(), "cell 1 of 4 (random on p at budget 5): it has 1 fraction: a benchmark runs every cell 2 or more times") {
			t.Errorf("one run per cell, repeats %d: %v", repeats, err)
		}
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

// A file of 'ktune bench' whose cells its description of the run does not list, or whose
// description is itself edited, is refused, naming the cell or the entry (QA: a cell of a
// label, space or budget the header lacks was counted as another benchmark's and run
// again in silence); what a real run describes passes, and a list the file does not have
// (earlier versions wrote no budgets) is not checked.
func TestCheckDescribedRefusesCellsTheFileDoesNotDescribe(t *testing.T) {
	sim := newSim(t, "../testdata/benchmark_hub/kerneltuner_pnpoly/RTX_2080_Ti.json.gz", simulator.Options{})
	strategies, err := ParseStrategies("random,adj=firstmls:neighbourhood=adjacent")
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{Strategies: strategies, Spaces: []Space{{Name: "p", Sim: sim}}, Budgets: []int{5, 10}, Repeats: 2, Seed: 1}
	cells, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	info := Describe(cfg, "recorded", "deterministic")
	if err := CheckDescribed(info, cells); err != nil {
		t.Fatalf("a real run: %v", err)
	}
	old := info
	old.Budgets = nil
	if err := CheckDescribed(old, cells); err != nil {
		t.Errorf("a file without budgets: %v", err)
	}
	for _, tc := range []struct {
		name string
		edit func(info *RunInfo, cells []Cell)
		want string
	}{
		{"label", func(_ *RunInfo, c []Cell) { c[1].Strategy = "firstmls" }, "cell 2 of 4 (firstmls on p at budget 5): its strategy firstmls is not among the file's strategies"},
		{"space", func(_ *RunInfo, c []Cell) { c[2].Space = "q" }, "cell 3 of 4 (random on q at budget 10): its space q is not among the file's spaces"},
		{"budget", func(_ *RunInfo, c []Cell) { c[3].Budget = 7 }, "cell 4 of 4 (adj on p at budget 7): its budget 7 is not among the file's budgets"},
		{"no strategies", func(i *RunInfo, _ []Cell) { i.Strategies = []StrategyInfo{} }, "cell 1 of 4 (random on p at budget 5): its strategy random is not among"},
		{"label twice", func(i *RunInfo, _ []Cell) { i.Strategies = append(i.Strategies, i.Strategies[0]) }, "strategies: entry 3 of 3 (random): another entry has that label"},
		{"no label", func(i *RunInfo, _ []Cell) { i.Strategies[1].Label = "" }, "strategies: entry 2 of 2 has no label"},
		{"no name", func(i *RunInfo, _ []Cell) { i.Strategies[1].Name = "" }, "strategies: entry 2 of 2 (adj) names no strategy"},
		{"options of another budget", func(i *RunInfo, _ []Cell) { i.Budgets = []int{5} }, "strategies: entry 2 of 2 (adj): options at budget 10, which is not among the file's budgets (5)"},
		{"options of no budget", func(i *RunInfo, _ []Cell) { i.Strategies[1].Options["x"] = map[string]any{} }, `strategies: entry 2 of 2 (adj): options at "x", which is no budget`},
		{"space twice", func(i *RunInfo, _ []Cell) { i.Spaces = append(i.Spaces, i.Spaces[0]) }, "spaces: p is listed twice"},
		{"empty space", func(i *RunInfo, _ []Cell) { i.Spaces[0].Configurations = 0 }, "spaces: p has 0 configurations, want 1 or more"},
		{"budget twice", func(i *RunInfo, _ []Cell) { i.Budgets = []int{5, 10, 5} }, "budgets: budget 5 is listed twice"},
		{"budget 0", func(i *RunInfo, _ []Cell) { i.Budgets = []int{5, 10, 0} }, "budgets: budget 3 of 3 is 0: a budget is 1 evaluation or more"},
	} {
		var edited RunInfo
		data, _ := json.Marshal(info)
		if err := json.Unmarshal(data, &edited); err != nil {
			t.Fatal(err)
		}
		c := append([]Cell(nil), cells...)
		tc.edit(&edited, c)
		err := CheckDescribed(edited, c)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
		if strings.HasPrefix(tc.want, "cell ") && !errors.As(err, new(*CellError)) {
			t.Errorf("%s: %T, want a *CellError", tc.name, err)
		}
	}
}

// A hypertune's file is checked alike: its settings are those of its grid, its spaces
// described in order, and every cell of a listed setting, space and budget; a real run's
// result, partial (a checkpoint: no choices) or whole, passes.
func TestCheckTuningRefusesCellsTheFileDoesNotDescribe(t *testing.T) {
	spaces, grid := trainingSetup(t)
	var partial *HypertuneResult
	res, err := Hypertune(context.Background(), HypertuneConfig{Strategy: "firstmls", Grid: grid, Spaces: spaces,
		Budgets: []int{5, 10}, Repeats: 2, Seed: 1, Workers: 1, Finished: func(r *HypertuneResult) {
			if partial == nil {
				partial = r
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	for name, r := range map[string]*HypertuneResult{"the result": res, "the first checkpoint": partial} {
		if err := CheckTuning(r); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	first := "cell 1 of 16 (neighbourhood=Hamming;restart=true on RTX_2080_Ti.json.gz at budget 5): "
	for _, tc := range []struct {
		name string
		edit func(r *HypertuneResult)
		want string
	}{
		{"setting", func(r *HypertuneResult) { r.Cells[0].Strategy = "neighbourhood=Hamming" },
			"cell 1 of 16 (neighbourhood=Hamming on RTX_2080_Ti.json.gz at budget 5): its setting neighbourhood=Hamming is not among the file's settings"},
		{"space", func(r *HypertuneResult) { r.Spaces, r.SpaceInfo = r.Spaces[1:], r.SpaceInfo[1:] }, first + "its space RTX_2080_Ti.json.gz is not among the file's spaces"},
		{"budget", func(r *HypertuneResult) { r.Budgets = []int{10}; r.Choices = r.Choices[1:] }, first + "its budget 5 is not among the file's budgets"},
		{"settings cut", func(r *HypertuneResult) { r.Settings = r.Settings[:3] }, "settings: 3 of them, but its grid neighbourhood=Hamming,adjacent;restart=true,false makes 4"},
		{"grid edited", func(r *HypertuneResult) { r.Grid[1].Values = []string{"false", "true"} },
			"settings: setting 1 of 4 is neighbourhood=Hamming;restart=true, but its grid neighbourhood=Hamming,adjacent;restart=false,true makes neighbourhood=Hamming;restart=false there"},
		{"space info", func(r *HypertuneResult) { r.SpaceInfo[0], r.SpaceInfo[1] = r.SpaceInfo[1], r.SpaceInfo[0] },
			"space_info does not describe spaces: space 1 of 2 is RTX_2080_Ti.json.gz in spaces, A100.json.gz in space_info"},
		{"choice", func(r *HypertuneResult) { r.Choices[1].Budget = 20 }, "choices: a choice at budget 20, which is not among the file's budgets (5, 10)"},
	} {
		var edited HypertuneResult
		data, _ := json.Marshal(res)
		if err := json.Unmarshal(data, &edited); err != nil {
			t.Fatal(err)
		}
		tc.edit(&edited)
		if err := CheckTuning(&edited); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
}
