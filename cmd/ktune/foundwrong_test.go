package main

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/ktune/ktune/format"
	"github.com/ktune/ktune/format/kerneltuner"
	"github.com/ktune/ktune/result"
	"github.com/ktune/ktune/store"
)

// foundWrongRun imports pnpoly into a new database as run 1 and stores a wrong_answer
// evaluation of its fastest configuration after it, as a check after dynamic tuning
// stores one. It returns the database, the run's evaluations before the wrong answer
// and, of them, the fastest (found wrong) and the runner-up.
func foundWrongRun(t *testing.T) (db string, evals []result.Evaluation, fastest, next result.Evaluation) {
	t.Helper()
	db = filepath.Join(t.TempDir(), "ktune.db")
	if _, errOut, code := ktune(t, "import", pnpoly, "--db", db); code != 0 {
		t.Fatalf("import: exit %d: %s", code, errOut)
	}
	evals = runEvaluations(t, db, 1)
	sorted := append([]result.Evaluation(nil), evals...)
	sort.SliceStable(sorted, func(a, b int) bool {
		return !sorted[a].Failed() && (sorted[b].Failed() || sorted[a].Objective < sorted[b].Objective)
	})
	fastest, next = sorted[0], sorted[1]
	ctx := context.Background()
	st, err := store.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	found := result.Evaluation{Config: fastest.Config, Status: result.WrongAnswer, Objective: math.NaN(),
		Message: "found wrong by a check on call 5, after tuning (against the reference)"}
	if err := st.AddEvaluation(ctx, 1, found); err != nil {
		t.Fatal(err)
	}
	return db, evals, fastest, next
}

// 'ktune export' of a run whose fastest configuration was found wrong writes that
// configuration once, as the failure it is: a Kernel Tuner cache (one entry per
// configuration) gets its wrong answer's failure marker and status, where before it
// refused two evaluations of one configuration, and T4 and KTT output hold as many
// results as the run has configurations, not the success beside the wrong answer. A
// warning says what was left out.
func TestExportWritesAConfigurationFoundWrongOnceAsAFailure(t *testing.T) {
	db, evals, fastest, _ := foundWrongRun(t)
	const warning = "ktune export: warning: 1 successful evaluation of configurations found wrong (a wrong_answer evaluation: a verification, or a check after dynamic tuning, found their outputs wrong) left out: " +
		"the output holds each such configuration once, as its last wrong_answer evaluation, a failure\n"
	dir := t.TempDir()
	for _, c := range []struct{ format, list string }{{"kerneltuner", ""}, {"t4", "results"}, {"ktt", "Results"}} {
		out := filepath.Join(dir, c.format+".json")
		_, errOut, code := ktune(t, "export", "--run", "1", "--db", db, "--format", c.format, "-o", out)
		if code != 0 {
			t.Errorf("%s: exit %d: %s", c.format, code, errOut)
			continue
		}
		if !strings.Contains(errOut, warning) {
			t.Errorf("%s: stderr %q lacks the warning %q", c.format, errOut, warning)
		}
		data, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		var doc map[string]json.RawMessage
		if err := json.Unmarshal(data, &doc); err != nil {
			t.Fatalf("%s: %v", c.format, err)
		}
		if c.format == "kerneltuner" {
			var cache map[string]map[string]any
			if err := json.Unmarshal(doc["cache"], &cache); err != nil {
				t.Fatal(err)
			}
			entry := cache[kerneltuner.Key(fastest.Config)]
			if len(cache) != len(evals) || entry["time"] != "RuntimeFailedConfig" || entry["ktune_status"] != "wrong_answer" {
				t.Errorf("kerneltuner: %d entries (want %d); the fastest's time %v, ktune_status %v; want RuntimeFailedConfig and wrong_answer",
					len(cache), len(evals), entry["time"], entry["ktune_status"])
			}
			continue
		}
		var list []json.RawMessage
		if err := json.Unmarshal(doc[c.list], &list); err != nil {
			t.Fatalf("%s: %v", c.format, err)
		}
		if len(list) != len(evals) {
			t.Errorf("%s: %d results, want %d: one for each configuration, the one found wrong as its wrong answer", c.format, len(list), len(evals))
		}
	}
	// read back, the configuration found wrong is a wrong answer and nothing else
	rec, err := format.Open(filepath.Join(dir, "kerneltuner.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range rec.Evaluations {
		if store.ConfigKey(e.Config) == store.ConfigKey(fastest.Config) && e.Status != result.WrongAnswer {
			t.Errorf("read back, the configuration found wrong is %s (%g)", e.Status, e.Objective)
		}
	}
}
