package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ktune/ktune/spec"
)

// 'ktune stencil generate' writes a spec that loads, the same for the same seed;
// 'features --json' gives Table 2's features of the 5-point star.
func TestStencilGenerateAndFeatures(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "s.yaml")
	if _, errOut, code := ktune(t, "stencil", "generate", "--dim", "3", "--order", "2", "--seed", "4", "--size", "40,30,20", "-o", path); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	s, err := spec.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if sp, err := s.Space(); err != nil || sp.Len() == 0 {
		t.Fatalf("space: %v", err)
	}
	again, _, _ := ktune(t, "stencil", "--dim", "3", "--order", "2", "--seed", "4", "--size", "40,30,20")
	if data, _ := os.ReadFile(path); string(data) != again {
		t.Error("generate to standard output differs from the file of the same options")
	}
	out, errOut, code := ktune(t, "stencil", "features", "--shape", "star", "--json")
	if code != 0 {
		t.Fatalf("features: exit %d: %s", code, errOut)
	}
	var v struct {
		Name     string
		Features struct {
			NNZ      int       `json:"nnz"`
			Sparsity float64   `json:"sparsity"`
			NNZStep  []int     `json:"nnz_step"`
			Ratio    []float64 `json:"nnz_order_ratio"`
		}
		Points []struct{ Offset []int }
	}
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatal(err)
	}
	f := v.Features
	if v.Name != "star2d1r" || f.NNZ != 5 || f.Sparsity != 5.0/9 || len(f.NNZStep) != 2 || f.NNZStep[0] != 4 || f.Ratio[0] != 0.8 || len(v.Points) != 5 {
		t.Errorf("features: %s", out)
	}
	for _, args := range [][]string{{"stencil", "--shape", "ring"}, {"stencil", "--dim", "4"}, {"stencil", "bogus"}, {"stencil", "--size", "10,x"}} {
		if _, errOut, code := ktune(t, args...); code != 2 || !strings.Contains(errOut, "ktune stencil:") {
			t.Errorf("%q: exit %d: %s", args, code, errOut)
		}
	}
}

// GSTuner's pipeline end to end on stencils measured on PoCL: 'stencil train' fits a
// model to three recordings and reports its error on a fourth, held out; 'simulate' runs
// mpga with sample=quota on the held-out stencil's recording, which searches 10% of its
// 147 settings (15, or an iteration's few more) and so ends before its budget.
func TestStencilTrainAndQuotaSampling(t *testing.T) {
	dir := t.TempDir()
	model := filepath.Join(dir, "m.json")
	rec := func(name string) string {
		return filepath.Join("..", "..", "stencil", "testdata", "measured", name+".json.gz")
	}
	out, errOut, code := ktune(t, "stencil", "train", rec("random2d1r_s11"), rec("random2d3r_s13"), rec("random2d4r_s14"),
		"--test", rec("random2d2r_s12"), "-o", model, "--json")
	if code != 0 {
		t.Fatalf("train: exit %d: %s", code, errOut)
	}
	var tr struct {
		Stencils []string
		Samples  int `json:"measurements"`
		Tests    []struct {
			Stencil      string
			Measurements int
			ModelMAPE    float64 `json:"model_mape"`
			MeanMAPE     float64 `json:"mean_mape"`
		}
	}
	if err := json.Unmarshal([]byte(out), &tr); err != nil {
		t.Fatal(err)
	}
	if len(tr.Stencils) != 3 || tr.Samples < 400 || len(tr.Tests) != 1 || tr.Tests[0].Stencil != "random2d2r_s12" ||
		tr.Tests[0].Measurements != 147 || !(tr.Tests[0].ModelMAPE > 0) || !(tr.Tests[0].MeanMAPE > 0) {
		t.Errorf("train: %s", out)
	}
	out, errOut, code = ktune(t, "simulate", rec("random2d2r_s12"), "--mode", "recorded", "--strategy", "mpga",
		"--option", "sample=quota", "--option", "model="+model, "--option", "stencil=random2d2r_s12",
		"--budget", "100", "--repeats", "4", "--json")
	if code != 0 {
		t.Fatalf("simulate: exit %d: %s", code, errOut)
	}
	var sim struct {
		Runs []struct {
			Fraction    float64 `json:"fraction_of_optimum"`
			Evaluations int     `json:"evaluations"`
			Stop        string  `json:"stop"`
		} `json:"runs"`
	}
	if err := json.Unmarshal([]byte(out), &sim); err != nil {
		t.Fatal(err)
	}
	if len(sim.Runs) != 4 {
		t.Fatalf("simulate: %s", out)
	}
	for _, r := range sim.Runs {
		if r.Evaluations < 15 || r.Evaluations > 22 || r.Stop == "budget" || !(r.Fraction > 0 && r.Fraction <= 1) {
			t.Errorf("a run of mpga sample=quota: %+v, want 15 to 22 evaluations, the sampled settings", r)
		}
	}
	for _, c := range []struct {
		opts []string
		want string
	}{
		{[]string{"sample=quota", "stencil=random2d2r_s12"}, "needs model=FILE"},
		{[]string{"sample=quota", "model=" + model}, "needs stencil=NAME"},
		{[]string{"model=" + model}, "are for sample=quota"},
		{[]string{"sample=quota", "model=" + model, "stencil=gemm"}, "option stencil"},
		{[]string{"sample=quota", "model=" + model, "stencil=random2d2r_s12", "tr=0.00001", "ar=0", "lr=0"}, "raise tr"},
	} {
		args := []string{"simulate", rec("random2d2r_s12"), "--strategy", "mpga", "--budget", "10"}
		for _, o := range c.opts {
			args = append(args, "--option", o)
		}
		if _, errOut, code := ktune(t, args...); code == 0 || !strings.Contains(errOut, c.want) {
			t.Errorf("%q: exit %d: %s, want an error saying %q", c.opts, code, errOut, c.want)
		}
	}
}
