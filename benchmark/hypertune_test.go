package benchmark

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/ktune/ktune/format/kerneltuner"
	"github.com/ktune/ktune/simulator"
	"github.com/ktune/ktune/strategy"
)

// Constructed cells with known outcomes of seed 000's selection. means[i][s] and stds[i][s]
// are setting i on space s; "needed" is the smallest k accepting each setting everywhere.
func TestSelectAdjustsKUntilOneSettingRemains(t *testing.T) {
	cases := []struct {
		name         string
		means, stds  [][]float64
		needed       []float64
		want         int
		kLo, kHi     float64 // the k reported lies in [kLo, kHi)
		tied         bool
		acceptableAt map[float64][]int
	}{
		{
			// A is best on space 1 (sd .05), B on space 2 (sd .02). B needs .02/.05 = 0.4,
			// C max(.1/.05, .01/.02) = 2, A .05/.02 = 2.5: k = 1 already leaves B alone.
			name:         "k=1 leaves one",
			means:        [][]float64{{0.90, 0.90}, {0.88, 0.95}, {0.80, 0.94}},
			stds:         [][]float64{{0.05, 0.03}, {0.04, 0.02}, {0.10, 0.05}},
			needed:       []float64{2.5, 0.4, 2},
			want:         1,
			kLo:          0.4,
			kHi:          2,
			acceptableAt: map[float64][]int{0: nil, 0.5: {1}, 2.1: {1, 2}, 3: {0, 1, 2}},
		},
		{
			// Everything is within k = 1: k falls to 0.5 (three left), then 0.25 (X alone).
			name:   "k decreases",
			means:  [][]float64{{1.00, 0.99}, {0.97, 1.00}, {0.965, 0.995}},
			stds:   [][]float64{{0.10, 0.10}, {0.10, 0.10}, {0.10, 0.10}},
			needed: []float64{0.1, 0.3, 0.35},
			want:   0,
			kLo:    0.1,
			kHi:    0.3,
		},
		{
			// W and V are each best on one space and poor on the other (needing k = 5); X is
			// second on both (needing 3). k doubles from 1 to 4, where X is alone.
			name:   "k increases",
			means:  [][]float64{{1.0, 0.5}, {0.5, 1.0}, {0.7, 0.7}},
			stds:   [][]float64{{0.1, 0.1}, {0.1, 0.1}, {0.1, 0.1}},
			needed: []float64{5, 5, 3},
			want:   2,
			kLo:    3,
			kHi:    5,
		},
		{
			// P and Q need exactly the same k (2, from the same gap on space 2); no k
			// separates them and Q's higher mean over the spaces decides.
			name:   "exact tie",
			means:  [][]float64{{1.0, 0.5}, {0.5, 1.0}, {0.8, 0.8}, {0.9, 0.8}},
			stds:   [][]float64{{0.1, 0.1}, {0.1, 0.1}, {0.1, 0.1}, {0.1, 0.1}},
			needed: []float64{5, 5, 2, 2},
			want:   3,
			kLo:    2,
			kHi:    2.000001,
			tied:   true,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			needed := NeededK(tc.means, tc.stds)
			for i := range needed {
				if math.Abs(needed[i]-tc.needed[i]) > 1e-9 {
					t.Errorf("needed k %v, want %v", needed, tc.needed)
					break
				}
			}
			sel := Select(tc.means, tc.stds)
			if sel.Index != tc.want || sel.Tied != tc.tied || !(sel.K >= tc.kLo-1e-9 && sel.K < tc.kHi) {
				t.Errorf("Select = %+v, want setting %d with k in [%v, %v), tied %v", sel, tc.want, tc.kLo, tc.kHi, tc.tied)
			}
			for k, want := range tc.acceptableAt {
				if got := Acceptable(tc.means, tc.stds, k); !slices.Equal(got, want) {
					t.Errorf("Acceptable at k=%v: %v, want %v", k, got, want)
				}
			}
		})
	}
}

// A best with standard deviation 0 accepts nothing worse at any k: when the two spaces'
// best settings differ, no k leaves a setting, and the highest mean over spaces is taken.
func TestSelectFallsBackToTheMeanWhenNoKLeavesOne(t *testing.T) {
	means := [][]float64{{1.0, 0.9}, {0.99, 1.0}}
	stds := [][]float64{{0, 0.05}, {0.01, 0}}
	sel := Select(means, stds)
	// not a tie: no k leaves any setting
	if sel.Index != 1 || !math.IsInf(sel.K, 1) || sel.Tied || sel.EqualMeans {
		t.Fatalf("Select = %+v, want setting 1 (mean 0.995) with no k, no tie", sel)
	}
	// settings that tie exactly need no k: k is 0, not the bisection's floor, and equal
	// means are said
	same := [][]float64{{0.9, 0.8}, {0.9, 0.8}, {0.5, 0.5}}
	sds := [][]float64{{0.01, 0.01}, {0.01, 0.01}, {0.01, 0.01}}
	if sel := Select(same, sds); sel.Index != 0 || sel.K != 0 || !sel.Tied || !sel.EqualMeans {
		t.Fatalf("Select of an exact tie = %+v, want setting 0 at k 0, tied with equal means", sel)
	}
}

func TestParseGrid(t *testing.T) {
	g, err := ParseGrid(" neighbourhood=Hamming,adjacent ; restart=true,false;")
	if err != nil {
		t.Fatal(err)
	}
	if g.String() != "neighbourhood=Hamming,adjacent;restart=true,false" {
		t.Errorf("String() = %q", g.String())
	}
	var labels []string
	for _, s := range g.Settings() {
		labels = append(labels, g.settingLabel(s))
	}
	want := []string{"neighbourhood=Hamming;restart=true", "neighbourhood=Hamming;restart=false",
		"neighbourhood=adjacent;restart=true", "neighbourhood=adjacent;restart=false"}
	if !slices.Equal(labels, want) {
		t.Errorf("settings %v, want %v", labels, want)
	}
	// a list value in brackets is one value, its commas separating nothing
	g, err = ParseGrid("order=[0,1],[1, 0];restart=true,false")
	if err != nil || len(g) != 2 || !slices.Equal(g[0].Values, []string{"[0,1]", "[1, 0]"}) {
		t.Errorf("a grid of list values: %v, %v", g, err)
	}
	for _, bad := range []string{"", ";", "restart", "=true", "restart=", "restart=true,,false", "a=1;a=2", "restart=true,false,true", "temperature=1,1.0", "neighbourhood=hamming,Hamming",
		"order=[0,1", "order=0,1]"} {
		if _, err := ParseGrid(bad); err == nil {
			t.Errorf("ParseGrid(%q) accepted", bad)
		}
	}
}

// One boolean under two spellings is one value, refused as a duplicate naming the option
// and both spellings (before, restart=false,0 ran the same setting twice and forced an
// exact tie); numbers stay numbers, so 0 and 1 are two values.
func TestParseGridRefusesABooleanSpelledTwice(t *testing.T) {
	for _, tc := range []struct {
		grid, want string // want: "" when the grid is accepted
	}{
		{"restart=false,0,true", "option restart lists false and 0, the same value"},
		{"restart=true,T", "option restart lists true and T, the same value"},
		{"neighbourhood=Hamming;restart=1,t", "option restart lists 1 and t, the same value"},
		{"restart=F,FALSE", "option restart lists F and FALSE, the same value"},
		{"restart=0,1", ""},
		{"restart=false,1", ""},
		{"temperature=1,1.5;restart=true", ""},
	} {
		_, err := ParseGrid(tc.grid)
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("ParseGrid(%q) = %v, want %q", tc.grid, err, tc.want)
		}
	}
}

func TestDefaultGridsAreAcceptedByTheirStrategies(t *testing.T) {
	for name := range defaultGrids {
		if _, ok := strategy.Lookup(name); !ok {
			t.Errorf("default grid for %s, which is not registered", name)
			continue
		}
		g, _ := DefaultGrid(name)
		for _, s := range g.Settings() {
			if _, err := strategy.New(name, s); err != nil {
				t.Errorf("%s: default grid setting %s: %v", name, g.settingLabel(s), err)
			}
		}
	}
	if _, ok := DefaultGrid("random"); ok {
		t.Error("random has no options, so no grid")
	}
}

func TestDefaultsFileResolvesBudgetsAndKeepsExplicitOptions(t *testing.T) {
	path := filepath.Join(t.TempDir(), "d.json")
	d := &Defaults{Strategy: "firstmls", Budgets: []BudgetDefaults{
		{Budget: 100, Options: map[string]any{"neighbourhood": "adjacent", "restart": "true"}},
		{Budget: 25, Options: map[string]any{"neighbourhood": "Hamming"}},
	}}
	if err := d.Save(path); err != nil {
		t.Fatal(err)
	}
	got, err := LoadDefaults(path)
	if err != nil {
		t.Fatal(err)
	}
	for budget, want := range map[int]string{0: "adjacent", 10: "Hamming", 25: "Hamming", 99: "Hamming", 100: "adjacent", 5000: "adjacent"} {
		if nb := got.For(budget)["neighbourhood"]; nb != want {
			t.Errorf("budget %d: neighbourhood %v, want %s", budget, nb, want)
		}
	}
	m := got.Merge(200, map[string]any{"restart": false})
	if m["restart"] != false || m["neighbourhood"] != "adjacent" {
		t.Errorf("Merge = %v: the explicit restart must win, the file's neighbourhood stay", m)
	}
	if got.For(200)["restart"] != "true" {
		t.Error("Merge changed the file's options")
	}
	// where the options of a run come from, for an error of one that does not fit a space
	for _, tc := range []struct {
		budget   int
		explicit map[string]any
		want     string
	}{
		{10, nil, "the options are defaults file " + path + "'s for budget 25"},
		{0, nil, "the options are defaults file " + path + "'s for budget 100"},
		{99, map[string]any{"restart": false}, "the options are defaults file " + path + "'s for budget 25, with those given on top"},
	} {
		if src := got.Source(tc.budget, tc.explicit); src != tc.want {
			t.Errorf("Source(%d, %v) = %q, want %q", tc.budget, tc.explicit, src, tc.want)
		}
	}
	for _, bad := range []*Defaults{
		{Strategy: "nosuch", Budgets: []BudgetDefaults{{Budget: 25}}},
		{Strategy: "firstmls"},
		{Strategy: "firstmls", Budgets: []BudgetDefaults{{Budget: 25, Options: map[string]any{"neighbourhood": "diagonal"}}}},
		{Strategy: "firstmls", Budgets: []BudgetDefaults{{Budget: 25}, {Budget: 25}}},
		{Strategy: "firstmls", Budgets: []BudgetDefaults{{Budget: 0}}},
	} {
		if err := bad.Save(path); err != nil {
			t.Fatal(err)
		}
		if _, err := LoadDefaults(path); err == nil {
			t.Errorf("LoadDefaults accepted %+v", bad)
		}
	}
}

// A defaults file whose mode or fitness no run has, or whose budget has null options, is
// refused, naming the file and the field, as a *DefaultsFileError (QA: "mode": "weird"
// was taken, and "options": null ran the strategy's built-in options under the file's
// name); the file hypertune writes, and one that does not say its mode, are read.
func TestLoadDefaultsRefusesWhatNoRunHas(t *testing.T) {
	path := filepath.Join(t.TempDir(), "d.json")
	good := func() *Defaults {
		return &Defaults{Strategy: "firstmls", Mode: "cartesian", Fitness: "deterministic", Repeats: 2,
			Budgets: []BudgetDefaults{{Budget: 25, Options: map[string]any{"neighbourhood": "Hamming"}}, {Budget: 50, Options: map[string]any{}}}}
	}
	for _, tc := range []struct {
		name string
		edit func(*Defaults)
		want string // "" for a file that is read
	}{
		{"as written", func(*Defaults) {}, ""},
		{"no mode or fitness", func(d *Defaults) { d.Mode, d.Fitness = "", "" }, ""},
		{"mode", func(d *Defaults) { d.Mode = "weird" }, `: mode: unknown simulation mode "weird"`},
		{"fitness", func(d *Defaults) { d.Fitness = "noisy" }, `: fitness: unknown fitness "noisy"`},
		{"null options", func(d *Defaults) { d.Budgets[1].Options = nil }, ": budget 50: options is null or missing"},
		// a null value was "<nil> (<nil>) is not a boolean" for one option, and no
		// option at all for a list option (order), which takes nil as not set
		{"null value", func(d *Defaults) { d.Budgets[0].Options["restart"] = nil }, ": budget 25: option restart is null: give its value"},
		{"null list", func(d *Defaults) { d.Budgets[0].Options["order"] = nil }, ": budget 25: option order is null: give its value"},
		{"list for a boolean", func(d *Defaults) { d.Budgets[1].Options["restart"] = []any{true} },
			": budget 50: strategy firstmls: option restart: [true] (a list) is not a boolean"},
		{"object for a choice", func(d *Defaults) { d.Budgets[1].Options["neighbourhood"] = map[string]any{"a": 1} },
			`: budget 50: strategy firstmls: option neighbourhood: {"a":1} (an object) is not one of Hamming, adjacent`},
	} {
		d := good()
		tc.edit(d)
		if err := d.Save(path); err != nil {
			t.Fatal(err)
		}
		_, err := LoadDefaults(path)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.want != "" && (!errors.As(err, new(*DefaultsFileError)) || !strings.Contains(err.Error(), "defaults file "+path+tc.want)):
			t.Errorf("%s: %v, want a *DefaultsFileError saying %q", tc.name, err, tc.want)
		}
	}
}

func TestParseStrategiesAndAttachDefaults(t *testing.T) {
	sts, err := ParseStrategies("random, adj=firstmls:neighbourhood=adjacent;restart=true,irace:testType=t-test,tuned=firstmls")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range sts {
		got = append(got, s.Name+"|"+s.DisplayName())
	}
	want := []string{"random|random", "firstmls|adj", "irace|irace:testType=t-test", "firstmls|tuned"}
	if !slices.Equal(got, want) {
		t.Errorf("parsed %v, want %v", got, want)
	}
	if sts[1].Options["neighbourhood"] != "adjacent" || sts[1].Options["restart"] != true {
		t.Errorf("options %v", sts[1].Options)
	}
	// a list option in brackets stays in its entry; without them its second item is read
	// as an entry, and the error says how to write it
	sts2, err := ParseStrategies("random,greedymls:order=[tile_size,use_method],o2=greedymls:order=[1, 2];neighbourhood=adjacent")
	if err != nil {
		t.Fatal(err)
	}
	if len(sts2) != 3 || sts2[1].DisplayName() != "greedymls:order=[tile_size,use_method]" || sts2[1].Options["order"] != "[tile_size,use_method]" ||
		sts2[2].Options["order"] != "[1, 2]" || sts2[2].Options["neighbourhood"] != "adjacent" {
		t.Errorf("bracketed lists: %+v", sts2)
	}
	if _, err := ParseStrategies("greedymls:order=tile_size,use_method"); err == nil || !strings.Contains(err.Error(), "OPT=[a,b]") {
		t.Errorf("an unbracketed list: %v, want an error saying to write it in brackets", err)
	}
	for _, bad := range []string{"", "random,", "nosuch", "firstmls:neighbourhood=diagonal", "firstmls:restart", "greedymls:order=[a,b", "greedymls:order=[a,,b]",
		"random,random", "=random", "irace:firstTest=2;firstTest=3", "random:popsize=3"} {
		if _, err := ParseStrategies(bad); err == nil {
			t.Errorf("ParseStrategies(%q) accepted", bad)
		}
	}

	path := filepath.Join(t.TempDir(), "d.json")
	d := &Defaults{Strategy: "firstmls", Budgets: []BudgetDefaults{{Budget: 25, Options: map[string]any{"neighbourhood": "Hamming", "restart": "false"}}}}
	if err := d.Save(path); err != nil {
		t.Fatal(err)
	}
	if err := AttachDefaults(sts, "tuned="+path); err != nil {
		t.Fatal(err)
	}
	if sts[3].Defaults == nil || sts[1].Defaults != nil {
		t.Fatal("the labelled form must attach to that entry only")
	}
	if o := sts[3].OptionsFor(50); o["neighbourhood"] != "Hamming" || o["restart"] != "false" {
		t.Errorf("tuned at budget 50: %v", o)
	}
	if err := AttachDefaults(sts, path); err != nil {
		t.Fatal(err)
	}
	if o := sts[1].OptionsFor(50); o["neighbourhood"] != "adjacent" || o["restart"] != true {
		t.Errorf("adj's own options must win over the file's: %v", o)
	}
	for _, bad := range []string{"irace:testType=t-test=" + path, "random=" + path, filepath.Join(t.TempDir(), "none.json")} {
		if err := AttachDefaults(sts, bad); err == nil {
			t.Errorf("AttachDefaults(%q) accepted", bad)
		}
	}
	if err := AttachDefaults(sts[:1], path); err == nil || !strings.Contains(err.Error(), "firstmls") {
		t.Errorf("a file for a strategy no entry runs: %v", err)
	}
}

// Hypertune on two real recorded spaces with a small grid: four first-improvement MLS
// settings, two budgets, five repeats. The choice per budget must be the one Select makes on
// the cells, the setting needing the smallest k, and the defaults file must give it back.
// trainingSetup is the hypertune tests' training: point-in-polygon and a convolution in
// cartesian mode, and firstmls's neighbourhood x restart.
func trainingSetup(t *testing.T) ([]Space, Grid) {
	t.Helper()
	var spaces []Space
	for _, p := range []string{"../testdata/benchmark_hub/kerneltuner_pnpoly/RTX_2080_Ti.json.gz", "../testdata/benchmark_hub/convolution_milo/A100.json.gz"} {
		spaces = append(spaces, Space{Name: filepath.Base(p), Sim: loadSim(t, p, simulator.Cartesian)})
	}
	grid, err := ParseGrid("neighbourhood=Hamming,adjacent;restart=true,false")
	if err != nil {
		t.Fatal(err)
	}
	return spaces, grid
}

func TestHypertuneOnRecordedSpaces(t *testing.T) {
	spaces, grid := trainingSetup(t)
	res, err := Hypertune(context.Background(), HypertuneConfig{Strategy: "firstmls", Grid: grid, Spaces: spaces,
		Budgets: []int{25, 200}, Repeats: 5, Seed: 9})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Settings) != 4 || len(res.Cells) != 16 || len(res.Choices) != 2 {
		t.Fatalf("%d settings, %d cells, %d choices", len(res.Settings), len(res.Cells), len(res.Choices))
	}
	path := filepath.Join(t.TempDir(), "firstmls.json")
	if err := res.Defaults().Save(path); err != nil {
		t.Fatal(err)
	}
	d, err := LoadDefaults(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, ch := range res.Choices {
		means := make([][]float64, 4)
		stds := make([][]float64, 4)
		for i, s := range res.Settings {
			for _, sp := range spaces {
				for _, c := range res.Cells {
					if c.Strategy == s.Label && c.Space == sp.Name && c.Budget == ch.Budget {
						if len(c.Fractions) != 5 {
							t.Fatalf("cell %+v has %d runs", c, len(c.Fractions))
						}
						means[i] = append(means[i], c.MeanFraction)
						stds[i] = append(stds[i], c.StdFraction)
					}
				}
			}
		}
		sel := Select(means, stds)
		needed := NeededK(means, stds)
		t.Logf("budget %d: chose %s (k %v), needed k per setting %v", ch.Budget, ch.Label, sel.K, needed)
		if sel.Index != ch.Setting || ch.Label != res.Settings[ch.Setting].Label {
			t.Errorf("budget %d: choice %d (%s), Select says %d", ch.Budget, ch.Setting, ch.Label, sel.Index)
		}
		if !sel.Tied && needed[sel.Index] != slices.Min(needed) {
			t.Errorf("budget %d: chose a setting needing k %v, but %v suffices for another", ch.Budget, needed[sel.Index], slices.Min(needed))
		}
		for k, v := range ch.Options {
			if d.For(ch.Budget)[k] != v {
				t.Errorf("budget %d: defaults file gives %s=%v, the choice %v", ch.Budget, k, d.For(ch.Budget)[k], v)
			}
		}
	}
}

func loadSim(t *testing.T, path string, mode simulator.Mode) *simulator.Simulator {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rec, err := kerneltuner.Read(f, filepath.Base(path))
	if err != nil {
		t.Fatal(err)
	}
	sim, err := simulator.New(rec, simulator.Options{Mode: mode})
	if err != nil {
		t.Fatal(err)
	}
	return sim
}

// Interrupted, hypertune keeps the choices of the budgets it finished (it runs budget by
// budget), the same as a run of those budgets alone, and says which budgets are missing.
func TestHypertuneInterruptedKeepsTheFinishedBudgets(t *testing.T) {
	spaces, grid := trainingSetup(t)
	cfg := HypertuneConfig{Strategy: "firstmls", Grid: grid, Spaces: spaces, Budgets: []int{25}, Repeats: 5, Seed: 3}
	alone, err := Hypertune(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cfg.Budgets = []int{25, 50, 200}
	cfg.Progress = func(p Progress) {
		if p.Cells == 4*2+1 { // all of budget 25, and one cell of 50
			cancel()
		}
	}
	res, err := Hypertune(ctx, cfg)
	if !errors.Is(err, context.Canceled) || res == nil {
		t.Fatalf("%v, %v", res, err)
	}
	if len(res.Choices) != 1 || res.Choices[0].Budget != 25 || !slices.Equal(res.Unfinished, []int{50, 200}) || len(res.Cells) != 9 {
		t.Fatalf("choices %+v, unfinished %v, %d cells", res.Choices, res.Unfinished, len(res.Cells))
	}
	if got, want := res.Choices[0], alone.Choices[0]; got.Label != want.Label || got.MeanFraction != want.MeanFraction {
		t.Errorf("budget 25 chose %s (%v) interrupted, %s (%v) alone", got.Label, got.MeanFraction, want.Label, want.MeanFraction)
	}
	if d := res.Defaults(); len(d.Budgets) != 1 || d.Budgets[0].Budget != 25 {
		t.Errorf("the defaults of an interrupted run: %+v", d.Budgets)
	}
}

// Interrupted before its first cell, hypertune still returns its result, with no choice
// and every budget unfinished, so that the command can say so and write --json.
func TestHypertuneInterruptedBeforeItsFirstCell(t *testing.T) {
	spaces, grid := trainingSetup(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, err := Hypertune(ctx, HypertuneConfig{Strategy: "firstmls", Grid: grid, Spaces: spaces, Budgets: []int{25, 50}, Repeats: 2, Seed: 1})
	if !errors.Is(err, context.Canceled) || res == nil {
		t.Fatalf("%v, %v", res, err)
	}
	if len(res.Choices) != 0 || len(res.Cells) != 0 || !slices.Equal(res.Unfinished, []int{25, 50}) || len(res.Settings) == 0 {
		t.Errorf("choices %+v, %d cells, unfinished %v, %d settings", res.Choices, len(res.Cells), res.Unfinished, len(res.Settings))
	}
}

// A defaults file chosen in another mode or fitness than a run's says so (QA: hypertune
// wrote cartesian, simulate ran recorded mode with it without a word); the same, or a file
// that does not say, says nothing.
func TestDefaultsSayWhenARunIsUnlikeTheirs(t *testing.T) {
	d := &Defaults{Strategy: "firstmls", Mode: "cartesian", Fitness: "deterministic", Path: "d.json"}
	for _, tc := range []struct {
		mode    simulator.Mode
		fitness simulator.Fitness
		want    string
	}{
		{simulator.Cartesian, simulator.Deterministic, ""},
		{simulator.Recorded, simulator.Deterministic, "defaults file d.json was chosen for cartesian mode; this run has recorded mode:"},
		{simulator.Cartesian, simulator.Stochastic, "was chosen for deterministic fitness; this run has stochastic fitness:"},
		{simulator.Recorded, simulator.Stochastic, "was chosen for cartesian mode and deterministic fitness; this run has recorded mode and stochastic fitness:"},
	} {
		got := d.Unlike(tc.mode, tc.fitness)
		if tc.want == "" && got != "" || !strings.Contains(got, tc.want) {
			t.Errorf("%v, %v: %q, want %q", tc.mode, tc.fitness, got, tc.want)
		}
	}
	if got := (&Defaults{Strategy: "firstmls"}).Unlike(simulator.Recorded, simulator.Stochastic); got != "" {
		t.Errorf("a file that does not say its mode: %q", got)
	}
}

// A hypertune resumed with its grid spelled otherwise takes the cells of the settings
// whose options mean the same (neighbourhood=hamming is Hamming, perturbation_size=0.10
// is 0.1), under this grid's labels, and they are the cells a whole run gives; a setting
// of other values is run.
func TestResumedHypertuneTakesTheSettingsSpelledOtherwise(t *testing.T) {
	spaces, _ := trainingSetup(t)
	spelled := func(grid string) HypertuneConfig {
		g, err := ParseGrid(grid)
		if err != nil {
			t.Fatal(err)
		}
		return HypertuneConfig{Strategy: "firstils", Grid: g, Spaces: spaces, Budgets: []int{25}, Repeats: 3, Seed: 5}
	}
	prev, err := Hypertune(context.Background(), spelled("neighbourhood=hamming,adjacent;perturbation_size=0.10"))
	if err != nil {
		t.Fatal(err)
	}
	cfg := spelled("neighbourhood=ADJACENT,Hamming;perturbation_size=1e-1;exit_after_no_improve=10")
	done, skipped, err := ReusableTuning(cfg, "cartesian", "deterministic", prev, "cartesian", "deterministic")
	if err != nil || len(done) != 0 || skipped != 4 {
		t.Errorf("a grid with another option: took %d cells (want none), %d skipped, %v", len(done), skipped, err)
	}
	cfg = spelled("neighbourhood=ADJACENT,Hamming;perturbation_size=1e-1")
	done, skipped, err = ReusableTuning(cfg, "cartesian", "deterministic", prev, "cartesian", "deterministic")
	if err != nil || len(done) != 4 || skipped != 0 {
		t.Fatalf("took %d cells (want 4), %d skipped, %v", len(done), skipped, err)
	}
	whole, err := Hypertune(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Done = done
	ran := 0
	cfg.Progress = func(p Progress) { ran = p.Evaluations }
	resumed, err := Hypertune(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if ran != 0 || len(resumed.Cells) != len(whole.Cells) || len(resumed.Choices) != 1 || len(whole.Choices) != 1 {
		t.Fatalf("resumed: %d evaluations run, %d cells, %d choices; whole: %d cells, %d choices", ran, len(resumed.Cells), len(resumed.Choices),
			len(whole.Cells), len(whole.Choices))
	}
	for i, c := range resumed.Cells {
		w := whole.Cells[i]
		if c.Strategy != w.Strategy || c.Space != w.Space || c.Budget != w.Budget || !reflect.DeepEqual(c.Fractions, w.Fractions) {
			t.Errorf("cell %d: resumed %s on %s at %d %v, whole %s on %s at %d %v", i, c.Strategy, c.Space, c.Budget, c.Fractions,
				w.Strategy, w.Space, w.Budget, w.Fractions)
		}
	}
	if got, want := resumed.Choices[0], whole.Choices[0]; got.Label != want.Label || got.MeanFraction != want.MeanFraction {
		t.Errorf("resumed chose %s (%v), whole %s (%v)", got.Label, got.MeanFraction, want.Label, want.MeanFraction)
	}
	for _, c := range resumed.Cells {
		if c.Strategy != "neighbourhood=ADJACENT;perturbation_size=1e-1" && c.Strategy != "neighbourhood=Hamming;perturbation_size=1e-1" {
			t.Errorf("a cell of %s, not of this grid's labels", c.Strategy)
		}
	}

	// other values: only the setting of both grids is taken
	cfg = spelled("neighbourhood=Hamming;perturbation_size=0.1,0.2")
	if done, skipped, err := ReusableTuning(cfg, "cartesian", "deterministic", prev, "cartesian", "deterministic"); err != nil || len(done) != 2 || skipped != 2 {
		t.Errorf("other values: took %d cells (want Hamming with 0.1's 2), %d skipped, %v", len(done), skipped, err)
	}
}

// The defaults file holds the chosen options in the strategy's own spelling, as runs
// store them, however the grid spelled them; the grid itself is kept as given.
func TestHypertuneDefaultsAreWrittenCanonically(t *testing.T) {
	spaces, _ := trainingSetup(t)
	grid, err := ParseGrid("neighbourhood=hamming,ADJACENT;restart=1,0")
	if err != nil {
		t.Fatal(err)
	}
	res, err := Hypertune(context.Background(), HypertuneConfig{Strategy: "firstmls", Grid: grid, Spaces: spaces,
		Budgets: []int{25, 50}, Repeats: 3, Seed: 4})
	if err != nil {
		t.Fatal(err)
	}
	d := res.Defaults()
	if d.Grid != "neighbourhood=hamming,ADJACENT;restart=1,0" {
		t.Errorf("grid %q", d.Grid)
	}
	for _, b := range d.Budgets {
		nb, restart := b.Options["neighbourhood"], b.Options["restart"]
		if (nb != "Hamming" && nb != "adjacent") || (restart != true && restart != false) {
			t.Errorf("budget %d: options %#v, want Hamming or adjacent and a boolean restart", b.Budget, b.Options)
		}
	}
}
