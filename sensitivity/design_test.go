package sensitivity

import (
	"context"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/ktune/ktune/space"
)

// measure evaluates f on every valid point of d, NaN elsewhere.
func measure(sp *space.Space, d *Design, f func(c space.Config) float64) []float64 {
	y := make([]float64, len(d.Points))
	for i, c := range d.Points {
		y[i] = math.NaN()
		if sp.Contains(c) {
			y[i] = f(c)
		}
	}
	return y
}

func ishigamiSpace(t *testing.T, m int) (*space.Space, func(c space.Config) float64) {
	t.Helper()
	params, _, _ := ishigamiTable(1) // names only
	params = []space.Param{grid(params[0].Name, m), grid(params[1].Name, m), grid(params[2].Name, m)}
	sp, err := space.NewCompiled(params, nil)
	if err != nil {
		t.Fatal(err)
	}
	return sp, func(c space.Config) float64 {
		return ishigami(params[0].Values[c[0]].Float(), params[1].Values[c[1]].Float(), params[2].Values[c[2]].Float())
	}
}

func TestSaltelliIshigamiMatchesTheAnalyticIndices(t *testing.T) {
	sp, f := ishigamiSpace(t, 64)
	d, err := NewDesign(sp, 4096, Options{SecondOrder: true, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Points) != 4096*8 || DesignRows(3, 0, true) != 8 {
		t.Fatalf("%d points, want 4096 rows of 8", len(d.Points))
	}
	s, err := d.Estimate(context.Background(), measure(sp, d, f))
	if err != nil {
		t.Fatal(err)
	}
	if s.Method != Saltelli || s.Samples != 4096 || s.Bootstrap != DefaultBootstrap {
		t.Fatalf("method %s, samples %d, bootstrap %d", s.Method, s.Samples, s.Bootstrap)
	}
	r := ishigamiIndices
	checks := []struct {
		name      string
		iv        Interval
		want, tol float64
	}{
		// Tolerances are about three standard errors of each estimator at N = 4096.
		{"S1", s.First[0], r.S1, 0.06}, {"S2", s.First[1], r.S2, 0.06}, {"S3", s.First[2], r.S3, 0.06},
		{"ST1", s.Total[0], r.ST1, 0.04}, {"ST2", s.Total[1], r.ST2, 0.04}, {"ST3", s.Total[2], r.ST3, 0.03},
		{"S12", s.Second[0].Index, r.S12, 0.1}, {"S13", s.Second[1].Index, r.S13, 0.1}, {"S23", s.Second[2].Index, r.S23, 0.1},
	}
	for _, c := range checks {
		if math.Abs(c.iv.Value-c.want) > c.tol {
			t.Errorf("%s = %.4f, analytic %.4f (tolerance %.2f)", c.name, c.iv.Value, c.want, c.tol)
		}
		if c.iv.N != 4096 {
			t.Errorf("%s: %d rows used, want 4096", c.name, c.iv.N)
		}
	}
}

// TestSaltelliIntervalsCoverTheAnalyticIndices checks the 95% intervals over independent
// designs: each should miss an analytic value about one time in twenty.
func TestSaltelliIntervalsCoverTheAnalyticIndices(t *testing.T) {
	if testing.Short() {
		t.Skip("twelve designs of 32768 points")
	}
	sp, f := ishigamiSpace(t, 64)
	r := ishigamiIndices
	want := []float64{r.S1, r.S2, r.S3, r.ST1, r.ST2, r.ST3, r.S12, r.S13, r.S23}
	const designs = 12
	miss := make([]int, len(want))
	total := 0
	for seed := range uint64(designs) {
		d, err := NewDesign(sp, 4096, Options{SecondOrder: true, Seed: 100 + seed})
		if err != nil {
			t.Fatal(err)
		}
		s, err := d.Estimate(context.Background(), measure(sp, d, f))
		if err != nil {
			t.Fatal(err)
		}
		ivs := []Interval{s.First[0], s.First[1], s.First[2], s.Total[0], s.Total[1], s.Total[2],
			s.Second[0].Index, s.Second[1].Index, s.Second[2].Index}
		for i, iv := range ivs {
			if !(iv.Low <= want[i] && want[i] <= iv.High) {
				miss[i]++
				total++
			}
			if w := iv.High - iv.Low; w <= 0 || w > 0.25 {
				t.Errorf("seed %d, index %d: interval width %v", seed, i, w)
			}
		}
	}
	for i, m := range miss {
		if m > 3 {
			t.Errorf("index %d: %d of %d intervals miss the analytic value", i, m, designs)
		}
	}
	if rate := float64(total) / float64(designs*len(want)); rate > 0.12 {
		t.Errorf("%.0f%% of the intervals miss, want about 5%%", 100*rate)
	}
	t.Logf("misses per index over %d designs: %v", designs, miss)
}

func TestDesignLayoutAndDeterminism(t *testing.T) {
	sp, _ := ishigamiSpace(t, 10)
	d, err := NewDesign(sp, 50, Options{Subset: []int{2, 0}, SecondOrder: true, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	per := DesignRows(3, 2, true)
	if per != 6 || len(d.Points) != 50*per {
		t.Fatalf("%d points of %d per row", len(d.Points), per)
	}
	for j := range d.N {
		row := d.Points[j*per : (j+1)*per]
		a, b := row[0], row[1]
		for k, p := range []int{2, 0} {
			ab, ba := row[2+k], row[4+k]
			for q := range 3 {
				wantAB, wantBA := a[q], b[q]
				if q == p {
					wantAB, wantBA = b[q], a[q]
				}
				if ab[q] != wantAB || ba[q] != wantBA {
					t.Fatalf("row %d, param %d: A %v B %v AB %v BA %v", j, p, a, b, ab, ba)
				}
			}
		}
	}
	again, _ := NewDesign(sp, 50, Options{Subset: []int{2, 0}, SecondOrder: true, Seed: 3})
	longer, _ := NewDesign(sp, 80, Options{Subset: []int{2, 0}, SecondOrder: true, Seed: 3})
	other, _ := NewDesign(sp, 50, Options{Subset: []int{2, 0}, SecondOrder: true, Seed: 4})
	for i := range d.Points {
		if !slices.Equal(d.Points[i], again.Points[i]) || !slices.Equal(d.Points[i], longer.Points[i]) {
			t.Fatalf("point %d differs between draws with the same seed", i)
		}
	}
	same := 0
	for i := range d.Points {
		if slices.Equal(d.Points[i], other.Points[i]) {
			same++
		}
	}
	if same > len(d.Points)/10 {
		t.Errorf("another seed shares %d of %d points", same, len(d.Points))
	}
	if DesignRows(5, 0, false) != 7 || DesignRows(5, 1, true) != 3 {
		t.Error("DesignRows: want k+2 without second order and for a single parameter")
	}
}

// TestEstimateMatchesTheFormulasOnASmallDesign recomputes the estimators from the design's
// configurations with f directly, without the row layout Estimate relies on.
func TestEstimateMatchesTheFormulasOnASmallDesign(t *testing.T) {
	sp, f := ishigamiSpace(t, 6)
	d, err := NewDesign(sp, 40, Options{SecondOrder: true, Seed: 11, Bootstrap: -1})
	if err != nil {
		t.Fatal(err)
	}
	s, err := d.Estimate(context.Background(), measure(sp, d, f))
	if err != nil {
		t.Fatal(err)
	}
	var fa, fb []float64
	fab := make([][]float64, 3)
	fba := make([][]float64, 3)
	// A and B open each row of 8 points; AB and BA are rebuilt from them here.
	for j := range d.N {
		pts := d.Points[j*8 : (j+1)*8]
		a, b := pts[0], pts[1]
		fa, fb = append(fa, f(a)), append(fb, f(b))
		for i := range 3 {
			ab := a.Clone()
			ab[i] = b[i]
			ba := b.Clone()
			ba[i] = a[i]
			fab[i] = append(fab[i], f(ab))
			fba[i] = append(fba[i], f(ba))
		}
	}
	all := append(append([]float64{}, fa...), fb...)
	var m, V float64
	for _, v := range all {
		m += v
	}
	m /= float64(len(all))
	for _, v := range all {
		V += (v - m) * (v - m)
	}
	V /= float64(len(all))
	n := float64(d.N)
	S := make([]float64, 3)
	for i := range 3 {
		var s1, st float64
		for j := range d.N {
			s1 += (fb[j] - m) * (fab[i][j] - fa[j])
			st += (fa[j] - fab[i][j]) * (fa[j] - fab[i][j]) / 2
		}
		S[i] = s1 / n / V
		if math.Abs(s.First[i].Value-S[i]) > 1e-9 || math.Abs(s.Total[i].Value-st/n/V) > 1e-9 {
			t.Errorf("param %d: S %v ST %v, formulas %v %v", i, s.First[i].Value, s.Total[i].Value, S[i], st/n/V)
		}
	}
	for _, p := range s.Second {
		var c float64
		for j := range d.N {
			c += (fba[p.I][j]-m)*(fab[p.J][j]-m) - (fa[j]-m)*(fb[j]-m)
		}
		if want := c/n/V - S[p.I] - S[p.J]; math.Abs(p.Index.Value-want) > 1e-9 {
			t.Errorf("S_%d%d = %v, formula %v", p.I, p.J, p.Index.Value, want)
		}
	}
}

func TestEstimateDropsInvalidAndFailedRows(t *testing.T) {
	// A restricted space: x1 index <= x2 index, about half the product.
	params := []space.Param{grid("x1", 12), grid("x2", 12), grid("x3", 12)}
	var valid []space.Config
	for i := range 12 {
		for j := i; j < 12; j++ {
			for k := range 12 {
				valid = append(valid, space.Config{i, j, k})
			}
		}
	}
	sp, err := space.FromConfigs(params, valid)
	if err != nil {
		t.Fatal(err)
	}
	d, err := NewDesign(sp, 300, Options{SecondOrder: true, Seed: 5, Bootstrap: 50})
	if err != nil {
		t.Fatal(err)
	}
	invalid := 0
	for i, c := range d.Points {
		if d.Valid[i] != sp.Contains(c) {
			t.Fatalf("point %d: Valid %v, Contains %v", i, d.Valid[i], sp.Contains(c))
		}
		if !d.Valid[i] {
			invalid++
		}
	}
	if invalid == 0 {
		t.Fatal("a restricted space gave no invalid AB or BA point")
	}
	y := make([]float64, len(d.Points))
	for i, c := range d.Points {
		// Invalid points get a finite value Estimate must ignore; every 7th row's B fails.
		y[i] = float64(c[0] + 2*c[1] + c[0]*c[2])
		if i%(8*7) == 1 {
			y[i] = math.NaN()
		}
	}
	s, err := d.Estimate(context.Background(), y)
	if err != nil {
		t.Fatal(err)
	}
	wantSamples := 300 - (300+6)/7
	if s.Samples != wantSamples {
		t.Errorf("samples = %d, want %d", s.Samples, wantSamples)
	}
	// Recount the rows of S_1 by hand: A, B and AB_1 measured and valid.
	rows := 0
	for j := range d.N {
		if j%7 != 0 && d.Valid[j*8+2] {
			rows++
		}
	}
	if s.First[0].N != rows || rows == 0 || rows >= wantSamples {
		t.Errorf("S1 used %d rows, want %d (fewer than %d)", s.First[0].N, rows, wantSamples)
	}
	if s.Total[2].N != 300 {
		t.Errorf("ST3 (x3 is unrestricted, A and AB_3 never fail) used %d rows, want 300", s.Total[2].N)
	}
	for i := range s.First {
		for _, iv := range []Interval{s.First[i], s.Total[i]} {
			if math.IsNaN(iv.Value) || math.IsNaN(iv.Low) || iv.Low > iv.High {
				t.Errorf("param %d: interval %+v", i, iv)
			}
		}
	}
	if _, err := d.Estimate(context.Background(), y[1:]); err == nil {
		t.Error("Estimate accepted a y of the wrong length")
	}
	constant := make([]float64, len(y))
	for i := range constant {
		constant[i] = 2
	}
	if _, err := d.Estimate(context.Background(), constant); !errors.Is(err, ErrConstant) {
		t.Errorf("a constant objective: %v, want ErrConstant", err)
	}
	// an interrupted run measures a few rows: the error counts them in words (row 0's B
	// failed above, so rows 1 on are kept)
	per := DesignRows(len(params), 0, true)
	for _, rows := range []int{0, 1} {
		few := make([]float64, len(y))
		for i := range few {
			few[i] = math.NaN()
			if i >= per && i < (1+rows)*per {
				few[i] = y[i]
			}
		}
		want := map[int]string{0: "no design row has both base points", 1: "only 1 design row has both base points"}[rows]
		if _, err := d.Estimate(context.Background(), few); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%d rows measured: %v, want %q", rows, err, want)
		}
	}
}
