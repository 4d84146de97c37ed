package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/ktune/ktune/format"
)

// --maximize and --minimize say the direction a recording does not (a Kernel Tuner cache's
// metric objective) or turn the one it says, with a warning: the optimum simulate, bench
// and hypertune measure fractions against follows them.
func TestDirectionOptionsSetTheOptimum(t *testing.T) {
	const file = "../../testdata/kernel_tuner/vector_add_A4000.json"
	rec, err := format.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	lo, hi := rec.Evaluations[0].Objective, rec.Evaluations[0].Objective
	for _, e := range rec.Evaluations {
		if !e.Failed() {
			lo, hi = min(lo, e.Objective), max(hi, e.Objective)
		}
	}
	for _, tt := range []struct {
		flag    string
		optimum float64
		warns   bool
	}{{"--minimize", lo, false}, {"--maximize", hi, true}} {
		out, errOut, code := ktune(t, "simulate", file, "--budget", "3", "--repeats", "2", "--json", tt.flag)
		var got struct {
			Maximize bool    `json:"maximize"`
			Optimum  float64 `json:"optimum"`
		}
		if code != 0 || json.Unmarshal([]byte(out), &got) != nil {
			t.Fatalf("simulate %s: exit %d, %q, %q", tt.flag, code, out, errOut)
		}
		if got.Optimum != tt.optimum || got.Maximize != (tt.flag == "--maximize") {
			t.Errorf("simulate %s: optimum %v (maximize %v), want %v", tt.flag, got.Optimum, got.Maximize, tt.optimum)
		}
		if warned := strings.Contains(errOut, "the recording says time is better lower; the option given makes it higher"); warned != tt.warns {
			t.Errorf("simulate %s: stderr %q, want a warning: %v", tt.flag, errOut, tt.warns)
		}
	}
	for _, cmd := range []string{"simulate", "bench", "hypertune"} {
		if _, errOut, code := ktune(t, cmd, file, "--maximize", "--minimize"); code != 2 || !strings.Contains(errOut, "give --maximize or --minimize, not both") {
			t.Errorf("%s with both: exit %d, %q", cmd, code, errOut)
		}
	}
}
