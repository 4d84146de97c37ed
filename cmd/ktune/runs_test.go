package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/ktune/ktune/format"
	"github.com/ktune/ktune/result"
	"github.com/ktune/ktune/space"
	"github.com/ktune/ktune/store"
	"github.com/ktune/ktune/store/sqlite"
)

// ktune runs lists what a database holds: ids to pass to the other commands, the kind,
// status and source of each run, its evaluations and its best configuration.
func TestRunsListsTheStoredRuns(t *testing.T) {
	db := filepath.Join(t.TempDir(), "k.db")
	if _, errOut, code := ktune(t, "runs", "--db", db); code == 0 || !strings.Contains(errOut, "no results database") {
		t.Errorf("a missing database: exit %d: %s", code, errOut)
	}
	var imported string
	for _, f := range []string{pnpoly, "../../testdata/kernel_tuner/vector_add_A4000.json"} {
		out, errOut, code := ktune(t, "import", f, "--db", db)
		if code != 0 {
			t.Fatalf("import %s: %s", f, errOut)
		}
		imported = out
	}
	out, errOut, code := ktune(t, "runs", "--db", db)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], "ID") || !strings.HasPrefix(lines[1], "1 ") || !strings.Contains(lines[1], "import") ||
		!strings.Contains(lines[1], "from "+pnpoly) || !strings.Contains(lines[2], "vector_add") {
		t.Fatalf("runs:\n%s", out)
	}
	out, _, code = ktune(t, "runs", "--db", db, "--kernel", "vector_add", "--json")
	var got []struct {
		ID          int64          `json:"id"`
		Objective   string         `json:"objective"`
		Evaluations int            `json:"evaluations"`
		Best        *float64       `json:"best_objective"`
		BestConfig  map[string]any `json:"best_configuration"`
	}
	if err := json.Unmarshal([]byte(out), &got); code != 0 || err != nil {
		t.Fatalf("exit %d, %v: %s", code, err, out)
	}
	if len(got) != 1 || got[0].ID != 2 || got[0].Evaluations == 0 || got[0].Best == nil || len(got[0].BestConfig) == 0 || got[0].Objective != "time" {
		t.Fatalf("%+v", got)
	}
	// values keep their type: numbers stay numbers
	if _, isNumber := got[0].BestConfig["block_size_x"].(float64); !isNumber {
		t.Errorf("best configuration %v: want block_size_x as a number", got[0].BestConfig)
	}
	// the best is the one import reported: the smallest time among the run's successes
	if want := fmt.Sprintf("best %v ms", *got[0].Best); !strings.Contains(imported, want) {
		t.Errorf("best %v; import said %s", *got[0].Best, imported)
	}
	if out, _, code := ktune(t, "runs", "--db", db, "--status", "running"); code != 0 || !strings.Contains(out, "no runs") {
		t.Errorf("a filter matching nothing: exit %d: %s", code, out)
	}
	if _, errOut, code := ktune(t, "runs", "--db", db, "--kind", "tunning"); code != 2 || !strings.Contains(errOut, "--kind") {
		t.Errorf("a bad kind: exit %d: %s", code, errOut)
	}
}

// A tuning run is listed with the strategy options it was started with, in the form
// --strategy 'NAME:OPT=VALUE;OPT=VALUE' takes, and with them in --json: runs of one
// strategy and seed but other options are told apart.
func TestRunsShowTheStrategyOptions(t *testing.T) {
	needBackend(t, "c")
	db := filepath.Join(t.TempDir(), "k.db")
	spec := "../../examples/vector_add/vector_add_c.yaml"
	for _, args := range [][]string{
		{"--strategy", "annealing", "--option", "temperature=0.5", "--option", "neighbourhood=adjacent"},
		{"--strategy", "bayes:initial=1000"},
		{"--strategy", "random"},
	} {
		if _, errOut, code := ktune(t, append([]string{"tune", spec, "--budget", "1", "--db", db}, args...)...); code != 0 {
			t.Fatalf("tune %v: exit %d: %s", args, code, errOut)
		}
	}
	out, errOut, code := ktune(t, "runs", "--db", db)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"annealing:neighbourhood=adjacent;temperature=0.5 (seed 1)", "bayes:initial=1000 (seed 1)", "random (seed 1)"} {
		if !strings.Contains(out, want) {
			t.Errorf("runs lacks %q:\n%s", want, out)
		}
	}
	out, _, _ = ktune(t, "runs", "--db", db, "--json")
	var got []struct {
		Options map[string]any `json:"strategy_options"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil || len(got) != 3 {
		t.Fatalf("%v: %s", err, out)
	}
	if got[0].Options["neighbourhood"] != "adjacent" || got[0].Options["temperature"] != 0.5 ||
		got[1].Options["initial"] != float64(1000) || got[2].Options != nil {
		t.Errorf("strategy_options %v, %v, %v", got[0].Options, got[1].Options, got[2].Options)
	}
}

// A finished run none of whose evaluations succeeded reads as failed, as ktune report calls
// it, and --status failed lists it (a QA saw runs say finished where report said failed).
func TestRunsCallARunWhereEverythingFailedFailed(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "k.db")
	cache := filepath.Join(dir, "failed.json")
	if err := os.WriteFile(cache, []byte(`{"device_name": "d", "kernel_name": "k", "problem_size": [1], "tune_params_keys": ["bx"],
"tune_params": {"bx": [1, 2]}, "objective": "time", "cache": {
"1": {"bx": 1, "time": "CompilationFailedConfig"}, "2": {"bx": 2, "time": "RuntimeFailedConfig"}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{cache, pnpoly} {
		if _, errOut, code := ktune(t, "import", f, "--db", db); code != 0 {
			t.Fatalf("import %s: %s", f, errOut)
		}
	}
	out, errOut, code := ktune(t, "runs", "--db", db)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != 0 || len(lines) != 3 || !strings.Contains(lines[1], " failed ") || strings.Contains(lines[2], " failed ") {
		t.Fatalf("exit %d: %s%s", code, out, errOut)
	}
	out, _, code = ktune(t, "runs", "--db", db, "--status", "failed", "--json")
	var got []struct {
		ID     int64  `json:"id"`
		Status string `json:"status"`
		Failed bool   `json:"failed"`
	}
	if err := json.Unmarshal([]byte(out), &got); code != 0 || err != nil {
		t.Fatalf("exit %d, %v: %s", code, err, out)
	}
	if len(got) != 1 || got[0].ID != 1 || got[0].Status != "finished" || !got[0].Failed {
		t.Errorf("--status failed: %+v", got)
	}
	if out, _, _ := ktune(t, "runs", "--db", db, "--status", "finished"); strings.Count(strings.TrimSpace(out), "\n") != 2 {
		t.Errorf("--status finished does not list both:\n%s", out)
	}
}

// runs --json gives the best configuration's parameters in the recording's order, as
// every other output does, not sorted as a map would have them; import --json gives the
// same object (QA: import wrote it as a string, "a=1, b=2").
func TestRunsKeepsTheParameterOrder(t *testing.T) {
	const milo = "../../testdata/benchmark_hub/convolution_milo/A100.json.gz"
	rec, err := format.Open(milo)
	if err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(t.TempDir(), "k.db")
	imported, errOut, code := ktune(t, "import", milo, "--db", db, "--json")
	if code != 0 {
		t.Fatalf("import: %s", errOut)
	}
	out, _, _ := ktune(t, "runs", "--db", db, "--json")
	var raw, importRaw []struct {
		Best json.RawMessage `json:"best_configuration"`
	}
	if err := json.Unmarshal([]byte(out), &raw); err != nil || len(raw) == 0 {
		t.Fatalf("%v: %s", err, out)
	}
	if err := json.Unmarshal([]byte(imported), &importRaw); err != nil || len(importRaw) != 1 {
		t.Fatalf("%v: %s", err, imported)
	}
	var compactRuns, compactImport bytes.Buffer
	if json.Compact(&compactRuns, raw[0].Best) != nil || json.Compact(&compactImport, importRaw[0].Best) != nil ||
		compactRuns.String() != compactImport.String() {
		t.Errorf("import --json's best_configuration %s, runs --json's %s: want the same object", importRaw[0].Best, raw[0].Best)
	}
	dec := json.NewDecoder(bytes.NewReader(raw[0].Best))
	var keys []string
	for tok, err := dec.Token(); err == nil; tok, err = dec.Token() {
		if k, ok := tok.(string); ok && dec.More() {
			keys = append(keys, k)
			dec.Token() // its value
		}
	}
	var want []string
	for _, p := range rec.Params {
		want = append(want, p.Name)
	}
	if !slices.Equal(keys, want) || slices.IsSorted(want) {
		t.Errorf("best configuration's keys %v, want the recording's order %v (not sorted)", keys, want)
	}
}

// A configuration that a check after dynamic tuning found wrong (a wrong_answer
// evaluation stored after its success) is not the run's best in 'ktune runs', which
// names the next configuration, and its success is none: it is counted apart, as found
// wrong. A finished run whose one success was found wrong failed.
func TestRunsPassesOverAConfigurationFoundWrong(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db := filepath.Join(dir, "k.db")
	st, err := sqlite.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	iv := space.IntValue
	params := []space.Param{{Name: "bx", Values: []space.Value{iv(16), iv(32), iv(64)}}}
	spaceID, err := st.PutSpace(ctx, store.Space{Kernel: "k", Params: params})
	if err != nil {
		t.Fatal(err)
	}
	deviceID, err := st.PutDevice(ctx, store.Device{Name: "PoCL", Backend: "opencl"})
	if err != nil {
		t.Fatal(err)
	}
	run, err := st.CreateRun(ctx, store.RunInfo{SpaceID: spaceID, DeviceID: deviceID, Kind: store.KindTuning, Strategy: "dynamic", Seed: 1, Objective: "time"})
	if err != nil {
		t.Fatal(err)
	}
	ok := func(bx int64, ms float64) result.Evaluation {
		return result.Evaluation{Config: []space.Value{iv(bx)}, Status: result.OK, Objective: ms, Samples: []float64{ms}}
	}
	es := []result.Evaluation{ok(16, 3), ok(32, 1), ok(64, 2),
		{Config: []space.Value{iv(32)}, Status: result.WrongAnswer, Objective: math.NaN(), Message: "found wrong by a check on call 9, after tuning"}}
	if err := st.AddEvaluations(ctx, run, es); err != nil {
		t.Fatal(err)
	}
	if err := st.FinishRun(ctx, run, store.StatusFinished); err != nil {
		t.Fatal(err)
	}
	st.Close()

	// a second run, whose one success was found wrong
	st, err = sqlite.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	second, err := st.CreateRun(ctx, store.RunInfo{SpaceID: spaceID, DeviceID: deviceID, Kind: store.KindTuning, Strategy: "dynamic", Seed: 1, Objective: "time"})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.AddEvaluations(ctx, second, []result.Evaluation{ok(16, 3), es[3], {Config: []space.Value{iv(16)}, Status: result.WrongAnswer, Objective: math.NaN()}}); err != nil {
		t.Fatal(err)
	}
	if err := st.FinishRun(ctx, second, store.StatusFinished); err != nil {
		t.Fatal(err)
	}
	st.Close()

	out, errOut, code := ktune(t, "runs", "--db", db, "--json")
	var got []struct {
		Succeeded  int            `json:"succeeded"`
		FoundWrong int            `json:"found_wrong"`
		Failed     bool           `json:"failed"`
		Best       *float64       `json:"best_objective"`
		BestConfig map[string]any `json:"best_configuration"`
	}
	if err := json.Unmarshal([]byte(out), &got); code != 0 || err != nil || len(got) != 2 {
		t.Fatalf("exit %d, %v: %s%s", code, err, out, errOut)
	}
	if g := got[0]; g.Succeeded != 2 || g.FoundWrong != 1 || g.Failed || g.Best == nil || *g.Best != 2 || g.BestConfig["bx"] != float64(64) {
		t.Errorf("runs --json: %d succeeded, %d found wrong, failed %v, best %v at %v; want 2, 1, false, 2 at bx=64", g.Succeeded, g.FoundWrong, g.Failed, g.Best, g.BestConfig)
	}
	if g := got[1]; g.Succeeded != 0 || g.FoundWrong != 1 || !g.Failed || g.Best != nil {
		t.Errorf("runs --json of a run whose one success was found wrong: %d succeeded, %d found wrong, failed %v, best %v; want 0, 1, true, none", g.Succeeded, g.FoundWrong, g.Failed, g.Best)
	}
	out, errOut, code = ktune(t, "runs", "--db", db)
	if code != 0 || !regexp.MustCompile(`(?m)^1 +tuning +finished .* 4 \(2 ok, 1 found wrong\) +2 ms`).MatchString(out) ||
		!regexp.MustCompile(`(?m)^2 +tuning +failed .* 3 \(0 ok, 1 found wrong\) +- `).MatchString(out) {
		t.Errorf("runs: exit %d, the lines do not count the successes found wrong apart:\n%s%s", code, out, errOut)
	}
}
