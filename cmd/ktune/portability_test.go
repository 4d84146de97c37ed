package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const gemmSpaces = "../../testdata/benchmark_hub/kerneltuner_gemm"

// portabilityJSON is what 'ktune portability --json' prints, as far as the tests read it.
type portabilityJSON struct {
	Settings struct {
		Within, Probability, Performance float64
	} `json:"settings"`
	Portability struct {
		Objective string `json:"objective"`
		Maximize  bool   `json:"maximize"`
		Spaces    []struct {
			Name  string  `json:"name"`
			Valid int     `json:"valid"`
			Best  float64 `json:"best"`
		} `json:"spaces"`
		Cells [][]struct {
			Percent *float64 `json:"percent"`
			Fails   string   `json:"fails"`
		} `json:"cells"`
		Summary struct {
			Pairs, Failed int
			Worst         float64 `json:"worst"`
		} `json:"summary"`
	} `json:"portability"`
	Amortization []struct {
		Name        string  `json:"name"`
		Well        int     `json:"well"`
		R           float64 `json:"r"`
		Steps, N, S float64
	} `json:"amortization"`
}

// The GEMM caches of three GPUs (a folder): the tables the README shows, and in JSON the
// percentages and amortization figures the portability package's tests check against
// numbers computed in Python.
func TestPortabilityOfTheRecordedGEMMSpaces(t *testing.T) {
	out, errOut, code := ktune(t, "portability", gemmSpaces)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{
		"performance portability of Xgemm by time (lower is better)",
		"[1]  kerneltuner_gemm/RTX_2080_Ti  NVIDIA GeForce RTX 2080 Ti  17956 of 17956  11.4828",
		"[1]  100.0%   68.2%   91.9%",
		"[3]   99.1%   62.1%  100.0%",
		"mean 81.6% ± 12.8%, worst 62.1% ([3]'s best on [2]), 0 of 6 pairs fail",
		"within 95% of the best, found with p = 0.9, n invocations reach rp = 0.9",
		"kerneltuner_gemm/RTX_3090  17956     6  0.0003342         3.465         3.375  6889.7  6,890  147,296",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the output lacks %q:\n%s", want, out)
		}
	}

	out, errOut, code = ktune(t, "portability", gemmSpaces, "--objective", "GFLOP/s", "--json")
	if code != 0 {
		t.Fatalf("--json: exit %d: %s", code, errOut)
	}
	var got portabilityJSON
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	p := got.Portability
	if p.Objective != "GFLOP/s" || !p.Maximize || len(p.Cells) != 3 || got.Settings.Within != 0.95 || got.Settings.Probability != 0.9 {
		t.Fatalf("objective %s maximize %v, %d rows, settings %+v", p.Objective, p.Maximize, len(p.Cells), got.Settings)
	}
	if c := p.Cells[0][1]; c.Percent == nil || math.Abs(*c.Percent-68.2132) > 5e-4 {
		t.Errorf("the 2080 Ti's best on the 3090: %+v, want 68.2132%%", c)
	}
	if a := got.Amortization[1]; a.Name != "kerneltuner_gemm/RTX_3090" || a.Well != 6 || a.Steps != 6890 {
		t.Errorf("the 3090's amortization: %+v", a)
	}
}

// A best configuration that failed on the other space, or that it lacks, fails: the
// table says "fails" and why, and the JSON has no percentage for it. The settings change
// the amortization: with p = 0.5 and rp = 0.8 GPU A (times 2, 1, 4; one well-performing)
// needs ln 0.5 / ln(2/3) = 1.7, 2 steps and n = 0.8·2·(7/3 - 1)/0.2 = 10.67, 11 invocations.
func TestPortabilitySaysWhichConfigurationsFail(t *testing.T) {
	dir := t.TempDir()
	write := func(name, device, cache string) string {
		path := filepath.Join(dir, name)
		doc := `{"device_name": "` + device + `", "kernel_name": "k", "problem_size": [1024],
 "tune_params_keys": ["bx", "tile"], "tune_params": {"bx": [32, 64], "tile": [1, 2]}, "objective": "time", "cache": {` + cache + `}}`
		if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	a := write("A.json", "GPU A", `"32,1": {"bx": 32, "tile": 1, "time": 2.0}, "32,2": {"bx": 32, "tile": 2, "time": 1.0},
 "64,1": {"bx": 64, "tile": 1, "time": 4.0}, "64,2": {"bx": 64, "tile": 2, "time": "CompilationFailedConfig"}`)
	b := write("B.json", "GPU B", `"32,1": {"bx": 32, "tile": 1, "time": 3.0}, "32,2": {"bx": 32, "tile": 2, "time": "RuntimeFailedConfig"},
 "64,1": {"bx": 64, "tile": 1, "time": 1.5}`)
	c := write("C.json", "GPU C", `"32,1": {"bx": 32, "tile": 1, "time": 3.0}, "64,1": {"bx": 64, "tile": 1, "time": 2.0}`)
	out, errOut, code := ktune(t, "portability", a, b, c, "--probability", "0.5", "--performance", "0.8")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{
		"[1]  100.0%   fails   fails",
		"[2]   25.0%  100.0%  100.0%",
		"[1]'s best on [2]: runtime_error",
		"[1]'s best on [3]: absent",
		"2 of 6 pairs fail",
		"within 95% of the best, found with p = 0.5, n invocations reach rp = 0.8",
		"  1.7      2  11",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the output lacks %q:\n%s", want, out)
		}
	}
	out, _, _ = ktune(t, "portability", a, b, c, "--json")
	var got portabilityJSON
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	if cell := got.Portability.Cells[0][1]; cell.Percent != nil || cell.Fails != "runtime_error" || got.Portability.Summary.Failed != 2 {
		t.Errorf("A's best on B: %+v, summary %+v", cell, got.Portability.Summary)
	}
}

// Stored runs are spaces as files are: the GEMM caches imported give the same table.
func TestPortabilityOfStoredRuns(t *testing.T) {
	db := filepath.Join(t.TempDir(), "k.db")
	if _, errOut, code := ktune(t, "import", filepath.Join(gemmSpaces, "RTX_2080_Ti.json.gz"), filepath.Join(gemmSpaces, "RTX_3090.json.gz"), "--db", db); code != 0 {
		t.Fatalf("import: exit %d: %s", code, errOut)
	}
	out, errOut, code := ktune(t, "portability", "--run", "1,2", "--db", db, "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var got portabilityJSON
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	p := got.Portability
	if len(p.Spaces) != 2 || p.Spaces[0].Name != "run 1 Xgemm" || p.Cells[0][1].Percent == nil || math.Abs(*p.Cells[0][1].Percent-68.2132) > 5e-4 ||
		p.Cells[1][0].Percent == nil || math.Abs(*p.Cells[1][0].Percent-83.1916) > 5e-4 {
		t.Errorf("spaces %+v, cells %+v", p.Spaces, p.Cells)
	}
}

// Inputs that do not fit are refused, naming the spaces, with the usage's exit status
// where the command line is what is wrong.
func TestPortabilityRefusesInputsThatDoNotFit(t *testing.T) {
	gemm := filepath.Join(gemmSpaces, "RTX_3090.json.gz")
	conv := "../../testdata/benchmark_hub/kerneltuner_convolution/RTX_3090.json.gz"
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"one space", []string{gemm}, 2, "only kerneltuner_gemm/RTX_3090 was given"},
		{"no input", nil, 2, "give two or more recorded files or runs of one kernel"},
		{"two kernels", []string{gemm, conv}, 1, "kerneltuner_gemm/RTX_3090 and kerneltuner_convolution/RTX_3090 are not spaces of one kernel: different parameters"},
		{"unknown objective", []string{gemmSpaces, "--objective", "GB/s"}, 1, `kerneltuner_gemm/RTX_2080_Ti: no objective or metric named "GB/s" (have time, GFLOP/s)`},
		{"a missing file", []string{gemm, "no-such.json"}, 1, "no-such.json"},
		{"p of 1", []string{gemmSpaces, "--probability", "1"}, 2, "the probability 1 is not in (0, 1)"},
		{"both directions", []string{gemmSpaces, "--maximize", "--minimize"}, 2, "give --maximize or --minimize, not both"},
	}
	for _, tt := range tests {
		_, errOut, code := ktune(t, append([]string{"portability"}, tt.args...)...)
		if code != tt.code || !strings.Contains(errOut, tt.want) {
			t.Errorf("%s: exit %d, %q; want %d and %q", tt.name, code, errOut, tt.code, tt.want)
		}
	}
}
