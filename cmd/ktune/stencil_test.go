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
