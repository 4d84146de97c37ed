package main

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"
)

// TestSimulateStopAtEndsRunsAtAnObjectiveValue replays pnpoly (time, minimised) with
// --stop-at: a run stops for "target" exactly when its best's recorded time is at most
// the value, the summary counts them, and a value that is no number is a usage error.
func TestSimulateStopAtEndsRunsAtAnObjectiveValue(t *testing.T) {
	type runsJSON struct {
		Optimum float64 `json:"optimum"`
		Runs    []struct {
			Best        *float64 `json:"best_objective"`
			Evaluations int      `json:"evaluations"`
			Stop        string   `json:"stop"`
		} `json:"runs"`
	}
	out, errOut, code := ktune(t, "simulate", pnpoly, "--budget", "300", "--repeats", "20", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var plain runsJSON
	if err := json.Unmarshal([]byte(out), &plain); err != nil {
		t.Fatal(err)
	}
	at := strconv.FormatFloat(plain.Optimum/0.97, 'g', -1, 64) // 3% slower than the optimum
	target, _ := strconv.ParseFloat(at, 64)
	out, errOut, code = ktune(t, "simulate", pnpoly, "--budget", "300", "--repeats", "20", "--stop-at", at, "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var got runsJSON
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	reached := 0
	for i, r := range got.Runs {
		stopped := r.Stop == "target"
		if r.Best == nil || stopped != (*r.Best <= target) {
			t.Errorf("run %d stopped %q with best %v ms, --stop-at %v", i, r.Stop, r.Best, target)
		}
		if stopped {
			reached++
			if r.Evaluations > plain.Runs[i].Evaluations {
				t.Errorf("run %d: %d evaluations to the target, %d without it", i, r.Evaluations, plain.Runs[i].Evaluations)
			}
		}
	}
	if reached == 0 {
		t.Errorf("no run reached --stop-at %v", target)
	}
	text, _, _ := ktune(t, "simulate", pnpoly, "--budget", "300", "--repeats", "20", "--stop-at", at)
	if want := fmt.Sprintf("reached --stop-at    %g in %d of 20 runs", target, reached); !strings.Contains(text, want) {
		t.Errorf("want %q in:\n%s", want, text)
	}
	if _, errOut, code := ktune(t, "simulate", pnpoly, "--stop-at", "NaN"); code != 2 || !strings.Contains(errOut, "--stop-at NaN: want a finite objective value") {
		t.Errorf("--stop-at NaN: exit %d, %s", code, errOut)
	}
	// --stop-at alone ends runs: no budget needed
	if _, errOut, code := ktune(t, "simulate", pnpoly, "--budget", "0", "--repeats", "2", "--stop-at", strconv.FormatFloat(1e12, 'g', -1, 64)); code != 0 {
		t.Errorf("--budget 0 --stop-at: exit %d, %s", code, errOut)
	}
}
