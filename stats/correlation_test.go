package stats

import (
	"encoding/json"
	"math"
	"testing"
)

func TestPearsonKnownValues(t *testing.T) {
	// x = 1..5, y = 2x+1: perfectly correlated; reversed: perfectly anti-correlated.
	x := []float64{1, 2, 3, 4, 5}
	y := []float64{3, 5, 7, 9, 11}
	if r := Pearson(x, y); math.Abs(r-1) > 1e-12 {
		t.Errorf("Pearson(linear) = %v, want 1", r)
	}
	rev := []float64{11, 9, 7, 5, 3}
	if r := Pearson(x, rev); math.Abs(r+1) > 1e-12 {
		t.Errorf("Pearson(reversed) = %v, want -1", r)
	}
	// Worked by hand: x = (1,2,3), y = (1,3,2): cov sum = (-1)(-1)+0+(1)(0) = 1,
	// sxx = 2, syy = 2, r = 1/2.
	if r := Pearson([]float64{1, 2, 3}, []float64{1, 3, 2}); math.Abs(r-0.5) > 1e-12 {
		t.Errorf("Pearson = %v, want 0.5", r)
	}
	if r := Pearson([]float64{1, 1, 1}, []float64{1, 2, 3}); !math.IsNaN(r) {
		t.Errorf("Pearson with a constant variable = %v, want NaN", r)
	}
	if r := Pearson([]float64{1}, []float64{2}); !math.IsNaN(r) {
		t.Errorf("Pearson of one pair = %v, want NaN", r)
	}
}

func TestRanksTies(t *testing.T) {
	got := Ranks([]float64{10, 20, 10, 30, 20, 20})
	want := []float64{1.5, 4, 1.5, 6, 4, 4}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("Ranks = %v, want %v", got, want)
		}
	}
}

func TestSpearmanMonotone(t *testing.T) {
	// A monotone but non-linear relation has Spearman 1 and Pearson below 1.
	x := []float64{1, 2, 3, 4, 5, 6}
	y := make([]float64, len(x))
	for i, v := range x {
		y[i] = math.Exp(v)
	}
	if r := Spearman(x, y); math.Abs(r-1) > 1e-12 {
		t.Errorf("Spearman(exp) = %v, want 1", r)
	}
	if r := Pearson(x, y); r >= 0.95 {
		t.Errorf("Pearson(exp) = %v, want clearly below 1", r)
	}
	// Classic example: d = rank differences (0, -1, 1, 0, 0) -> rho = 1 - 6*2/(5*24) = 0.9.
	if r := Spearman([]float64{1, 2, 3, 4, 5}, []float64{1, 3, 2, 4, 5}); math.Abs(r-0.9) > 1e-12 {
		t.Errorf("Spearman = %v, want 0.9", r)
	}
}

func TestFloatJSON(t *testing.T) {
	b, err := json.Marshal([]Float{1.5, Float(math.NaN()), Float(math.Inf(-1))})
	if err != nil || string(b) != "[1.5,null,null]" {
		t.Fatalf("Marshal = %s, %v", b, err)
	}
	var back []Float
	if err := json.Unmarshal(b, &back); err != nil || back[0] != 1.5 || !math.IsNaN(float64(back[1])) {
		t.Fatalf("Unmarshal = %v, %v", back, err)
	}
}
