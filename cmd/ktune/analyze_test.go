package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"html"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const coulomb = "../../testdata/ktt/coulomb_sum_3d/RTX_2080_Ti.json.gz"

type analyzeJSON struct {
	Results []struct {
		Name          string   `json:"name"`
		Warnings      []string `json:"warnings"`
		Configs       int      `json:"configurations"`
		Valid         int      `json:"valid"`
		Optimum       float64  `json:"optimum"`
		LandscapeMode string   `json:"landscape_mode"`
		Landscape     *struct {
			Minima      int `json:"minima"`
			Points      int `json:"points"`
			Proportions []struct {
				P, C float64
			} `json:"proportion_of_centrality"`
		} `json:"landscape"`
		Significance []map[string]any `json:"significance"`
		Sobol        *struct {
			Method string `json:"method"`
		} `json:"sobol"`
		Saltelli *struct {
			Method    string `json:"method"`
			Samples   int    `json:"samples"`
			Bootstrap int    `json:"bootstrap"`
		} `json:"saltelli"`
	} `json:"results"`
	Difficulty []struct {
		Strategy string     `json:"strategy"`
		Budget   int        `json:"budget"`
		Spaces   int        `json:"spaces"`
		Rho      []*float64 `json:"spearman"`
	} `json:"difficulty"`
	Figures []string `json:"figures"`
}

func TestAnalyzeRecordedSpaceJSONAndFigures(t *testing.T) {
	dir := t.TempDir()
	out, errOut, code := ktune(t, "analyze", coulomb, pnpoly, "--bootstrap", "20", "--json", "--plot", dir, "--graph-nodes", "500")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var got analyzeJSON
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if len(got.Results) != 2 || got.Results[0].Name != "coulomb_sum_3d/RTX_2080_Ti" || got.Results[1].Name != "kerneltuner_pnpoly/RTX_2080_Ti" {
		t.Fatalf("results %+v", got.Results)
	}
	for _, r := range got.Results {
		if r.Landscape == nil || r.Landscape.Minima == 0 || len(r.Landscape.Proportions) != 16 || r.Sobol == nil || len(r.Significance) == 0 {
			t.Errorf("%s: incomplete analysis %+v", r.Name, r)
		}
	}
	// the optimum's configuration is an object of names to values, in the parameters'
	// order, as runs, import and tune write a best configuration
	var raw struct {
		Results []struct {
			Optimum json.RawMessage `json:"optimum_configuration"`
		} `json:"results"`
	}
	if err := json.Unmarshal([]byte(out), &raw); err != nil {
		t.Fatal(err)
	}
	if want := `{"between_method":3,"block_size_x":448,"tile_size":20,"use_method":0}`; strings.Join(strings.Fields(string(raw.Results[1].Optimum)), "") != want {
		t.Errorf("pnpoly's optimum_configuration %s, want %s", raw.Results[1].Optimum, want)
	}
	// Fig. 3 and 7 for both spaces together; the flow graph only for the small one.
	for _, f := range []string{"minima.svg", "minima.png", "centrality.svg", "ffg-coulomb_sum_3d-RTX_2080_Ti.svg",
		"significance-kerneltuner_pnpoly-RTX_2080_Ti.svg", "sensitivity-kerneltuner_pnpoly-RTX_2080_Ti.png"} {
		if fi, err := os.Stat(filepath.Join(dir, f)); err != nil || fi.Size() == 0 {
			t.Errorf("figure %s: %v", f, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "ffg-kerneltuner_pnpoly-RTX_2080_Ti.svg")); err == nil {
		t.Error("drew the flow graph of a space above --graph-nodes")
	}
}

func TestAnalyzeTextNamesWhatItShows(t *testing.T) {
	out, errOut, code := ktune(t, "analyze", coulomb, "--bootstrap", "0", "--neighbourhood", "Hamming")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"coulomb_sum_3d/RTX_2080_Ti", "Hamming neighbourhood", "local minima", "proportion of centrality",
		"significance", "Pearson", "Spearman", "Sobol indices", "first order", "total order"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestAnalyzeBadInputNamesTheProblem(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"analyze"}, "give recorded files or --run"},
		{[]string{"analyze", coulomb, "--neighbourhood", "diagonal"}, "diagonal"},
		{[]string{"analyze", coulomb, "--objective", "joules"}, `no objective or metric named "joules"`},
		{[]string{"analyze", coulomb, "--params", "nope"}, `no parameter "nope"`},
		// told before reading the inputs, which need not exist
		{[]string{"analyze", "absent.json", "--params", "tile_size,tile_size"}, "--params names tile_size twice"},
		{[]string{"analyze", "absent.json", "--params", "tile_size,"}, `--params "tile_size,": an empty parameter name`},
		// a --plot that cannot hold figures, said before the analysis whose output it would lose
		{[]string{"analyze", "absent.json", "--plot", coulomb}, "--plot " + coulomb + ": cannot write figures there"},
		{[]string{"analyze", "../../testdata/t1/README.md"}, "unknown file format"},
		{[]string{"analyze", "../../testdata/t1/bat"}, "no recorded space in ../../testdata/t1/bat"},
		{[]string{"analyze", "--run", "1", "--db", filepath.Join(t.TempDir(), "none.db")}, "no results database at"},
		{[]string{"analyze", "--run", "1,x2", "--db", filepath.Join(t.TempDir(), "none.db")}, `--run "x2": not a run id`},
	} {
		_, errOut, code := ktune(t, tt.args...)
		if code == 0 || !strings.Contains(errOut, tt.want) {
			t.Errorf("%v: exit %d, stderr %q, want it to mention %q", tt.args, code, errOut, tt.want)
		}
	}
}

// TestAnalyzeCorrelatesCentralityWithABenchmark runs a real benchmark over three spaces
// and correlates its results with the spaces' proportion of centrality.
func TestAnalyzeCorrelatesCentralityWithABenchmark(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a benchmark")
	}
	dir := t.TempDir()
	spaces := []string{coulomb, pnpoly, "../../testdata/benchmark_hub/ktt_pnpoly/RTX_2080_Ti.json.gz"}
	args := append([]string{"bench"}, spaces...)
	args = append(args, "--strategies", "firstmls,random", "--budgets", "25,100", "--repeats", "5", "--mode", "recorded", "--json")
	out, errOut, code := ktune(t, args...)
	if code != 0 {
		t.Fatalf("bench: exit %d: %s", code, errOut)
	}
	out0 := out
	if !strings.Contains(out0, `"mode": "recorded"`) {
		t.Fatalf("the bench JSON does not say its mode")
	}
	bench := filepath.Join(dir, "bench.json")
	if err := os.WriteFile(bench, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	args = append([]string{"analyze"}, spaces...)
	args = append(args, "--parameters=false", "--bench", bench, "--json")
	out, errOut, code = ktune(t, args...)
	if code != 0 {
		t.Fatalf("analyze: exit %d: %s", code, errOut)
	}
	var got analyzeJSON
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Difficulty) != 4 {
		t.Fatalf("difficulty rows %+v, want 2 strategies x 2 budgets", got.Difficulty)
	}
	// the landscapes are those of the mode the benchmark ran in (analyze's own default is
	// recorded); another --mode is said
	cart := filepath.Join(dir, "cartesian.json")
	if err := os.WriteFile(cart, []byte(strings.Replace(out0, `"mode": "recorded"`, `"mode": "cartesian"`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	var asBench analyzeJSON
	if out, errOut, code := ktune(t, append(append([]string{"analyze"}, spaces...), "--parameters=false", "--bench", cart, "--json")...); code != 0 {
		t.Errorf("analyze --bench %s: exit %d, %s", cart, code, errOut)
	} else if err := json.Unmarshal([]byte(out), &asBench); err != nil || asBench.Results[0].LandscapeMode != "cartesian" {
		t.Errorf("landscape mode %+v (%v), want the benchmark's cartesian", asBench.Results[0].LandscapeMode, err)
	} else if !strings.Contains(errOut, cart+" was benchmarked in cartesian mode, so the landscapes are analysed in cartesian mode too") {
		t.Errorf("the switch to the benchmark's mode is not said: %q", errOut)
	}
	if _, errOut, _ := ktune(t, args...); strings.Contains(errOut, "note:") {
		t.Errorf("a benchmark in analyze's default mode, recorded, drew a note: %q", errOut)
	}
	if _, errOut, code := ktune(t, append(args, "--mode", "cartesian")...); code != 0 ||
		!strings.Contains(errOut, "was benchmarked in recorded mode and the landscapes are analysed in cartesian mode") {
		t.Errorf("--mode against the benchmark's: exit %d, %s", code, errOut)
	}
	for _, d := range got.Difficulty {
		if d.Spaces != 3 || len(d.Rho) != 16 {
			t.Errorf("%+v", d)
		}
		for _, r := range d.Rho {
			if r != nil && (*r < -1 || *r > 1) {
				t.Errorf("rho %v out of range", *r)
			}
		}
	}
}

var dataURI = regexp.MustCompile(`<img src="data:image/svg\+xml;base64,([A-Za-z0-9+/=]+)"`)

// TestReportOfAnImportedRunIsSelfContained imports a recorded space into a real database
// and writes the report of that run.
func TestReportOfAnImportedRunIsSelfContained(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "k.db")
	if _, errOut, code := ktune(t, "import", coulomb, "--db", db); code != 0 {
		t.Fatalf("import: %s", errOut)
	}
	out := filepath.Join(dir, "r.html")
	stdout, errOut, code := ktune(t, "report", "1", "--db", db, "-o", out, "--bootstrap", "20")
	if code != 0 || !strings.Contains(stdout, out) {
		t.Fatalf("report: exit %d: %s %s", code, stdout, errOut)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	page := html.UnescapeString(string(data)) // attribute values may carry entities
	for _, want := range []string{"<!DOCTYPE html>", "Run 1: directCoulombSum_kernel", "Best configurations", "Convergence",
		"Landscape", "Parameter significance", "Sensitivity (Sobol indices)", "Proportion of centrality"} {
		if !strings.Contains(page, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	imgs := dataURI.FindAllStringSubmatch(page, -1)
	if len(imgs) < 5 {
		t.Errorf("%d embedded figures, want convergence, minima, centrality, flow graph, significance, sensitivity", len(imgs))
	}
	for _, m := range imgs {
		svg, err := base64.StdEncoding.DecodeString(m[1])
		if err != nil || !strings.Contains(string(svg), "<svg") {
			t.Errorf("embedded figure is not an SVG: %v", err)
		}
	}
	if strings.Contains(page, `src="http`) || strings.Contains(page, `href="http`) {
		t.Error("the report loads something from the network")
	}
}

func TestReportOfABenchmark(t *testing.T) {
	dir := t.TempDir()
	out, errOut, code := ktune(t, "bench", coulomb, "--strategies", "random,firstmls", "--budgets", "10,250", "--repeats", "4", "--mode", "recorded", "--json")
	if code != 0 {
		t.Fatalf("bench: %s", errOut)
	}
	out0 := out
	if !strings.Contains(out0, `"mode": "recorded"`) {
		t.Fatalf("the bench JSON does not say its mode")
	}
	page := benchReport(t, dir, out)
	for _, want := range []string{"Strategy benchmark", "Competition", "Space coulomb_sum_3d/RTX_2080_Ti", "firstmls", "random"} {
		if !strings.Contains(page, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	if n := len(dataURI.FindAllString(page, -1)); n != 3 {
		t.Errorf("%d figures, want two heat maps and one curve figure", n)
	}
}

// benchReport writes the output of 'ktune bench --json' to dir/bench.json and returns the
// text of the page 'ktune report' makes of it, its entities unescaped (attribute values
// may carry them).
func benchReport(t *testing.T, dir, benchJSON string) string {
	t.Helper()
	bench := filepath.Join(dir, "bench.json")
	if err := os.WriteFile(bench, []byte(benchJSON), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, errOut, code := ktune(t, "report", bench); code != 0 {
		t.Fatalf("report: %s", errOut)
	}
	data, err := os.ReadFile(filepath.Join(dir, "bench.html"))
	if err != nil {
		t.Fatal(err)
	}
	return html.UnescapeString(string(data))
}

// With one strategy there is no competition: the table, the figures and the page say so
// rather than show it with no wins and no losses, and draw no heat map (QA: the page
// described heat maps it did not have).
func TestBenchOfOneStrategyHasNoCompetition(t *testing.T) {
	dir := t.TempDir()
	args := []string{"bench", coulomb, "--strategies", "random", "--budgets", "10,250", "--repeats", "2", "--mode", "recorded", "--workers", "1"}
	out, errOut, code := ktune(t, append(args, "--plot", filepath.Join(dir, "plots"))...)
	if code != 0 {
		t.Fatalf("bench: %s", errOut)
	}
	if !strings.Contains(out, "\ncompetition: none, with one strategy (its t-tests compare pairs of strategies)\n") || strings.Contains(out, "low   0 / 0") {
		t.Errorf("the table shows a competition:\n%s", out)
	}
	if strings.Contains(out, "competition-") || !strings.Contains(out, "figure: "+filepath.Join(dir, "plots", "curves-coulomb_sum_3d_RTX_2080_Ti.svg")) {
		t.Errorf("figures:\n%s", out)
	}
	out, errOut, code = ktune(t, append(args, "--json")...)
	if code != 0 {
		t.Fatalf("bench --json: %s", errOut)
	}
	page := benchReport(t, dir, out)
	if !strings.Contains(page, "None: the benchmark ran one strategy, random, and the competition of") || strings.Contains(page, "In the heat maps") {
		t.Errorf("the page's competition is not said to be none")
	}
	if n := len(dataURI.FindAllString(page, -1)); n != 1 {
		t.Errorf("%d figures, want the curves alone", n)
	}
}

// The --checkpoint file of 'ktune bench' reports as its --json output does: the pages
// differ only in the subtitle, which says what the file holds (and the footer's minute); the competition is computed
// from the cells at the benchmark's alpha.
func TestReportOfABenchCheckpoint(t *testing.T) {
	dir := t.TempDir()
	ckpt := filepath.Join(dir, "ckpt.json")
	out, errOut, code := ktune(t, "bench", pnpoly, "--strategies", "random,firstils", "--budgets", "25,100", "--repeats", "3",
		"--alpha", "0.1", "--json", "--checkpoint", ckpt)
	if code != 0 {
		t.Fatalf("bench: %s", errOut)
	}
	bench := filepath.Join(dir, "bench.json")
	if err := os.WriteFile(bench, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	page := func(in string) string {
		t.Helper()
		html := filepath.Join(dir, filepath.Base(in)+".html")
		if _, errOut, code := ktune(t, "report", in, "-o", html); code != 0 {
			t.Fatalf("report %s: exit %d: %s", in, code, errOut)
		}
		data, err := os.ReadFile(html)
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	subtitle := regexp.MustCompile(`<p class="sub">[^<]*</p>`)
	fromJSON, fromCkpt := page(bench), page(ckpt)
	if sub := html.UnescapeString(subtitle.FindString(fromCkpt)); !strings.Contains(sub, "a --checkpoint file with all the benchmark's 4 cells") {
		t.Errorf("the checkpoint's subtitle %q does not say what it holds", sub)
	}
	if !strings.Contains(fromCkpt, "Two-sample t-tests (alpha 0.1)") {
		t.Error("the checkpoint's competition is not at the benchmark's alpha")
	}
	// The footer says the minute each page was written, which two reports can straddle.
	footer := regexp.MustCompile(`<footer>Written by ktune on [^<]*</footer>`)
	strip := func(page string) string { return footer.ReplaceAllString(subtitle.ReplaceAllString(page, ""), "") }
	if strip(fromJSON) != strip(fromCkpt) {
		t.Error("the pages of the --json output and the --checkpoint file differ beyond their subtitles and footers")
	}

	// a benchmark that crashed after two cells: the page says how many it lacks
	var saved map[string]json.RawMessage
	data, err := os.ReadFile(ckpt)
	if err != nil {
		t.Fatal(err)
	}
	var cells []json.RawMessage
	if err := json.Unmarshal(data, &saved); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(saved["cells"], &cells); err != nil || len(cells) != 4 {
		t.Fatalf("%d cells in the checkpoint: %v", len(cells), err)
	}
	if saved["cells"], err = json.Marshal(cells[:2]); err != nil {
		t.Fatal(err)
	}
	partial := filepath.Join(dir, "partial.json")
	if data, err = json.Marshal(saved); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(partial, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if sub := html.UnescapeString(subtitle.FindString(page(partial))); !strings.Contains(sub, "a --checkpoint file with 2 of the benchmark's 4 cells") {
		t.Errorf("a partial checkpoint's subtitle %q does not say it lacks cells", sub)
	}

	help, _, _ := ktune(t, "report", "--help")
	if !strings.Contains(help, "--checkpoint file") {
		t.Error("report --help does not say it takes bench's --checkpoint file")
	}
}

// The files 'ktune hypertune' writes are not benchmarks: report says what each is and what
// it takes, rather than not knowing the format.
func TestReportRefusesHypertuneFiles(t *testing.T) {
	dir := t.TempDir()
	ckpt, defaults, jsonOut := filepath.Join(dir, "ckpt.json"), filepath.Join(dir, "firstils.defaults.json"), filepath.Join(dir, "out.json")
	out, errOut, code := ktune(t, "hypertune", pnpoly, "--strategy", "firstils", "--grid", "perturbation_size=0.1,0.2",
		"--budgets", "25", "--repeats", "2", "--checkpoint", ckpt, "--out", defaults, "--json")
	if code != 0 {
		t.Fatalf("hypertune: exit %d: %s", code, errOut)
	}
	if err := os.WriteFile(jsonOut, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ file, want string }{
		{ckpt, "the --json output or --checkpoint file of 'ktune hypertune' (strategy firstils)"},
		{jsonOut, "the --json output or --checkpoint file of 'ktune hypertune' (strategy firstils)"},
		{defaults, "a defaults file of 'ktune hypertune' (strategy firstils)"},
	} {
		_, errOut, code := ktune(t, "report", tt.file, "-o", filepath.Join(dir, "r.html"))
		if code != 1 || !strings.Contains(errOut, tt.want) || !strings.Contains(errOut, "report takes a run id, the --json output or --checkpoint file of 'ktune bench'") {
			t.Errorf("report %s: exit %d: %s", filepath.Base(tt.file), code, errOut)
		}
	}
	if fileExists(filepath.Join(dir, "r.html")) {
		t.Error("a page was written")
	}
}

func TestReportOfARecordedFile(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "space.html")
	if _, errOut, code := ktune(t, "report", "../../testdata/kernel_tuner/time_energy.json", "-o", out, "--objective", "GFLOPS/W", "--bootstrap", "20"); code != 0 {
		t.Fatalf("report: %s", errOut)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if page := string(data); !strings.Contains(page, "GFLOPS/W (higher is better)") || !strings.Contains(page, "nvml_gr_clock") {
		t.Errorf("report of a recorded file with a metric objective lacks it")
	}
}

// TestSaltelliRunOnARealDeviceIsAnalysed measures a Saltelli design with the host C
// compiler and estimates the Sobol indices from the stored run.
func TestSaltelliRunOnARealDeviceIsAnalysed(t *testing.T) {
	needBackend(t, "c")
	if testing.Short() {
		t.Skip("compiles and runs kernels")
	}
	db := filepath.Join(t.TempDir(), "k.db")
	if _, errOut, code := ktune(t, "tune", "../../examples/vector_add/vector_add_c.yaml", "--strategy", "saltelli", "--budget", "15", "--db", db, "--json"); code != 0 {
		t.Fatalf("tune: %s", errOut)
	}
	out, errOut, code := ktune(t, "analyze", "1", "--db", db, "--bootstrap", "20", "--json")
	if code != 0 {
		t.Fatalf("analyze: %s", errOut)
	}
	var got analyzeJSON
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	r := got.Results[0]
	if r.Saltelli == nil || r.Saltelli.Method != "saltelli" || r.Saltelli.Samples == 0 {
		t.Fatalf("no Saltelli estimate from the run: %+v", r.Saltelli)
	}
	if r.Saltelli.Bootstrap != 20 {
		t.Errorf("the Saltelli intervals took %d resamples, not --bootstrap's 20", r.Saltelli.Bootstrap)
	}
	// --bootstrap 0: no intervals, for the design's estimates too
	out, errOut, code = ktune(t, "analyze", "1", "--db", db, "--bootstrap", "0", "--json")
	if code != 0 {
		t.Fatalf("analyze --bootstrap 0: %s", errOut)
	}
	var none analyzeJSON
	if err := json.Unmarshal([]byte(out), &none); err != nil {
		t.Fatal(err)
	}
	if s := none.Results[0].Saltelli; s == nil || s.Bootstrap != 0 {
		t.Errorf("--bootstrap 0 gave the Saltelli estimate intervals: %+v", s)
	}
	// a design of a few base samples is noise: said beside its estimates
	if r.Saltelli.Samples < 32 && !strings.Contains(strings.Join(r.Warnings, "\n"), "its estimates are noise") {
		t.Errorf("no warning on a Saltelli design of %d base samples: %q", r.Saltelli.Samples, r.Warnings)
	}
	// the run's few configurations are too few for empirical indices: said, not shown
	if r.Sobol != nil || r.Valid == 0 || !strings.Contains(strings.Join(r.Warnings, "\n"), "too few for empirical Sobol indices") {
		t.Errorf("empirical indices of %d configurations: %+v", r.Valid, r)
	}
	// the objective is GB/s; the README explains the run's time all the same
	out, errOut, code = ktune(t, "analyze", "--run", "1", "--db", db, "--objective", "time", "--bootstrap", "0", "--json")
	var byTime struct {
		Results []struct {
			Objective string  `json:"objective"`
			Maximize  bool    `json:"maximize"`
			Valid     int     `json:"valid"`
			Optimum   float64 `json:"optimum"`
		} `json:"results"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &byTime) != nil || len(byTime.Results) != 1 {
		t.Fatalf("analyze --objective time: exit %d, stderr %q", code, errOut)
	}
	if bt := byTime.Results[0]; bt.Objective != "time" || bt.Maximize || bt.Valid != r.Valid || !(bt.Optimum > 0) {
		t.Errorf("--objective time: %+v", bt)
	}
}

// allFailed is a Kernel Tuner cache in which no configuration succeeded.
const allFailed = `{"schema_version": "1.0.0", "device_name": "cpu", "kernel_name": "faulty", "problem_size": 4096,
"tune_params_keys": ["fault", "copy"], "tune_params": {"fault": [1, 2], "copy": [0, 1]}, "objective": "time",
"cache": {
"1,0": {"fault": 1, "copy": 0, "time": "CompilationFailedConfig"},
"1,1": {"fault": 1, "copy": 1, "time": "CompilationFailedConfig"},
"2,0": {"fault": 2, "copy": 0, "time": "RuntimeFailedConfig"},
"2,1": {"fault": 2, "copy": 1, "time": "RuntimeFailedConfig"}}}`

func TestAnalyzeAFolderGoesOnPastASpaceWithoutSuccesses(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "allfailed.json"), []byte(allFailed), 0o644); err != nil {
		t.Fatal(err)
	}
	copyTo(t, pnpoly, filepath.Join(dir, "sub", "pnpoly.json.gz"))
	out, errOut, code := ktune(t, "analyze", dir, "--bootstrap", "0", "--landscape=false", "--json")
	if code != 1 {
		t.Errorf("exit %d, want 1: one input could not be analysed", code)
	}
	if !strings.Contains(errOut, "allfailed") || !strings.Contains(errOut, "1 of 2 inputs could not be analysed") {
		t.Errorf("stderr %q: want the failed input named and counted", errOut)
	}
	if strings.Count(errOut, "allfailed:") != 1 {
		t.Errorf("stderr %q: want the failed input named once", errOut)
	}
	if _, _, code := ktune(t, "analyze", dir, "--bootstrap", "0", "--landscape=false"); code != 1 {
		t.Errorf("text output: exit %d, want 1 as with --json", code)
	}
	var got analyzeJSON
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v: %q", err, out)
	}
	if len(got.Results) != 1 || got.Results[0].Name != "sub/pnpoly" {
		t.Errorf("results %+v: want the other space analysed", got.Results)
	}
	// alone, the input's own error is the command's
	_, errOut, code = ktune(t, "analyze", filepath.Join(dir, "allfailed.json"), "--bootstrap", "0")
	if code != 1 || strings.Contains(errOut, "inputs could not") || !strings.Contains(errOut, "time") {
		t.Errorf("one input: exit %d, stderr %q", code, errOut)
	}
}

func TestABareNumberIsARunUnlessAFileHasThatName(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "k.db")
	if _, errOut, code := ktune(t, "import", coulomb, "--db", db); code != 0 {
		t.Fatalf("import: %s", errOut)
	}
	data, err := os.ReadFile(pnpoly)
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	quick := []string{"--db", db, "--bootstrap", "0", "--graph-nodes", "0"}
	// no file named 1: the run
	stdout, errOut, code := ktune(t, append([]string{"report", "1"}, quick...)...)
	if code != 0 || !strings.Contains(stdout, "wrote report-1.html") || errOut != "" {
		t.Fatalf("report 1 without a file 1: exit %d, %q, %q", code, stdout, errOut)
	}
	if err := os.WriteFile("1", data, 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		args     []string
		wrote    string // the report read: the run (report-1.html) or the file (1.html)
		analysed string // the name analyze gives it
		warnsOf1 bool
	}{
		{args: []string{"1"}, wrote: "wrote 1.html", analysed: benchSpaceName("1"), warnsOf1: true},
		{args: []string{"--run", "1"}, wrote: "wrote report-1.html", analysed: "run 1 directCoulombSum_kernel"},
		{args: []string{"./1"}, wrote: "wrote ./1.html", analysed: benchSpaceName("1")},
	}
	for _, tt := range tests {
		stdout, errOut, code := ktune(t, append(append([]string{"report"}, tt.args...), quick...)...)
		if code != 0 || !strings.Contains(stdout, tt.wrote) {
			t.Errorf("report %v: exit %d, %q, %q; want %q", tt.args, code, stdout, errOut, tt.wrote)
		}
		warned := strings.Contains(errOut, "warning: 1 is read as the file") && strings.Contains(errOut, "--run 1")
		if warned != tt.warnsOf1 {
			t.Errorf("report %v: stderr %q; want a warning: %v", tt.args, errOut, tt.warnsOf1)
		}
		stdout, errOut, code = ktune(t, append(append([]string{"analyze", "--landscape=false"}, tt.args...), "--db", db, "--bootstrap", "0", "--json")...)
		var got analyzeJSON
		if err := json.Unmarshal([]byte(stdout), &got); code != 0 || err != nil || len(got.Results) != 1 {
			t.Errorf("analyze %v: exit %d, %v, %q", tt.args, code, err, errOut)
			continue
		}
		if got.Results[0].Name != tt.analysed {
			t.Errorf("analyze %v analysed %q, want %q", tt.args, got.Results[0].Name, tt.analysed)
		}
		if warned := strings.Contains(errOut, "warning: 1 is read as the file"); warned != tt.warnsOf1 {
			t.Errorf("analyze %v: stderr %q; want a warning: %v", tt.args, errOut, tt.warnsOf1)
		}
	}
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

// TestAnalyzeAnOptimumOfZero: the fraction of optimum of a space whose optimum is 0 is
// undefined; --json, --plot and the text still give everything else, for that space and
// the others of the call.
func TestAnalyzeAnOptimumOfZero(t *testing.T) {
	dir := t.TempDir()
	zero := filepath.Join(dir, "zero.json")
	if err := os.WriteFile(zero, []byte(zeroErrors), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := ktune(t, "analyze", zero, coulomb, "--bootstrap", "0", "--json", "--plot", filepath.Join(dir, "fig"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var got struct {
		Results []struct {
			Name      string `json:"name"`
			Landscape struct {
				Minima    int       `json:"minima"`
				Fractions []float64 `json:"minima_fraction_of_optimum"`
				Note      string    `json:"fraction_of_optimum_note"`
			} `json:"landscape"`
			Sobol *struct{} `json:"sobol"`
		} `json:"results"`
		Figures []string `json:"figures"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v: %q", err, out)
	}
	if len(got.Results) != 2 {
		t.Fatalf("%d results, want both spaces", len(got.Results))
	}
	z, c := got.Results[0].Landscape, got.Results[1].Landscape
	if z.Minima != 2 || z.Fractions != nil || !strings.Contains(z.Note, "optimum is 0") || got.Results[0].Sobol == nil {
		t.Errorf("the space of optimum 0: %+v", got.Results[0])
	}
	if len(c.Fractions) != c.Minima || c.Note != "" {
		t.Errorf("the other space: %d fractions for %d minima, note %q", len(c.Fractions), c.Minima, c.Note)
	}
	if !slices.Contains(got.Figures, filepath.Join(dir, "fig", "minima.svg")) {
		t.Errorf("figures %v: the other space's minima are drawn", got.Figures)
	}
	out, errOut, code = ktune(t, "analyze", zero, "--bootstrap", "0")
	if code != 0 || !strings.Contains(out, "fraction of optimum undefined: the optimum is 0") || strings.Contains(out, "NaN") {
		t.Errorf("text: exit %d, stderr %q, output:\n%s", code, errOut, out)
	}
}

// TestAnalyzeAConstantObjective: the Sobol indices of a constant objective are undefined;
// a warning says so, the rest is printed and the exit status is 0.
func TestAnalyzeAConstantObjective(t *testing.T) {
	out, errOut, code := ktune(t, "analyze", "../../testdata/kernel_tuner/time_energy.json", "--objective", "core_freq", "--bootstrap", "0")
	if code != 0 || !strings.Contains(out, "core_freq is constant (1080) over the 15 valid configurations") ||
		!strings.Contains(out, "15 local minima") || !strings.Contains(out, "significance") || strings.Contains(out, "first order") {
		t.Errorf("exit %d, stderr %q, output:\n%s", code, errOut, out)
	}
}

// TestAnalyzeJSONListsTheErrorsWhenNothingCouldBeAnalysed: with --json the inputs that
// could not be read or analysed are under "errors" however many failed, as 'ktune import
// --json' lists every file (QA: with every input failed, and with a lone one, --json
// printed nothing at all, only standard error).
func TestAnalyzeJSONListsTheErrorsWhenNothingCouldBeAnalysed(t *testing.T) {
	dir := t.TempDir()
	failed := filepath.Join(dir, "allfailed.json")
	bad := filepath.Join(dir, "notjson.json")
	if err := os.WriteFile(failed, []byte(allFailed), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bad, []byte("hello world\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(dir, "ktune.db")
	if _, errOut, code := ktune(t, "import", pnpoly, "--db", db); code != 0 {
		t.Fatalf("import: exit %d: %s", code, errOut)
	}
	for _, tt := range []struct {
		args   []string
		inputs []string // named in "errors", in the inputs' order (the files are read in turn)
		stderr string   // what standard error says, once
	}{
		{[]string{failed, bad}, []string{filepath.Base(dir) + "/allfailed", bad}, "none of the 2 inputs could be analysed"},
		{[]string{failed}, []string{filepath.Base(dir) + "/allfailed"}, "none of the 4 configurations has a value for time"},
		{[]string{bad}, []string{bad}, "unknown file format"},
		{[]string{"--run", "7", "--db", db}, []string{"run 7 in " + db}, db + " holds no run 7: it holds run 1 ('ktune runs --db " + db + "' lists them)"},
	} {
		args := append([]string{"analyze", "--bootstrap", "0", "--json"}, tt.args...)
		out, errOut, code := ktune(t, args...)
		if code != 1 || strings.Count(errOut, tt.stderr) != 1 {
			t.Errorf("%v: exit %d, stderr %q: want exit 1 and %q once", tt.args, code, errOut, tt.stderr)
		}
		var got struct {
			Results []json.RawMessage               `json:"results"`
			Errors  []struct{ Input, Error string } `json:"errors"`
		}
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Errorf("%v: the output is no JSON (%v): %q", tt.args, err, out)
			continue
		}
		if got.Results == nil || len(got.Results) != 0 || len(got.Errors) != len(tt.inputs) {
			t.Errorf("%v: results %s, errors %+v: want no results and %d errors", tt.args, got.Results, got.Errors, len(tt.inputs))
			continue
		}
		for i, e := range got.Errors {
			if e.Input != tt.inputs[i] || e.Error == "" {
				t.Errorf("%v: error %d is %+v, want one of %s with why", tt.args, i, e, tt.inputs[i])
			}
		}
	}
	// without --json a lone input's error is said once, as before
	if out, errOut, code := ktune(t, "analyze", failed); code != 1 || out != "" || strings.Count(errOut, "nothing to analyse") != 1 {
		t.Errorf("text: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}

// TestAnalyzeNamesARunWithoutAKernel: a stored run whose recording names no kernel (a T4
// file imported) is "run N" in the output and its figures (QA: "run 1 : - on -" and
// figures named significance-run_1_.svg).
func TestAnalyzeNamesARunWithoutAKernel(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "ktune.db")
	if _, errOut, code := ktune(t, "import", "../../testdata/benchmark_hub/convolution_milo/A100_T4.json.gz", "--db", db); code != 0 {
		t.Fatalf("import: exit %d: %s", code, errOut)
	}
	figs := filepath.Join(dir, "figs")
	out, errOut, code := ktune(t, "analyze", "--run", "1", "--db", db, "--landscape=false", "--bootstrap", "0", "--plot", figs)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.HasPrefix(out, "run 1: - on -;") {
		t.Errorf("output begins %q, want \"run 1: - on -;\"", strings.SplitN(out, "\n", 2)[0])
	}
	for _, f := range []string{"significance-run_1.svg", "sensitivity-run_1.png"} {
		if _, err := os.Stat(filepath.Join(figs, f)); err != nil {
			t.Errorf("figure %s: %v", f, err)
		}
	}
}

// A run whose recording names its kernel is "run N KERNEL on DEVICE", the kernel said once
// (QA: "run 1 stencil5: stencil5 on ...").
func TestAnalyzeNamesARunsKernelOnce(t *testing.T) {
	db := filepath.Join(t.TempDir(), "ktune.db")
	if _, errOut, code := ktune(t, "import", pnpoly, "--db", db); code != 0 {
		t.Fatalf("import: exit %d: %s", code, errOut)
	}
	out, errOut, code := ktune(t, "analyze", "--run", "1", "--db", db, "--landscape=false", "--bootstrap", "0")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if first := strings.SplitN(out, "\n", 2)[0]; !strings.HasPrefix(first, "run 1 cn_pnpoly on NVIDIA GeForce RTX 2080 Ti;") {
		t.Errorf("output begins %q, want \"run 1 cn_pnpoly on NVIDIA GeForce RTX 2080 Ti;\"", first)
	}
}

// A file that cannot be read (not JSON, a corrupt gzip) is reported and the others are
// analysed, as with a space without successes; two files of one folder/file name are
// refused, since the name tells results and figures apart.
func TestAnalyzeGoesOnPastAnUnreadableFileAndRefusesTwoOfOneName(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "notjson.json")
	if err := os.WriteFile(bad, []byte("hello world\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := ktune(t, "analyze", pnpoly, bad, "--bootstrap", "0", "--landscape=false", "--json")
	if code != 1 || !strings.Contains(errOut, bad+": unknown file format") || !strings.Contains(errOut, "1 of 2 inputs could not be analysed: "+bad) {
		t.Errorf("exit %d, stderr %q: want the unreadable file named and counted, exit 1", code, errOut)
	}
	var got analyzeJSON
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v: %q", err, out)
	}
	if len(got.Results) != 1 || got.Results[0].Name != "kerneltuner_pnpoly/RTX_2080_Ti" {
		t.Errorf("results %+v: want the readable space analysed", got.Results)
	}
	var errs struct {
		Errors []struct{ Input, Error string } `json:"errors"`
	}
	if err := json.Unmarshal([]byte(out), &errs); err != nil || len(errs.Errors) != 1 || errs.Errors[0].Input != bad ||
		!strings.Contains(errs.Errors[0].Error, "unknown file format") {
		t.Errorf("errors %+v (%v): want the unreadable file and why", errs.Errors, err)
	}

	var twins []string
	for _, d := range []string{"a", "b"} {
		p := filepath.Join(dir, d, "x", "dev.json.gz")
		copyTo(t, pnpoly, p)
		twins = append(twins, p)
	}
	_, errOut, code = ktune(t, "analyze", twins[0], twins[1], "--bootstrap", "0", "--landscape=false")
	if code == 0 || !strings.Contains(errOut, "both named x/dev") {
		t.Errorf("two inputs named x/dev: exit %d, stderr %q", code, errOut)
	}
}

// TestAnalyzeAndReportTakeTheDirection: a metric's direction is its name's guess, which
// the output says, and --maximize or --minimize overrides it (QA: a speedup objective was
// minimised, its worst configuration reported as the optimum); for the recording's
// objective the report's whole page follows.
func TestAnalyzeAndReportTakeTheDirection(t *testing.T) {
	const energy = "../../testdata/kernel_tuner/time_energy.json"
	for _, tt := range []struct {
		args []string
		want []string
	}{
		{[]string{"--objective", "GFLOPS/W"}, []string{"objective GFLOPS/W (higher is better, as its name suggests; --minimize if not)", "optimum 0.355782 at block_size_x=896"}},
		{[]string{"--objective", "GFLOPS/W", "--minimize"}, []string{"objective GFLOPS/W (lower is better, --minimize)", "optimum 0.337546 at block_size_x=128"}},
		{[]string{"--maximize"}, []string{"objective time (higher is better, --maximize)", "warning: the recording says time is better lower; the option given makes it higher", "optimum 3.17613 at block_size_x=512"}},
	} {
		args := append([]string{"analyze", energy, "--parameters=false"}, tt.args...)
		out, errOut, code := ktune(t, args...)
		for _, w := range tt.want {
			if code != 0 || !strings.Contains(out, w) {
				t.Errorf("%v: exit %d, stderr %q, output lacks %q:\n%s", tt.args, code, errOut, w, out)
			}
		}
	}
	for _, cmd := range []string{"analyze", "report"} {
		if _, errOut, code := ktune(t, cmd, energy, "--maximize", "--minimize"); code != 2 || !strings.Contains(errOut, "give --maximize or --minimize, not both") {
			t.Errorf("%s with both directions: exit %d, stderr %q", cmd, code, errOut)
		}
	}
	out := filepath.Join(t.TempDir(), "r.html")
	if _, errOut, code := ktune(t, "report", energy, "-o", out, "--maximize", "--bootstrap", "0"); code != 0 {
		t.Fatalf("report: %s", errOut)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	page := html.UnescapeString(string(data))
	for _, w := range []string{"time in ms (higher is better), as --maximize or --minimize says", "Best time: 3.1761 ms"} {
		if !strings.Contains(page, w) {
			t.Errorf("the report with --maximize lacks %q", w)
		}
	}
}

// TestAnalyzeFiguresAreCountedAndLeftOutOnesSaid: a flow graph above --graph-nodes is left
// out with a note (QA: without a word), two spaces whose names make one file name do not
// overwrite each other's figures, and "figures: N files" is the number of files written.
func TestAnalyzeFiguresAreCountedAndLeftOutOnesSaid(t *testing.T) {
	dir := t.TempDir()
	data, err := os.ReadFile("../../testdata/kernel_tuner/time_energy.json")
	if err != nil {
		t.Fatal(err)
	}
	var twins []string
	for _, name := range []string{"RTX 4000.json", "RTX_4000.json"} {
		p := filepath.Join(dir, "in", name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		twins = append(twins, p)
	}
	figs := filepath.Join(dir, "figs")
	out, errOut, code := ktune(t, "analyze", twins[0], twins[1], "--bootstrap", "0", "--plot", figs, "--graph-nodes", "10")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{
		"note: in/RTX 4000: the flow graph figure (ffg-in-RTX_4000) is left out: its 15 configurations are more than --graph-nodes 10",
		"note: in/RTX_4000: the flow graph figure (ffg-in-RTX_4000-2) is left out",
	} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
	written, err := os.ReadDir(figs)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range written {
		names = append(names, e.Name())
	}
	for _, want := range []string{"sensitivity-in-RTX_4000.svg", "sensitivity-in-RTX_4000-2.svg", "sensitivity-in-RTX_4000-second.png", "sensitivity-in-RTX_4000-2-second.png"} {
		if !slices.Contains(names, want) {
			t.Errorf("figures %v lack %s", names, want)
		}
	}
	if want := "figures: " + strconv.Itoa(len(written)) + " files in " + figs; !strings.Contains(out, want) {
		t.Errorf("output does not say %q (%d files written):\n%s", want, len(written), out)
	}
}

// TestAnalyzeCountsInTheSingular: one of a thing is one configuration, point, local
// minimum, maximum, edge or iteration (QA: "1 maxima", "1 configurations", "1 iterations"),
// on the recorded vector_add cache cut down to one and two of its configurations.
func TestAnalyzeCountsInTheSingular(t *testing.T) {
	data, err := os.ReadFile("../../testdata/kernel_tuner/vector_add_A4000.json")
	if err != nil {
		t.Fatal(err)
	}
	var cache map[string]json.RawMessage
	if err := json.Unmarshal(data, &cache); err != nil {
		t.Fatal(err)
	}
	var entries map[string]json.RawMessage
	if err := json.Unmarshal(cache["cache"], &entries); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		keep []string
		want []string
	}{
		{[]string{"128"}, []string{"1 configuration, 1 evaluated, 1 valid", "landscape (recorded mode, adjacent neighbourhood): 1 point, 0 failed",
			"1 local minimum, 0 maxima, 0 saddles", "PageRank stopped after 1 iteration\n", "over 1 valid configuration\n"}},
		{[]string{"128", "192"}, []string{"2 configurations", "1 local minimum, 1 maximum, 0 saddles", "flow graph: 1 edge;"}},
	} {
		kept := map[string]json.RawMessage{}
		for _, k := range tt.keep {
			if entries[k] == nil {
				t.Fatalf("no cache entry %q", k)
			}
			kept[k] = entries[k]
		}
		cache["cache"], _ = json.Marshal(kept)
		b, _ := json.Marshal(cache)
		p := filepath.Join(t.TempDir(), "few.json")
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		out, errOut, code := ktune(t, "analyze", p, "--bootstrap", "0")
		for _, w := range tt.want {
			if code != 0 || !strings.Contains(out, w) {
				t.Errorf("%d configurations: exit %d, stderr %q, output lacks %q:\n%s", len(tt.keep), code, errOut, w, out)
			}
		}
	}
}

// A Kernel Tuner cache has no restrictions: the report of its import counts the space as
// simulate and analyze do, the configurations it holds, and labels the full product.
func TestReportOfAnImportCountsTheRecordedSpace(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "k.db")
	if _, errOut, code := ktune(t, "import", convolution, "--db", db); code != 0 {
		t.Fatalf("import: %s", errOut)
	}
	out := filepath.Join(dir, "r.html")
	if stdout, errOut, code := ktune(t, "report", "1", "--db", db, "-o", out, "--bootstrap", "0", "--graph-nodes", "0"); code != 0 {
		t.Fatalf("report: exit %d: %s %s", code, stdout, errOut)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	page := html.UnescapeString(string(data))
	if want := "4362 configurations (the recorded ones; the recording has no restrictions, and the full product of the values has 10240)"; !strings.Contains(page, want) {
		t.Errorf("report lacks %q", want)
	}
	if strings.Contains(page, "allowed by the restrictions") {
		t.Error("the report of a recording without restrictions speaks of restrictions")
	}
}

// cancelOn is standard error that cancels its context when a line containing at has been
// written: an interruption at a known point of a command.
type cancelOn struct {
	bytes.Buffer
	at     string
	cancel context.CancelFunc
}

func (w *cancelOn) Write(p []byte) (int, error) {
	n, err := w.Buffer.Write(p)
	if strings.Contains(w.String(), w.at) {
		w.cancel()
	}
	return n, err
}

// Interrupted, analyze prints the inputs it analysed, with --json as one document that
// says it was interrupted, and exits with the interruption's status (QA: it printed
// nothing at all, even with --json, and said nothing of the interruption).
func TestAnalyzeInterruptedKeepsWhatItAnalysed(t *testing.T) {
	for _, jsonOut := range []bool{true, false} {
		ctx, cancel := context.WithCancel(context.Background())
		errOut := &cancelOn{at: "n=2", cancel: cancel}
		var out bytes.Buffer
		args := []string{"--log-level", "info", "analyze", pnpoly, convolution, "--bootstrap", "0"}
		if jsonOut {
			args = append(args, "--json")
		}
		code := run(ctx, args, &out, errOut)
		cancel()
		if code != 130 || !strings.Contains(errOut.String(), "ktune analyze: interrupted with 1 of 2 inputs analysed; the results are of those\n") {
			t.Fatalf("json %v: exit %d: %s", jsonOut, code, errOut.String())
		}
		if !jsonOut {
			if !strings.Contains(out.String(), "kerneltuner_pnpoly/RTX_2080_Ti: cn_pnpoly") || strings.Contains(out.String(), "convolution_milo") {
				t.Errorf("the text output is not that of the first input alone:\n%s", out.String())
			}
			continue
		}
		var got struct {
			Interrupted string `json:"interrupted"`
			Results     []struct {
				Name string `json:"name"`
			} `json:"results"`
		}
		if err := json.Unmarshal(out.Bytes(), &got); err != nil {
			t.Fatalf("not one JSON document: %v\n%s", err, out.String())
		}
		if got.Interrupted == "" || len(got.Results) != 1 {
			t.Errorf("interrupted %q, %d results: %s", got.Interrupted, len(got.Results), out.String())
		}
	}
}

// A parameter with one value over the valid configurations has no correlation: the text
// and the report say it is constant, as the significance chart labels it, rather than show
// a bare '-' (QA: GEMM's KWG, KWI, STRM, STRN and PRECISION).
func TestSignificanceSaysWhichParametersAreConstant(t *testing.T) {
	gemm := "../../testdata/benchmark_hub/kerneltuner_gemm/RTX_3090.json.gz"
	out, errOut, code := ktune(t, "analyze", gemm, "--bootstrap", "0")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	constant := regexp.MustCompile(`(?m)^    (\w+) +- +-  \(constant\)$`)
	var got []string
	for _, m := range constant.FindAllStringSubmatch(out, -1) {
		got = append(got, m[1])
	}
	slices.Sort(got)
	if want := []string{"KWG", "KWI", "PRECISION", "STRM", "STRN"}; !slices.Equal(got, want) {
		t.Errorf("constant parameters %v, want %v:\n%s", got, want, out)
	}
	page := filepath.Join(t.TempDir(), "gemm.html")
	if _, errOut, code := ktune(t, "report", gemm, "-o", page); code != 0 {
		t.Fatalf("report: %s", errOut)
	}
	data, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), "<td>KWG (constant)</td>") || strings.Contains(string(data), "NWG (constant)") {
		t.Errorf("the report's significance table does not mark exactly the constant parameters")
	}
}

// The recorded files are read when their turn comes, not all before the first analysis,
// so that an analysis of many files holds one recording at a time (QA: 28 files held
// 573 MB, every recording at once); standard input and runs are read before.
func TestAnalyzeReadsEachFileInTurn(t *testing.T) {
	inputs, unread, err := analysisInputs(context.Background(), []string{coulomb, pnpoly}, "", "", false, io.Discard)
	if err != nil || len(unread) > 0 || len(inputs) != 2 {
		t.Fatalf("inputs %v, unread %v, %v", inputs, unread, err)
	}
	for i, want := range []string{coulomb, pnpoly} {
		if in := inputs[i]; in.in.Rec != nil || in.path != want {
			t.Errorf("input %d: read before its turn (%v), or to be read from %q, want %q", i, in.in.Rec != nil, in.path, want)
		}
	}
	// and the analysis is whole: both spaces, the second after the first
	out, errOut, code := ktune(t, "analyze", coulomb, pnpoly, "--bootstrap", "0", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var got analyzeJSON
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Results) != 2 || got.Results[0].Name != "coulomb_sum_3d/RTX_2080_Ti" || got.Results[1].Valid == 0 {
		t.Errorf("results %+v", got.Results)
	}
}

// 'ktune analyze --run' of an imported recording (pnpoly) whose fastest configuration a
// check then found wrong (a wrong_answer evaluation stored after it, as dynamic tuning
// stores one) analyses it as failed: the optimum is the runner-up's, and a warning says
// why.
func TestAnalyzeARunCountsAConfigurationFoundWrongAsFailed(t *testing.T) {
	db, _, fastest, next := foundWrongRun(t)
	out, errOut, code := ktune(t, "analyze", "--run", "1", "--db", db, "--bootstrap", "0", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var got analyzeJSON
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v: %q", err, out)
	}
	if len(got.Results) != 1 {
		t.Fatalf("%d results", len(got.Results))
	}
	r := got.Results[0]
	if r.Optimum != next.Objective {
		t.Errorf("optimum %g, want the runner-up's %g: the fastest, %g, was found wrong", r.Optimum, next.Objective, fastest.Objective)
	}
	if !slices.ContainsFunc(r.Warnings, func(w string) bool {
		return strings.HasPrefix(w, "one configuration that ran successfully has a wrong_answer evaluation in the recording as well")
	}) {
		t.Errorf("no warning of the configuration found wrong in %q", r.Warnings)
	}
}
