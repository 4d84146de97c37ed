package analysis

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/ktune/ktune/benchmark"
	"github.com/ktune/ktune/format"
	_ "github.com/ktune/ktune/format/all"
	"github.com/ktune/ktune/format/t4"
	"github.com/ktune/ktune/landscape"
	"github.com/ktune/ktune/result"
	"github.com/ktune/ktune/simulator"
	"github.com/ktune/ktune/space"
	"github.com/ktune/ktune/store"
	_ "github.com/ktune/ktune/store/sqlite"
)

const pnpoly = "../testdata/benchmark_hub/kerneltuner_pnpoly/RTX_2080_Ti.json.gz"

func open(t *testing.T, path string) *result.Recording {
	t.Helper()
	rec, err := format.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	return rec
}

func quick() Options {
	o := Defaults()
	o.Bootstrap = 20
	return o
}

// TestAnalyzeRecordedSpace runs the whole analysis on a real recorded space and checks it
// against what the recording says independently.
func TestAnalyzeRecordedSpace(t *testing.T) {
	rec := open(t, pnpoly)
	r, err := Analyze(context.Background(), Input{Name: "kerneltuner_pnpoly/RTX_2080_Ti", Rec: rec}, quick())
	if err != nil {
		t.Fatal(err)
	}
	total, ok := rec.Counts()
	best, _ := rec.Best()
	if r.Configurations != total || r.Evaluated != total || r.Valid != ok {
		t.Errorf("configurations/evaluated/valid = %d/%d/%d, want %d/%d/%d", r.Configurations, r.Evaluated, r.Valid, total, total, ok)
	}
	if r.Optimum != best.Objective || r.Maximize || r.Objective != "time" || r.Partial {
		t.Errorf("optimum %v (want %v), maximize %v, objective %q, partial %v", r.Optimum, best.Objective, r.Maximize, r.Objective, r.Partial)
	}
	a := r.Landscape
	if a == nil || r.LandscapeMode != "recorded" {
		t.Fatalf("no landscape (mode %q)", r.LandscapeMode)
	}
	if a.Points != total || a.Failed != total-ok || a.Minima+a.Maxima+a.Saddles+a.Regular != total || a.Minima == 0 {
		t.Errorf("landscape counts %+v", a)
	}
	if len(a.Proportions) != 16 || a.Proportions[0].C > a.Proportions[15].C || a.Proportions[15].C > 1 {
		t.Errorf("proportions %v", a.Proportions)
	}
	if len(r.Significance) != len(rec.Params) {
		t.Errorf("%d significance entries for %d parameters", len(r.Significance), len(rec.Params))
	}
	if r.Sobol == nil || r.Sobol.Method != "empirical" || len(r.Sobol.First) != len(rec.Params) {
		t.Fatalf("Sobol %+v: failures break the product, so the empirical estimator is expected", r.Sobol)
	}
	if _, err := json.Marshal(r); err != nil {
		t.Errorf("the result does not marshal: %v", err)
	}
}

// TestAnalyzeCartesianCountsFailures: seed 000's mode adds the configurations the
// recording lacks as failures, so the landscape has more points and more failures.
func TestAnalyzeCartesianCountsFailures(t *testing.T) {
	rec := open(t, "../testdata/ktt/coulomb_sum_3d/RTX_2080_Ti.json.gz")
	o := quick()
	o.Parameters = false
	rr, err := Analyze(context.Background(), Input{Name: "coulomb", Rec: rec}, o)
	if err != nil {
		t.Fatal(err)
	}
	o.Mode = simulator.Cartesian
	rc, err := Analyze(context.Background(), Input{Name: "coulomb", Rec: rec}, o)
	if err != nil {
		t.Fatal(err)
	}
	prod := 1
	for _, p := range rec.Params {
		prod *= len(p.Values)
	}
	if rc.Landscape.Points != prod || rc.Landscape.Failed != prod-rr.Valid || rr.Landscape.Points != rr.Configurations {
		t.Errorf("cartesian %d points %d failed, recorded %d points; product %d, valid %d",
			rc.Landscape.Points, rc.Landscape.Failed, rr.Landscape.Points, prod, rr.Valid)
	}
	if rc.Significance != nil || rc.Sobol != nil {
		t.Error("parameters analysed though not asked for")
	}

	// a product beyond the memory bound is refused before anything is allocated for it,
	// and no bound (negative) analyses it
	o.MaxBytes = int64(prod-1) * LandscapeBytesPerPoint
	_, err = Analyze(context.Background(), Input{Name: "coulomb", Rec: rec}, o)
	var tl *LandscapeTooLargeError
	if !errors.As(err, &tl) || tl.Points != prod || tl.Recorded != rr.Evaluated || !strings.Contains(err.Error(), "--mode recorded") {
		t.Errorf("bound below the product: %v, want a LandscapeTooLargeError of %d points", err, prod)
	}
	o.MaxBytes = int64(prod) * LandscapeBytesPerPoint
	if _, err := Analyze(context.Background(), Input{Name: "coulomb", Rec: rec}, o); err != nil {
		t.Errorf("bound at the product: %v", err)
	}
	o.MaxBytes = -1
	if _, err := Analyze(context.Background(), Input{Name: "coulomb", Rec: rec}, o); err != nil {
		t.Errorf("no bound: %v", err)
	}
}

// TestAnalyzeMetricObjective explains a recorded metric instead of the time, with the
// direction its name implies, and names the metrics when asked for one that is missing.
func TestAnalyzeMetricObjective(t *testing.T) {
	rec := open(t, "../testdata/kernel_tuner/time_energy.json")
	o := quick()
	o.Objective = "GFLOPS/W"
	r, err := Analyze(context.Background(), Input{Name: "energy", Rec: rec}, o)
	if err != nil {
		t.Fatal(err)
	}
	best := math.Inf(-1)
	for _, e := range rec.Evaluations {
		if v, ok := e.Metrics["GFLOPS/W"]; ok && !e.Failed() {
			best = math.Max(best, v)
		}
	}
	if !r.Maximize || r.Optimum != best {
		t.Errorf("GFLOPS/W: maximize %v optimum %v, want true and %v", r.Maximize, r.Optimum, best)
	}
	o.Objective = "GFLOPS/Watt"
	_, err = Analyze(context.Background(), Input{Name: "energy", Rec: rec}, o)
	if err == nil || !strings.Contains(err.Error(), "GFLOPS/W") || !strings.Contains(err.Error(), "energy") {
		t.Errorf("unknown objective: %v, want an error naming the available ones", err)
	}
}

// TestAnalyzeDirectionOption: the direction of a metric comes from its name unless
// Options.Maximize says it, and saying the opposite of what a recording records is
// warned about; the optimum and the landscape follow the direction given.
func TestAnalyzeDirectionOption(t *testing.T) {
	rec := open(t, "../testdata/kernel_tuner/time_energy.json")
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, e := range rec.Evaluations {
		if v, ok := e.Metrics["GFLOPS/W"]; ok && !e.Failed() {
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
	}
	no, yes := false, true
	for _, tt := range []struct {
		objective string
		maximize  *bool
		want      bool
		from      string
		optimum   float64
		warn      string
	}{
		{"GFLOPS/W", nil, true, DirectionName, hi, ""},
		{"GFLOPS/W", &no, false, DirectionOption, lo, ""},
		{"GFLOPS/W", &yes, true, DirectionOption, hi, ""},
		{"", nil, false, DirectionRecorded, math.NaN(), ""},
		{"", &yes, true, DirectionOption, math.NaN(), "the recording says time is better lower; the option given makes it higher"},
	} {
		o := quick()
		o.Parameters = false
		o.Objective, o.Maximize = tt.objective, tt.maximize
		r, err := Analyze(context.Background(), Input{Name: "energy", Rec: rec}, o)
		if err != nil {
			t.Fatal(err)
		}
		warned := strings.Join(r.Warnings, "\n")
		wrongWarning := tt.warn == "" && strings.Contains(warned, "the recording says") || !strings.Contains(warned, tt.warn)
		if r.Maximize != tt.want || r.DirectionFrom != tt.from || !math.IsNaN(tt.optimum) && r.Optimum != tt.optimum || wrongWarning {
			t.Errorf("%q, maximize %v: got maximize %v from %s, optimum %v, warnings %q; want %v from %s, optimum %v, warning %q",
				tt.objective, tt.maximize, r.Maximize, r.DirectionFrom, r.Optimum, r.Warnings, tt.want, tt.from, tt.optimum, tt.warn)
		}
		if r.Landscape == nil || r.land.Maximize != tt.want {
			t.Errorf("%q, maximize %v: the landscape maximises %v", tt.objective, tt.maximize, r.land.Maximize)
		}
	}
}

// TestAnalyzeAMetricSomeConfigurationsLack: three successful configurations of the
// recorded energy cache lose their energy (as in a cache where the power meter missed
// them). They are not failures: a warning counts them, the indices leave them out, and so
// does the recorded landscape (12 points, none failed: QA saw "15 points, 3 failed"),
// while the cartesian one, whose points are the whole product, counts them as failed.
func TestAnalyzeAMetricSomeConfigurationsLack(t *testing.T) {
	rec := open(t, "../testdata/kernel_tuner/time_energy.json")
	var dropped []string
	for i := range rec.Evaluations {
		if e := &rec.Evaluations[i]; i%5 == 2 {
			metrics := maps.Clone(e.Metrics)
			delete(metrics, "energy")
			e.Metrics = metrics
			dropped = append(dropped, e.Config[0].String())
		}
	}
	for _, tt := range []struct {
		mode           simulator.Mode
		points, failed int
		says           string
	}{
		{simulator.Recorded, 12, 0, "left out of the landscape too"},
		{simulator.Cartesian, 15, 3, "the cartesian landscape counts them as failed points"},
	} {
		o := quick()
		o.Objective, o.Mode = "energy", tt.mode
		r, err := Analyze(context.Background(), Input{Name: "energy", Rec: rec}, o)
		if err != nil {
			t.Fatal(err)
		}
		want := fmt.Sprintf("3 of the successful configurations lack energy (the first: block_size_x=%s, nvml_gr_clock=1080)", dropped[0])
		warned := strings.Join(r.Warnings, "\n")
		if !strings.Contains(warned, want) || !strings.Contains(warned, tt.says) {
			t.Errorf("%s mode: warnings %q, want %q and %q", tt.mode, r.Warnings, want, tt.says)
		}
		if r.Valid != 12 || r.Landscape.Points != tt.points || r.Landscape.Failed != tt.failed {
			t.Errorf("%s mode: %d valid, landscape of %d points, %d failed; want 12 valid, %d points, %d failed",
				tt.mode, r.Valid, r.Landscape.Points, r.Landscape.Failed, tt.points, tt.failed)
		}
		for _, c := range r.Significance {
			if c.N != 12 {
				t.Errorf("%s mode: significance of %s over %d configurations, want 12", tt.mode, c.Param, c.N)
			}
		}
	}
}

// TestAnalyzePartialRun stores a run that explored part of a restricted space in a real
// database and analyses what it measured.
func TestAnalyzePartialRun(t *testing.T) {
	ctx := context.Background()
	rec := open(t, pnpoly)
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "runs.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	spID, err := st.PutSpace(ctx, store.Space{Kernel: rec.Kernel, Params: rec.Params, Restrictions: []string{"block_size_x >= 32"}})
	if err != nil {
		t.Fatal(err)
	}
	devID, err := st.PutDevice(ctx, store.Device{Name: rec.Device})
	if err != nil {
		t.Fatal(err)
	}
	runID, err := st.CreateRun(ctx, store.RunInfo{SpaceID: spID, DeviceID: devID, Kind: store.KindTuning, Strategy: "random", Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	var some []result.Evaluation
	bx := -1
	for i, p := range rec.Params {
		if p.Name == "block_size_x" {
			bx = i
		}
	}
	for _, e := range rec.Evaluations {
		if e.Config[bx].Int() >= 32 && len(some) < 300 {
			some = append(some, e)
		}
	}
	if err := st.AddEvaluations(ctx, runID, some); err != nil {
		t.Fatal(err)
	}
	info, err := st.Run(ctx, runID)
	if err != nil {
		t.Fatal(err)
	}
	back, err := st.Recording(ctx, runID)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Analyze(ctx, Input{Name: "run", Rec: back, Run: &info}, quick())
	if err != nil {
		t.Fatal(err)
	}
	if !r.Partial || r.Evaluated != len(some) || r.Landscape.Points != len(some) || r.Configurations <= len(some) {
		t.Errorf("partial %v, evaluated %d, landscape points %d, configurations %d; stored %d", r.Partial, r.Evaluated, r.Landscape.Points, r.Configurations, len(some))
	}
	if len(r.Warnings) == 0 || !strings.Contains(strings.Join(r.Warnings, " "), "explored") {
		t.Errorf("no warning that the run is partial: %v", r.Warnings)
	}
	if r.Sobol == nil || r.Sobol.Method != "empirical" {
		t.Errorf("Sobol of a partial run: %+v", r.Sobol)
	}

	// The run exported as T4 keeps its restrictions; read back as a file (or imported),
	// it is analysed over what it explored as the run is, in either mode.
	var buf bytes.Buffer
	if err := t4.Write(&buf, back); err != nil {
		t.Fatal(err)
	}
	file, err := t4.Read(&buf, "run.t4.json")
	if err != nil {
		t.Fatal(err)
	}
	if len(file.Restrictions) == 0 {
		t.Fatal("the T4 export lost the run's restrictions: this test no longer checks a partial recording")
	}
	for _, mode := range []simulator.Mode{simulator.Recorded, simulator.Cartesian} {
		o := quick()
		o.Mode = mode
		f, err := Analyze(ctx, Input{Name: "run.t4.json", Rec: file}, o)
		if err != nil {
			t.Fatalf("%v mode: the export of a partial run: %v", mode, err)
		}
		if !f.Partial || f.Evaluated != len(some) || f.Landscape.Points != len(some) || f.Optimum != r.Optimum {
			t.Errorf("%v mode: partial %v, evaluated %d, landscape points %d, optimum %v; the run: %d, %v",
				mode, f.Partial, f.Evaluated, f.Landscape.Points, f.Optimum, len(some), r.Optimum)
		}
	}
}

// TestCorrelateDifficulty matches analyses to benchmark cells by space name.
func TestCorrelateDifficulty(t *testing.T) {
	mk := func(name string, cs ...float64) *Result {
		r := &Result{Name: name, Landscape: nil}
		r.Landscape = newAnalysisWithProportions(cs)
		return r
	}
	results := []*Result{mk("a", 0.1, 0.2), mk("b", 0.3, 0.5), mk("c", 0.6, 0.7), mk("d", 0.2, 0.9)}
	cells := []benchmark.Cell{
		{Strategy: "firstils", Space: "a", Budget: 100, MeanFraction: 0.80},
		{Strategy: "firstils", Space: "b", Budget: 100, MeanFraction: 0.85},
		{Strategy: "firstils", Space: "c", Budget: 100, MeanFraction: 0.95},
		{Strategy: "firstils", Space: "d", Budget: 100, MeanFraction: 0.90},
		{Strategy: "random", Space: "a", Budget: 100, MeanFraction: 0.9},
		{Strategy: "random", Space: "b", Budget: 100, MeanFraction: 0.9},
		{Strategy: "random", Space: "zzz", Budget: 100, MeanFraction: 0.9},
	}
	ds := CorrelateDifficulty(results, cells)
	if len(ds) != 1 || ds[0].Strategy != "firstils" || ds[0].Spaces != 4 {
		t.Fatalf("difficulty %+v, want firstils alone (random has two matching spaces)", ds)
	}
	// p index 0: C = 0.1 0.3 0.6 0.2 vs 0.80 0.85 0.95 0.90: ranks 1 3 4 2 vs 1 2 4 3 -> rho = 1 - 6*2/60 = 0.8.
	// p index 1: C = 0.2 0.5 0.7 0.9: ranks 1 2 3 4 vs 1 2 4 3 -> rho = 0.8.
	if math.Abs(float64(ds[0].Rho[0])-0.8) > 1e-12 || math.Abs(float64(ds[0].Rho[1])-0.8) > 1e-12 {
		t.Errorf("rho %v, want 0.8 0.8", ds[0].Rho)
	}
}

func TestWriteFigures(t *testing.T) {
	if testing.Short() {
		t.Skip("draws figures")
	}
	rec := open(t, "../testdata/ktt/coulomb_sum_3d/RTX_2080_Ti.json.gz")
	r, err := Analyze(context.Background(), Input{Name: "ktt/coulomb", Rec: rec}, quick())
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	files, err := WriteFigures(context.Background(), []*Result{r}, dir, FigureOptions{GraphNodes: 1000})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"minima.svg", "minima.png", "centrality.svg", "ffg-ktt-coulomb.svg", "significance-ktt-coulomb.png", "sensitivity-ktt-coulomb.svg"}
	for _, w := range want {
		fi, err := os.Stat(filepath.Join(dir, w))
		if err != nil || fi.Size() < 1000 {
			t.Errorf("%s: %v (files %v)", w, err, files)
		}
	}
}

// A result whose figure data was let go (ReleaseFigureData, as 'ktune analyze' does
// without --plot) draws what needs no landscape, and no flow graph, and does not fail.
func TestWriteFiguresAfterReleaseFigureData(t *testing.T) {
	if testing.Short() {
		t.Skip("draws figures")
	}
	rec := open(t, "../testdata/ktt/coulomb_sum_3d/RTX_2080_Ti.json.gz")
	r, err := Analyze(context.Background(), Input{Name: "ktt/coulomb", Rec: rec}, quick())
	if err != nil {
		t.Fatal(err)
	}
	r.ReleaseFigureData()
	if r.land != nil {
		t.Fatal("the landscape is still held")
	}
	dir := t.TempDir()
	files, err := WriteFigures(context.Background(), []*Result{r}, dir, FigureOptions{GraphNodes: 1000})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "ffg-ktt-coulomb.svg")); err == nil {
		t.Error("drew a flow graph without its landscape")
	}
	if !slices.ContainsFunc(files, func(f string) bool { return strings.HasSuffix(f, "significance-ktt-coulomb.png") }) {
		t.Errorf("files %v: want the significance figure", files)
	}
}

func newAnalysisWithProportions(cs []float64) *landscape.Analysis {
	a := &landscape.Analysis{}
	for i, c := range cs {
		a.Proportions = append(a.Proportions, landscape.Proportion{P: float64(i) / 100, C: c})
	}
	return a
}

// TestAnalyzeAllFailedSaysSo: a recording in which nothing succeeded is an error that says
// why, not an empty analysis.
func TestAnalyzeAllFailedSaysSo(t *testing.T) {
	rec := open(t, "../testdata/kernel_tuner/vector_add_A4000.json")
	for i := range rec.Evaluations {
		rec.Evaluations[i].Status = result.RuntimeError
		rec.Evaluations[i].Objective = math.NaN()
	}
	_, err := Analyze(context.Background(), Input{Name: "failed", Rec: rec}, quick())
	if err == nil || !strings.Contains(err.Error(), "none of the 15 configurations") {
		t.Errorf("err = %v", err)
	}
}

// TestAnalyzeOneValidConfiguration: the landscape and significance still work, the Sobol
// indices are left out with a warning.
func TestAnalyzeOneValidConfiguration(t *testing.T) {
	rec := open(t, "../testdata/kernel_tuner/vector_add_A4000.json")
	for i := 1; i < len(rec.Evaluations); i++ {
		rec.Evaluations[i].Status = result.RuntimeError
		rec.Evaluations[i].Objective = math.NaN()
	}
	r, err := Analyze(context.Background(), Input{Name: "one", Rec: rec}, quick())
	if err != nil {
		t.Fatal(err)
	}
	if r.Valid != 1 || r.Sobol != nil || r.Landscape.Minima != 1 || r.Landscape.Proportions[0].C != 1 {
		t.Errorf("valid %d, sobol %v, minima %d, C_0 %v", r.Valid, r.Sobol, r.Landscape.Minima, r.Landscape.Proportions[0].C)
	}
	if !strings.Contains(strings.Join(r.Warnings, " "), "no Sobol indices") {
		t.Errorf("warnings %v", r.Warnings)
	}
}

// writeFile writes a hand-made recording into a test's temporary folder and opens it.
func writeFile(t *testing.T, name, content string) *result.Recording {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return open(t, path)
}

// zeroErrors is a Kernel Tuner cache whose objective, a count of errors, is 0 at its
// optimum: x = 1, 2, 3, 4 give 0, 1, 2, 0.5.
const zeroErrors = `{"device_name": "hand", "kernel_name": "hand", "problem_size": 1, "objective": "errors",
"tune_params_keys": ["x"], "tune_params": {"x": [1, 2, 3, 4]},
"cache": {
"1": {"x": 1, "errors": 0.0, "time": 1.0},
"2": {"x": 2, "errors": 1.0, "time": 1.0},
"3": {"x": 3, "errors": 2.0, "time": 1.0},
"4": {"x": 4, "errors": 0.5, "time": 1.0}}}`

// TestAnalyzeOptimumZero: the fraction of optimum of an optimum of 0 is undefined; it is
// left out with a note, and the landscape, significance and Sobol indices are reported,
// in JSON too, and drawn.
func TestAnalyzeOptimumZero(t *testing.T) {
	rec := writeFile(t, "zero.json", zeroErrors)
	r, err := Analyze(context.Background(), Input{Name: "zero", Rec: rec}, quick())
	if err != nil {
		t.Fatal(err)
	}
	a := r.Landscape
	if r.Optimum != 0 || a == nil || a.MinimaFractions != nil || !strings.Contains(a.FractionNote, "optimum is 0") {
		t.Fatalf("optimum %v, landscape %+v: want the fraction of optimum left out with a note", r.Optimum, a)
	}
	// the minima are x = 1 (0) and x = 4 (0.5); the optimum alone is within p of 0
	if a.Minima != 2 || a.ProportionAt(0) <= 0 || a.ProportionAt(0) >= 1 || a.ProportionAt(0.15) != a.ProportionAt(0) {
		t.Errorf("minima %d, C_0 %v, C_0.15 %v", a.Minima, a.ProportionAt(0), a.ProportionAt(0.15))
	}
	if len(r.Significance) != 1 || r.Sobol == nil || r.Sobol.Method != "exact" || math.Abs(r.Sobol.First[0].Value-1) > 1e-12 {
		t.Errorf("significance %v, Sobol %+v: want both, S_x = 1", r.Significance, r.Sobol)
	}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatalf("the result does not marshal: %v", err)
	}
	if !strings.Contains(string(b), `"minima_fraction_of_optimum":null`) || !strings.Contains(string(b), `"fraction_of_optimum_note":"fraction of optimum undefined`) {
		t.Errorf("JSON %s: want the fractions null and the note", b)
	}
	dir := t.TempDir()
	files, err := WriteFigures(context.Background(), []*Result{r}, dir, FigureOptions{GraphNodes: 100})
	if err != nil {
		t.Fatal(err)
	}
	names := strings.Join(files, " ")
	if strings.Contains(names, "minima.") || !strings.Contains(names, "centrality.svg") || !strings.Contains(names, "ffg-zero.svg") {
		t.Errorf("figures %v: want all but the minima figure, which has nothing to show", files)
	}
}

// constantTime is a Kernel Tuner cache of a 3×2 grid in which every configuration took
// 2 ms.
const constantTime = `{"device_name": "hand", "kernel_name": "hand", "problem_size": 1, "objective": "time",
"tune_params_keys": ["a", "b"], "tune_params": {"a": [1, 2, 3], "b": [1, 2]},
"cache": {
"1,1": {"a": 1, "b": 1, "time": 2.0}, "1,2": {"a": 1, "b": 2, "time": 2.0},
"2,1": {"a": 2, "b": 1, "time": 2.0}, "2,2": {"a": 2, "b": 2, "time": 2.0},
"3,1": {"a": 3, "b": 1, "time": 2.0}, "3,2": {"a": 3, "b": 2, "time": 2.0}}}`

// TestAnalyzeConstantObjective: a constant objective has no variance to apportion; the
// Sobol indices are left out with a warning, and the landscape and significance are
// reported.
func TestAnalyzeConstantObjective(t *testing.T) {
	rec := writeFile(t, "const.json", constantTime)
	r, err := Analyze(context.Background(), Input{Name: "const", Rec: rec}, quick())
	if err != nil {
		t.Fatal(err)
	}
	if r.Sobol != nil || !strings.Contains(strings.Join(r.Warnings, "\n"), "time is constant (2) over the 6 valid configurations: the Sobol indices") {
		t.Errorf("Sobol %+v, warnings %q: want none and a warning", r.Sobol, r.Warnings)
	}
	// all tied: every point is a minimum, all of them optimal
	if a := r.Landscape; a == nil || a.Minima != 6 || a.ProportionAt(0) != 1 {
		t.Errorf("landscape %+v", a)
	}
	if len(r.Significance) != 2 || !math.IsNaN(r.Significance[0].Pearson) {
		t.Errorf("significance %+v: want both parameters, undefined", r.Significance)
	}
	if _, err := json.Marshal(r); err != nil {
		t.Errorf("the result does not marshal: %v", err)
	}
	var notes []string
	files, err := WriteFigures(context.Background(), []*Result{r}, t.TempDir(), FigureOptions{GraphNodes: 100, Note: func(n string) { notes = append(notes, n) }})
	if err != nil {
		t.Fatal(err)
	}
	if names := strings.Join(files, " "); strings.Contains(names, "significance-") || !strings.Contains(names, "ffg-const.svg") {
		t.Errorf("figures %v: want no significance chart (nothing to draw) and the others", files)
	}
	// a figure left out is said (ktune analyze writes the notes on standard error)
	all := strings.Join(notes, "\n")
	for _, want := range []string{"const: the significance figure (significance-const) is left out", "const: the sensitivity figure (sensitivity-const) is left out"} {
		if !strings.Contains(all, want) {
			t.Errorf("notes %q lack %q", notes, want)
		}
	}
}

// TestAnalyzeTimeOfARunWithAMetricObjective: a stored run of a metric objective (GB/s)
// keeps its time as timing samples; --objective time explains their mean, minimised, as
// the run's export to Kernel Tuner gives it.
func TestAnalyzeTimeOfARunWithAMetricObjective(t *testing.T) {
	ctx := context.Background()
	rec := open(t, "../testdata/kernel_tuner/vector_add_A4000.json")
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "runs.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	spID, err := st.PutSpace(ctx, store.Space{Kernel: rec.Kernel, Params: rec.Params})
	if err != nil {
		t.Fatal(err)
	}
	devID, err := st.PutDevice(ctx, store.Device{Name: rec.Device})
	if err != nil {
		t.Fatal(err)
	}
	runID, err := st.CreateRun(ctx, store.RunInfo{SpaceID: spID, DeviceID: devID, Kind: store.KindTuning, Strategy: "brute_force",
		Objective: "GB/s", Maximize: true})
	if err != nil {
		t.Fatal(err)
	}
	// as 'ktune tune' stores a run of objective GB/s: the metric, the samples, no time
	const gb = 12 * (1 << 20) / 1e9 // the GB vector_add moves
	fastest := math.Inf(1)
	evs := make([]result.Evaluation, len(rec.Evaluations))
	for i, e := range rec.Evaluations {
		mean := 0.0
		for _, s := range e.Samples {
			mean += s / float64(len(e.Samples))
		}
		fastest = math.Min(fastest, mean)
		evs[i] = result.Evaluation{Config: e.Config, Status: result.OK, Objective: gb / (mean / 1e3),
			Samples: e.Samples, Metrics: map[string]float64{"GB/s": gb / (mean / 1e3)}}
	}
	if err := st.AddEvaluations(ctx, runID, evs); err != nil {
		t.Fatal(err)
	}
	info, err := st.Run(ctx, runID)
	if err != nil {
		t.Fatal(err)
	}
	back, err := st.Recording(ctx, runID)
	if err != nil {
		t.Fatal(err)
	}
	o := quick()
	o.Objective = "time"
	r, err := Analyze(ctx, Input{Name: "run", Rec: back, Run: &info}, o)
	if err != nil {
		t.Fatal(err)
	}
	if r.Objective != "time" || r.Maximize || r.Valid != len(evs) || math.Abs(r.Optimum-fastest) > 1e-12*fastest {
		t.Errorf("objective %q maximize %v valid %d optimum %v; want time, minimised, %d valid, optimum %v",
			r.Objective, r.Maximize, r.Valid, r.Optimum, len(evs), fastest)
	}
	o.Objective = "energy"
	if _, err := Analyze(ctx, Input{Name: "run", Rec: back, Run: &info}, o); err == nil || !strings.Contains(err.Error(), "have GB/s, time") {
		t.Errorf("an unknown objective: %v, want the time among those available", err)
	}
}

// TestAnalyzeASparseRecordingOfAHugeProduct: recorded mode analyses the configurations a
// recording holds even where the product of its value lists (20^16) is more than an int.
func TestAnalyzeASparseRecordingOfAHugeProduct(t *testing.T) {
	rec := &result.Recording{Format: "test", Objective: "time", Params: make([]space.Param, 16)}
	for p := range rec.Params {
		rec.Params[p].Name = fmt.Sprintf("p%d", p)
		for v := range 20 {
			rec.Params[p].Values = append(rec.Params[p].Values, space.IntValue(int64(v)))
		}
	}
	for i := range 60 {
		cfg := make([]space.Value, 16)
		cfg[0], cfg[1] = space.IntValue(int64(i%20)), space.IntValue(int64(i/20))
		for p := 2; p < len(cfg); p++ {
			cfg[p] = space.IntValue(int64((i*(p+3) + p*p) % 20))
		}
		rec.Evaluations = append(rec.Evaluations, result.Evaluation{Config: cfg, Status: result.OK, Objective: 1 + float64(i%20) + 0.1*float64(i/20)})
	}
	r, err := Analyze(context.Background(), Input{Name: "wide", Rec: rec}, quick())
	if err != nil {
		t.Fatal(err)
	}
	// 60 configurations for 16 parameters of 20 values each: too few for Sobol indices
	if r.Configurations != 60 || r.Landscape == nil || r.Landscape.Points != 60 || r.Sobol != nil || len(r.Significance) != 16 {
		t.Errorf("configurations %d, landscape %+v, Sobol %v, %d correlations", r.Configurations, r.Landscape, r.Sobol != nil, len(r.Significance))
	}
	o := quick()
	o.Mode = simulator.Cartesian
	if _, err := Analyze(context.Background(), Input{Name: "wide", Rec: rec}, o); !errors.Is(err, space.ErrTooLarge) {
		t.Errorf("cartesian mode: %v, want ErrTooLarge", err)
	}
}

// TestAnalyzeEmpiricalSobolOfASmallSample cuts a recorded space (Kernel Tuner's GEMM on
// an RTX 3090) to samples as a short tuning run leaves: too small a sample for its
// parameters' values gets no indices, and a sample whose indices are not shares of the
// variance (a tuner's best and worst, dependent parameters) gets them with a caveat.
func TestAnalyzeEmpiricalSobolOfASmallSample(t *testing.T) {
	rec := open(t, "../testdata/benchmark_hub/kerneltuner_gemm/RTX_3090.json.gz")
	var ok []result.Evaluation
	for _, e := range rec.Evaluations {
		if !e.Failed() {
			ok = append(ok, e)
		}
	}
	cut := func(evs []result.Evaluation) *Result {
		t.Helper()
		c := *rec
		c.Evaluations = evs
		o := quick()
		o.Landscape = false
		r, err := Analyze(context.Background(), Input{Name: "cut", Rec: &c}, o)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}

	// 40 spread over the space: 15 parameters taking 22 values less one between them
	var spread []result.Evaluation
	for i := 0; len(spread) < 40; i += len(ok) / 40 {
		spread = append(spread, ok[i])
	}
	r := cut(spread)
	if w := strings.Join(r.Warnings, "\n"); r.Sobol != nil || !strings.Contains(w, "too few for empirical Sobol indices (44 or more, twice the 22 terms") {
		t.Errorf("40 configurations for 15 parameters: Sobol %v, warnings %q", r.Sobol != nil, w)
	}

	// the 30 best and the 30 worst
	sort.SliceStable(ok, func(a, b int) bool { return ok[a].Objective < ok[b].Objective })
	r = cut(append(slices.Clone(ok[:30]), ok[len(ok)-30:]...))
	if r.Sobol == nil || r.Sobol.Method != "empirical" {
		t.Fatalf("60 configurations: Sobol %+v, warnings %q", r.Sobol, r.Warnings)
	}
	sum := 0.0
	for _, f := range r.Sobol.First {
		sum += f.Value
	}
	for _, want := range []string{fmt.Sprintf("the first-order indices sum to %.2f", sum), "total-order indices fall below their first order",
		"With 60 configurations for 15 parameters", "(k-1)/59", "rough ranking at best"} {
		if sum <= 1 || !strings.Contains(r.SobolWarning, want) || !slices.Contains(r.Warnings, r.SobolWarning) {
			t.Errorf("first orders summing to %.2f: caveat %q lacks %q (or is not among the warnings)", sum, r.SobolWarning, want)
		}
	}

	// the whole recorded space: the indices stand (a few totals below first orders are
	// the lower bounds' doing, as the note says)
	if r := cut(rec.Evaluations); r.Sobol == nil || r.SobolWarning != "" {
		t.Errorf("the whole recording: Sobol %v, caveat %q", r.Sobol != nil, r.SobolWarning)
	}
}

// TestAnalyzeStopsWhenCancelledDuringTheIndices: Ctrl-C during the bootstrap of the Sobol
// indices (minutes for thousands of resamples of a large space) ends the analysis with the
// context's error, not after every resample.
func TestAnalyzeStopsWhenCancelledDuringTheIndices(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	o := Defaults()
	o.Landscape, o.Bootstrap = false, 1_000_000
	o.Step = func(part string) {
		if strings.HasPrefix(part, "parameter sensitivity") {
			cancel()
		}
	}
	start := time.Now()
	r, err := Analyze(ctx, Input{Name: "pnpoly", Rec: open(t, pnpoly)}, o)
	if !errors.Is(err, context.Canceled) || r != nil {
		t.Errorf("Analyze cancelled before the indices: %v, %v; want context.Canceled", r, err)
	}
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("Analyze took %v to stop", took)
	}
}

// A program that analyses a recording without naming it gets results and errors named by
// the file the recording came from, where each error began with ": "; a missing recording
// is an error, not a panic.
func TestAnalyzeAnUnnamedInput(t *testing.T) {
	ctx := context.Background()
	if _, err := Analyze(ctx, Input{}, quick()); err == nil || !strings.Contains(err.Error(), "Input.Rec is nil") {
		t.Errorf("Analyze without a recording = %v, want an error saying so", err)
	}
	rec := open(t, pnpoly)
	o := quick()
	o.Objective = "no_such_metric"
	_, err := Analyze(ctx, Input{Rec: rec}, o)
	if err == nil || !strings.HasPrefix(err.Error(), pnpoly+": ") {
		t.Errorf("Analyze of an unknown objective = %v, want an error that begins with the recording's file", err)
	}
	o.Objective = ""
	r, err := Analyze(ctx, Input{Rec: rec}, o)
	if err != nil {
		t.Fatal(err)
	}
	if r.Name != pnpoly {
		t.Errorf("Name = %q, want the recording's file %q", r.Name, pnpoly)
	}
	empty := &result.Recording{}
	if _, err := Analyze(ctx, Input{Rec: empty}, o); err == nil || !strings.HasPrefix(err.Error(), "recording: nothing to analyse") {
		t.Errorf("Analyze of a recording of nothing, from nowhere = %v", err)
	}
}

// TestAnalyzeSelection analyses a selection of a whole recording (a filter's, as the
// dashboard's): its space is the whole's, so it is partial, and the warning counts the
// selection against the whole rather than calling the selection what the recording holds.
func TestAnalyzeSelection(t *testing.T) {
	ctx := context.Background()
	rec := open(t, pnpoly)
	whole, err := Analyze(ctx, Input{Name: "pnpoly", Rec: rec}, quick())
	if err != nil {
		t.Fatal(err)
	}
	if whole.Partial {
		t.Fatalf("the whole recording reads as partial: %v", whole.Warnings)
	}
	sel := *rec
	sel.Evaluations = nil
	for i, e := range rec.Evaluations {
		if i%3 == 0 {
			sel.Evaluations = append(sel.Evaluations, e)
		}
	}
	r, err := Analyze(ctx, Input{Name: "pnpoly", Rec: &sel, Of: rec}, quick())
	if err != nil {
		t.Fatal(err)
	}
	if !r.Partial || r.Configurations != whole.Configurations || r.Evaluated != len(sel.Evaluations) {
		t.Errorf("partial %v, %d configurations, %d evaluated; want partial, %d, %d", r.Partial, r.Configurations, r.Evaluated, whole.Configurations, len(sel.Evaluations))
	}
	want := fmt.Sprintf("%d of the recording's %d evaluations match the filters, %d distinct configurations of the %d in its space: the landscape covers those only, the indices are estimated from them",
		len(sel.Evaluations), len(rec.Evaluations), len(sel.Evaluations), whole.Configurations)
	if !slices.Contains(r.Warnings, want) {
		t.Errorf("warnings %q, want %q", r.Warnings, want)
	}
	// without Of the selection is a recording of its own, whole
	alone, err := Analyze(ctx, Input{Name: "pnpoly", Rec: &sel}, quick())
	if err != nil {
		t.Fatal(err)
	}
	if alone.Partial || alone.Configurations != len(sel.Evaluations) {
		t.Errorf("alone: partial %v, %d configurations; want whole, %d", alone.Partial, alone.Configurations, len(sel.Evaluations))
	}
}

// A configuration found wrong in a real recording (pnpoly's fastest, given a wrong_answer
// evaluation before its success, which the simulator keeps, or after it, as a check after
// dynamic tuning stores one) is analysed as a failure: the optimum is the runner-up's, the
// landscape counts one more failed point, the significance leaves it out, and a warning
// says so.
func TestAnalyzeCountsAConfigurationFoundWrongAsFailed(t *testing.T) {
	for _, before := range []bool{true, false} {
		rec := open(t, pnpoly)
		total, succeeded := rec.Counts() // one evaluation per configuration
		best, next := -1, -1
		for i := range rec.Evaluations {
			if e := &rec.Evaluations[i]; !e.Failed() && (best < 0 || e.Objective < rec.Evaluations[best].Objective) {
				best = i
			}
		}
		for i := range rec.Evaluations {
			if e := &rec.Evaluations[i]; !e.Failed() && i != best && (next < 0 || e.Objective < rec.Evaluations[next].Objective) {
				next = i
			}
		}
		want, nextConfig := rec.Evaluations[next].Objective, formatValues(rec.Params, rec.Evaluations[next].Config)
		found := result.Evaluation{Config: rec.Evaluations[best].Config, Status: result.WrongAnswer, Objective: math.NaN(),
			Message: "found wrong by a check on call 3, after tuning (against the reference)"}
		if before {
			rec.Evaluations = append([]result.Evaluation{found}, rec.Evaluations...)
		} else {
			rec.Evaluations = append(rec.Evaluations, found)
		}
		r, err := Analyze(context.Background(), Input{Name: "pnpoly", Rec: rec}, quick())
		if err != nil {
			t.Fatal(err)
		}
		if r.Optimum != want || r.OptimumConfig.String() != nextConfig {
			t.Errorf("wrong answer first %v: optimum %g at %s, want the runner-up's %g at %s", before, r.Optimum, r.OptimumConfig, want, nextConfig)
		}
		if r.Evaluated != total || r.Valid != succeeded-1 || r.Significance[0].N != succeeded-1 {
			t.Errorf("wrong answer first %v: %d evaluated, %d valid, significance over %d; want %d, %d, %d",
				before, r.Evaluated, r.Valid, r.Significance[0].N, total, succeeded-1, succeeded-1)
		}
		if a := r.Landscape; a.Optimum != want || a.Failed != total-succeeded+1 || a.MinimaFractions[0] > 1 {
			t.Errorf("wrong answer first %v: landscape optimum %g, %d failed, best minimum at %g of the optimum; want %g, %d, at most 1",
				before, a.Optimum, a.Failed, a.MinimaFractions[0], want, total-succeeded+1)
		}
		warned := slices.ContainsFunc(r.Warnings, func(w string) bool {
			return strings.HasPrefix(w, "one configuration that ran successfully has a wrong_answer evaluation in the recording as well (the first: "+
				formatValues(rec.Params, found.Config)+"): it computes wrong answers on some input, so the analysis counts it as failed")
		})
		if !warned {
			t.Errorf("wrong answer first %v: no warning of the configuration found wrong in %q", before, r.Warnings)
		}
	}
}

// A selection that hides the wrong answers (the dashboard's status filter) still analyses
// the configuration found wrong in the whole run as failed.
func TestAnalyzeASelectionPassesOverAConfigurationFoundWrongInTheWhole(t *testing.T) {
	rec := open(t, pnpoly)
	best, next := -1, -1
	for i := range rec.Evaluations {
		if e := &rec.Evaluations[i]; !e.Failed() && (best < 0 || e.Objective < rec.Evaluations[best].Objective) {
			best = i
		}
	}
	for i := range rec.Evaluations {
		if e := &rec.Evaluations[i]; !e.Failed() && i != best && (next < 0 || e.Objective < rec.Evaluations[next].Objective) {
			next = i
		}
	}
	want := rec.Evaluations[next].Objective
	rec.Evaluations = append(rec.Evaluations, result.Evaluation{Config: rec.Evaluations[best].Config, Status: result.WrongAnswer, Objective: math.NaN()})
	sel := *rec
	sel.Evaluations = nil
	for _, e := range rec.Evaluations {
		if e.Status != result.WrongAnswer {
			sel.Evaluations = append(sel.Evaluations, e)
		}
	}
	o := quick()
	o.Parameters = false
	r, err := Analyze(context.Background(), Input{Name: "pnpoly", Rec: &sel, Of: rec}, o)
	if err != nil {
		t.Fatal(err)
	}
	if r.Optimum != want || r.Landscape.Optimum != want {
		t.Errorf("optimum %g, landscape's %g; want the runner-up's %g: the fastest was found wrong in the whole run", r.Optimum, r.Landscape.Optimum, want)
	}
}
