package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ktune/ktune/benchmark"
)

// ktune hypertune writes a defaults file; simulate and bench read it, taking the options of
// the largest budget column not above the run's budget, with explicit options winning.
func TestHypertuneWritesDefaultsThatSimulateAndBenchRead(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "bestmls.json")
	out, errOut, code := ktune(t, "hypertune", pnpoly, convolution, "--strategy", "bestmls",
		"--grid", "neighbourhood=Hamming,adjacent", "--budgets", "20,100", "--repeats", "4", "--out", path, "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var res struct {
		Defaults string `json:"defaults_file"`
		Choices  []struct {
			Budget  int               `json:"budget"`
			Options map[string]string `json:"options"`
			Needed  []*float64        `json:"k_needed"`
		} `json:"choices"`
		Cells []json.RawMessage `json:"cells"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	if res.Defaults != path || len(res.Choices) != 2 || len(res.Cells) != 2*2*2 || len(res.Choices[0].Needed) != 2 {
		t.Fatalf("%s", out)
	}
	chosen := res.Choices[1].Options["neighbourhood"] // budget 100
	other := map[string]string{"Hamming": "adjacent", "adjacent": "Hamming"}[chosen]

	// simulate: the file names the strategy; budget 150 takes the 100 column.
	out, errOut, code = ktune(t, "simulate", pnpoly, "--defaults", path, "--budget", "150", "--repeats", "3", "--json")
	if code != 0 {
		t.Fatalf("simulate: exit %d: %s", code, errOut)
	}
	var sim struct {
		Strategy string            `json:"strategy"`
		Options  map[string]string `json:"strategy_options"`
	}
	if err := json.Unmarshal([]byte(out), &sim); err != nil {
		t.Fatal(err)
	}
	if sim.Strategy != "bestmls" || sim.Options["neighbourhood"] != chosen {
		t.Errorf("simulate --defaults: %s %v, want bestmls with neighbourhood=%s", sim.Strategy, sim.Options, chosen)
	}
	out, _, _ = ktune(t, "simulate", pnpoly, "--defaults", path, "--option", "neighbourhood="+other, "--budget", "150", "--repeats", "3", "--json")
	if err := json.Unmarshal([]byte(out), &sim); err != nil || sim.Options["neighbourhood"] != other {
		t.Errorf("an explicit --option must win over the file: %v %v", sim.Options, err)
	}
	if _, errOut, code := ktune(t, "simulate", pnpoly, "--defaults", path, "--strategy", "random"); code != 2 || !strings.Contains(errOut, "bestmls") {
		t.Errorf("a defaults file for another strategy: exit %d, %s", code, errOut)
	}

	// bench: the labelled entry runs the tuned options, the plain one the built-in defaults.
	out, errOut, code = ktune(t, "bench", pnpoly, "--strategies", "bestmls,tuned=bestmls", "--defaults", "tuned="+path,
		"--budgets", "100", "--repeats", "3", "--json")
	if code != 0 {
		t.Fatalf("bench: exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, `"strategy": "tuned"`) {
		t.Errorf("bench output has no tuned cell: %s", out)
	}
	if _, errOut, code := ktune(t, "bench", pnpoly, "--strategies", "random", "--defaults", path); code != 2 || !strings.Contains(errOut, "bestmls") {
		t.Errorf("a defaults file no entry uses: exit %d, %s", code, errOut)
	}
	data, err := os.ReadFile(path)
	if err != nil || !strings.Contains(string(data), `"strategy": "bestmls"`) {
		t.Errorf("defaults file: %v %s", err, data)
	}

	out, _, code = ktune(t, "hypertune", pnpoly, "--strategy", "bestmls", "--grid", "neighbourhood=Hamming,adjacent",
		"--budgets", "20", "--repeats", "2", "--out", filepath.Join(dir, "b.json"))
	if code != 0 || !strings.Contains(out, "budget 20: neighbourhood=") || !strings.Contains(out, "k needed") {
		t.Errorf("table: exit %d\n%s", code, out)
	}
	for _, args := range [][]string{
		{"hypertune", pnpoly, "--grid", "neighbourhood=Hamming"},                                  // no strategy
		{"hypertune", pnpoly, "--strategy", "random"},                                             // no options, no grid
		{"hypertune", pnpoly, "--strategy", "bestmls", "--grid", "neighbourhood"},                 // bad grid
		{"hypertune", pnpoly, "--strategy", "bestmls", "--grid", "neighbourhood=diagonal"},        // bad value
		{"hypertune", "--strategy", "bestmls"},                                                    // no space
		{"hypertune", pnpoly, "--strategy", "bestmls", "--fitness", "noisy", "--out", path + "x"}, // bad fitness
	} {
		if _, _, code := ktune(t, args...); code == 0 {
			t.Errorf("%v: exit 0", args)
		}
	}
}

// bench --fitness stochastic runs on sampled timings with repeats charged, and
// --strategies takes options and labels.
func TestBenchStochasticFitnessAndStrategyOptions(t *testing.T) {
	out, errOut, code := ktune(t, "bench", pnpoly, "--strategies", "random,irace,tt=irace:testType=t-test;firstTest=4",
		"--fitness", "stochastic", "--budgets", "60", "--repeats", "3", "--json")
	if code != 0 {
		t.Fatal(errOut)
	}
	var got struct {
		Fitness string `json:"fitness"`
		Cells   []struct {
			Strategy        string  `json:"strategy"`
			MeanEvaluations float64 `json:"mean_evaluations"`
		} `json:"cells"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	if got.Fitness != "stochastic" || len(got.Cells) != 3 || got.Cells[2].Strategy != "tt" {
		t.Fatalf("%s", out)
	}
	for _, c := range got.Cells {
		if c.MeanEvaluations != 60 {
			t.Errorf("%s: %v evaluations, want the budget 60", c.Strategy, c.MeanEvaluations)
		}
	}
	out, _, code = ktune(t, "bench", pnpoly, "--strategies", "random,adj=firstmls:neighbourhood=adjacent", "--budgets", "30", "--repeats", "2")
	if code != 0 || !strings.Contains(out, "deterministic fitness") || !strings.Contains(out, "  adj ") {
		t.Errorf("exit %d\n%s", code, out)
	}
	for _, list := range []string{"random,random", "firstmls:neighbourhood=diagonal", "nosuch"} {
		if _, errOut, code := ktune(t, "bench", pnpoly, "--strategies", list, "--budgets", "30", "--repeats", "2"); code != 2 || !strings.Contains(errOut, "--strategies") {
			t.Errorf("--strategies %q: exit %d %s", list, code, errOut)
		}
	}
	if _, _, code := ktune(t, "bench", pnpoly, "--fitness", "noisy"); code != 2 {
		t.Errorf("--fitness noisy: exit %d", code)
	}
}

// --resume refuses the files of the other command and hypertune's defaults file, saying
// what they are, whatever the seed: before, bench took a defaults file written with seed 0
// as a benchmark of no cells and ran everything again, or blamed the seed, and hypertune
// took it as a run of no cells.
func TestResumeRefusesFilesOfNoCellsOfItsOwn(t *testing.T) {
	dir := t.TempDir()
	defaults, htJSON := filepath.Join(dir, "d.json"), filepath.Join(dir, "ht.json")
	out, errOut, code := ktune(t, "hypertune", pnpoly, "--strategy", "firstmls", "--grid", "restart=true,false",
		"--budgets", "5", "--repeats", "2", "--seed", "0", "--out", defaults, "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if err := os.WriteFile(htJSON, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"bench", pnpoly, "--budgets", "5", "--repeats", "2", "--seed", "0", "--resume", defaults}, "being a defaults file of 'ktune hypertune'"},
		{[]string{"bench", pnpoly, "--budgets", "5", "--repeats", "2", "--resume", defaults}, "being a defaults file of 'ktune hypertune'"},
		{[]string{"bench", pnpoly, "--budgets", "5", "--repeats", "2", "--seed", "0", "--resume", htJSON}, "being the --json output or --checkpoint file of 'ktune hypertune'"},
		{[]string{"hypertune", pnpoly, "--strategy", "firstmls", "--grid", "restart=true,false", "--budgets", "5", "--repeats", "2",
			"--seed", "0", "--out", filepath.Join(dir, "d2.json"), "--resume", defaults}, "being its defaults file"},
	} {
		out, errOut, code := ktune(t, tc.args...)
		if code == 0 || out != "" || !strings.Contains(errOut, "not 'ktune "+tc.args[0]+" --json' output or a --checkpoint file: it has no cells") ||
			!strings.Contains(errOut, tc.want) {
			t.Errorf("%s --resume %s: exit %d: %s%s", tc.args[0], filepath.Base(tc.args[len(tc.args)-1]), code, out, errOut)
		}
	}
}

// hypertune --help lists every built-in grid as --grid takes it, and says where their
// values come from without claiming Table III chose between them (QA: genetic's popsize,
// irace's, firefly's and bayes's grids are not Table III's); bench --help says its t-test
// is two-sided.
func TestHelpSaysWhatTheGridsAndTestsAre(t *testing.T) {
	out, _, code := ktune(t, "hypertune", "--help")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	flat := strings.Join(strings.Fields(out), " ")
	for _, name := range benchmark.DefaultGridNames() {
		g, _ := benchmark.DefaultGrid(name)
		if !strings.Contains(strings.ReplaceAll(flat, "; ", ";"), name+" "+g.String()) {
			t.Errorf("the help lacks the grid of %s, %s", name, g)
		}
	}
	if strings.Contains(flat, "chose between") || !strings.Contains(flat, "Table III has no bayes, firefly") {
		t.Errorf("the help says of the grids:\n%s", out)
	}
	out, _, _ = ktune(t, "bench", "--help")
	if flat := strings.Join(strings.Fields(out), " "); !strings.Contains(flat, "a two-sided Student's t-test for two independent samples with pooled variance") {
		t.Errorf("bench --help:\n%s", out)
	}
}

// A checkpoint holds its grid's cells only: resumed from a larger grid's checkpoint into
// the same file, a smaller grid is refused before it overwrites the others; a larger or
// equal one takes every cell and keeps them.
func TestHypertuneCheckpointIsNotOverwrittenByASmallerGrid(t *testing.T) {
	dir := t.TempDir()
	ckpt := filepath.Join(dir, "c.json")
	args := func(budgets string) []string {
		return []string{"hypertune", pnpoly, "--strategy", "firstils", "--grid", "perturbation_size=0.1,0.2", "--budgets", budgets,
			"--repeats", "3", "--checkpoint", ckpt, "--out", filepath.Join(dir, "d.json")}
	}
	cells := func() int {
		data, err := os.ReadFile(ckpt)
		if err != nil {
			t.Fatal(err)
		}
		var f struct {
			Cells []json.RawMessage `json:"cells"`
		}
		if err := json.Unmarshal(data, &f); err != nil {
			t.Fatal(err)
		}
		return len(f.Cells)
	}
	if _, errOut, code := ktune(t, args("25,50")...); code != 0 || cells() != 4 {
		t.Fatalf("first grid: exit %d, %q, %d cells", code, errOut, cells())
	}
	_, errOut, code := ktune(t, append(args("25"), "--resume", ckpt)...)
	if code == 0 || !strings.Contains(errOut, "is the --resume file, and 2 of its cells are not of this grid: they would be lost") || cells() != 4 {
		t.Errorf("smaller grid into the same file: exit %d, %q, %d cells left", code, errOut, cells())
	}
	if _, errOut, code := ktune(t, append(args("25,50"), "--resume", ckpt)...); code != 0 || !strings.Contains(errOut, "4 cells taken") || cells() != 4 {
		t.Errorf("the same grid: exit %d, %q, %d cells", code, errOut, cells())
	}
}

// An error in a defaults file's content is not a usage error: tune, simulate and bench
// say it, naming the file and the field, with exit status 1 and without the usage (QA:
// exit 2 and the usage); "mode": "weird" and "options": null are such errors.
func TestDefaultsFileErrorsAreNotUsageErrors(t *testing.T) {
	dir := t.TempDir()
	for name, content := range map[string]string{
		"mode":    `{"strategy": "firstmls", "mode": "weird", "budgets": [{"budget": 25, "options": {"neighbourhood": "Hamming"}}]}`,
		"options": `{"strategy": "firstmls", "mode": "cartesian", "budgets": [{"budget": 25, "options": null}]}`,
		"value":   `{"strategy": "firstmls", "budgets": [{"budget": 25, "options": {"neighbourhood": "diagonal"}}]}`,
	} {
		path := filepath.Join(dir, name+".json")
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, args := range [][]string{
			{"simulate", pnpoly, "--budget", "25", "--repeats", "2"},
			{"bench", pnpoly, "--strategies", "firstmls", "--budgets", "25", "--repeats", "2"},
			{"tune", "../../examples/vector_add/vector_add_c.yaml", "--budget", "4"},
		} {
			_, errOut, code := ktune(t, append(args, "--defaults", path)...)
			if code != 1 || strings.Contains(errOut, "Usage:") || !strings.HasPrefix(errOut, "ktune "+args[0]+": --defaults: defaults file "+path+": ") {
				t.Errorf("%s --defaults %s: exit %d: %s", args[0], name, code, errOut)
			}
		}
	}
}

// Options of a defaults file that do not fit another space (the order of parameters it
// lacks, tuned on point-in-polygon) are refused before anything runs, saying that they
// are the file's and of which budget column, by simulate, bench and tune alike (QA: the
// error named option order, which no command line had, with no word of the file, and
// bench blamed --strategies).
func TestDefaultsOptionsThatDoNotFitASpaceNameTheFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "greedymls.json")
	if _, errOut, code := ktune(t, "hypertune", pnpoly, "--strategy", "greedymls", "--grid", "order=[tile_size,use_method],[use_method,tile_size]",
		"--budgets", "10,30", "--repeats", "2", "--out", path); code != 0 {
		t.Fatalf("hypertune: exit %d: %s", code, errOut)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"simulate", convolution, "--defaults", path, "--budget", "20", "--repeats", "2"}, "(the options are defaults file " + path + "'s for budget 10)"},
		{[]string{"bench", convolution, "--strategies", "greedymls", "--defaults", path, "--budgets", "40", "--repeats", "2"},
			"greedymls on convolution_milo/A100 at budget 40: strategy greedymls: option order: "},
		{[]string{"bench", convolution, "--strategies", "greedymls", "--defaults", path, "--budgets", "40", "--repeats", "2"}, "(the options are defaults file " + path + "'s for budget 30)"},
		{[]string{"tune", "../../examples/vector_add/vector_add_c.yaml", "--defaults", path, "--budget", "5", "--option", "restart=true", "--db", filepath.Join(dir, "k.db")},
			"(the options are defaults file " + path + "'s for budget 10, with those given on top)"},
	} {
		out, errOut, code := ktune(t, tc.args...)
		if code != 2 || out != "" || !strings.Contains(errOut, "option order: ") || !strings.Contains(errOut, tc.want) {
			t.Errorf("%s: exit %d, %s%s; want %q", tc.args[0], code, out, errOut, tc.want)
		}
	}
	// options given on the command line alone are said as they were
	_, errOut, code := ktune(t, "simulate", convolution, "--strategy", "greedymls", "--option", "order=use_method", "--repeats", "2")
	if code != 2 || !strings.Contains(errOut, "option order: ") || strings.Contains(errOut, "defaults file") {
		t.Errorf("without a defaults file: exit %d, %s", code, errOut)
	}
}

// A folder named among the spaces that holds no recording file is refused, naming it,
// rather than left out in silence (QA: hypertune trained on the one space of two given
// and wrote its defaults as if on both); import and analyze read folders alike.
func TestAFolderWithoutRecordingsIsRefused(t *testing.T) {
	empty := t.TempDir()
	if err := os.WriteFile(filepath.Join(empty, "notes.csv"), []byte("a,b\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	want := empty + ": a folder with no .json or .json.gz file under it, so no recording"
	db := filepath.Join(t.TempDir(), "k.db")
	for _, args := range [][]string{
		{"hypertune", pnpoly, empty, "--strategy", "greedymls", "--grid", "restart=true,false", "--budgets", "10", "--repeats", "2",
			"--out", filepath.Join(t.TempDir(), "d.json")},
		{"bench", pnpoly, empty, "--strategies", "random", "--budgets", "10", "--repeats", "2"},
		{"import", empty, "--db", db},
	} {
		out, errOut, code := ktune(t, args...)
		if code != 1 || out != "" || !strings.Contains(errOut, want) {
			t.Errorf("%s: exit %d, %s%s; want %q", args[0], code, out, errOut, want)
		}
	}
}

// An output named as a file the run reads, or as another output, is refused before
// anything runs, and the file is left as it was (QA: hypertune --out onto its recording
// replaced the recording by a defaults file of 346 bytes; --out onto the --resume file
// lost its cells; --out and --checkpoint one file kept neither; bench --csv onto a
// recording or a --defaults file replaced it). --checkpoint may name the --resume file.
func TestOutputsThatAreInputsOrEachOtherAreRefused(t *testing.T) {
	dir := t.TempDir()
	rec := filepath.Join(dir, "pnpoly.json.gz")
	data, err := os.ReadFile(pnpoly)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(rec, data, 0o644); err != nil {
		t.Fatal(err)
	}
	ckpt, defaults := filepath.Join(dir, "ht.json"), filepath.Join(dir, "d.json")
	hypertune := []string{"hypertune", rec, "--strategy", "greedymls", "--grid", "restart=true,false", "--budgets", "10", "--repeats", "2"}
	if _, errOut, code := ktune(t, append(hypertune, "--out", defaults, "--checkpoint", ckpt)...); code != 0 {
		t.Fatalf("hypertune: exit %d: %s", code, errOut)
	}
	if _, errOut, code := ktune(t, append(hypertune, "--out", filepath.Join(dir, "d2.json"), "--checkpoint", ckpt, "--resume", ckpt)...); code != 0 {
		t.Errorf("--checkpoint naming the --resume file: exit %d: %s", code, errOut)
	}
	kept := map[string][]byte{rec: data}
	for _, f := range []string{ckpt, defaults} {
		if kept[f], err = os.ReadFile(f); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{append(hypertune, "--out", rec), "--out " + rec + " is the recording " + rec + ", which writing it would destroy"},
		{[]string{"hypertune", dir, "--strategy", "greedymls", "--budgets", "10", "--repeats", "2", "--out", rec}, "--out " + rec + " is the recording " + rec}, // in a folder given
		{append(hypertune, "--out", defaults, "--csv", rec), "--csv " + rec + " is the recording " + rec},
		{append(hypertune, "--resume", ckpt, "--out", ckpt), "--out " + ckpt + " is the --resume file " + ckpt},
		{append(hypertune, "--out", filepath.Join(dir, "x.json"), "--checkpoint", filepath.Join(dir, "x.json")), "--checkpoint " + filepath.Join(dir, "x.json") + " is also --out"},
		{[]string{"bench", rec, "--strategies", "random", "--budgets", "10", "--repeats", "2", "--csv", rec}, "--csv " + rec + " is the recording " + rec},
		{[]string{"bench", rec, "--strategies", "tuned=greedymls", "--defaults", "tuned=" + defaults, "--budgets", "10", "--repeats", "2", "--checkpoint", defaults},
			"--checkpoint " + defaults + " is the --defaults file " + defaults},
	} {
		out, errOut, code := ktune(t, tc.args...)
		if code != 1 || out != "" || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, %s%s; want %q", tc.args, code, out, errOut, tc.want)
		}
	}
	for f, want := range kept {
		if got, err := os.ReadFile(f); err != nil || string(got) != string(want) {
			t.Errorf("%s changed (%d bytes, was %d): %v", f, len(got), len(want), err)
		}
	}
}

// Interrupted, hypertune says so as the other commands do, without Go's "context
// canceled" (QA: "interrupted with 3 of 4 budgets finished (popsize=40;... on
// convolution_milo/A100 at budget 1600: context canceled)"), and --json is one document
// that says it was interrupted.
func TestHypertuneInterruptedSaysSoPlainly(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	errOut := &cancelOn{at: " evaluations, ETA ", cancel: cancel} // at the first progress line
	var out bytes.Buffer
	code := run(ctx, []string{"hypertune", pnpoly, "--strategy", "greedymls", "--grid", "restart=true,false",
		"--budgets", "10,20,40,80", "--repeats", "2", "--workers", "1", "--progress", "--json",
		"--out", filepath.Join(t.TempDir(), "d.json")}, &out, errOut)
	if code != 130 || !strings.Contains(errOut.String(), "ktune hypertune: interrupted with ") || strings.Contains(errOut.String(), "context canceled") {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	var got struct {
		Interrupted string `json:"interrupted"`
	}
	if err := json.Unmarshal(out.Bytes(), &got); err != nil || !strings.HasPrefix(got.Interrupted, "interrupted with ") || strings.Contains(got.Interrupted, "context canceled") {
		t.Errorf("JSON %v: %s", err, out.String())
	}
}

// bench --resume and hypertune --resume take the cells of strategy options spelled
// otherwise, as tune resumes a run: firstmls:neighbourhood=hamming;restart=1 is
// firstmls:restart=true;neighbourhood=Hamming, a grid's hamming and 0.10 are Hamming and
// 1e-1. Before, each spelling was another entry or setting, and ran its cells again.
func TestBenchAndHypertuneResumeOptionsSpelledOtherwise(t *testing.T) {
	dir := t.TempDir()
	bench := func(strategies string, more ...string) string {
		t.Helper()
		args := append([]string{"bench", pnpoly, "--strategies", strategies, "--budgets", "20", "--repeats", "3"}, more...)
		_, errOut, code := ktune(t, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
		return errOut
	}
	ckpt := filepath.Join(dir, "b.json")
	bench("firstmls:neighbourhood=hamming;restart=1,adj=firstils:neighbourhood=adjacent;perturbation_size=0.50", "--checkpoint", ckpt)
	errOut := bench("firstmls:restart=true;neighbourhood=Hamming,adj=firstils:neighbourhood=ADJACENT;perturbation_size=0.5", "--resume", ckpt)
	if !strings.Contains(errOut, "ktune bench: 2 cells taken from "+ckpt+"\n") {
		t.Errorf("bench resumed spelled otherwise: %s", errOut)
	}

	hypertune := func(grid string, more ...string) string {
		t.Helper()
		args := append([]string{"hypertune", pnpoly, "--strategy", "firstils", "--grid", grid, "--budgets", "25", "--repeats", "3",
			"--out", filepath.Join(dir, "d.json")}, more...)
		_, errOut, code := ktune(t, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
		return errOut
	}
	ckpt = filepath.Join(dir, "h.json")
	hypertune("neighbourhood=hamming,adjacent;perturbation_size=0.10", "--checkpoint", ckpt)
	errOut = hypertune("neighbourhood=ADJACENT,Hamming;perturbation_size=1e-1", "--resume", ckpt)
	if !strings.Contains(errOut, "ktune hypertune: 2 cells taken from "+ckpt+"\n") {
		t.Errorf("hypertune resumed spelled otherwise: %s", errOut)
	}
}
