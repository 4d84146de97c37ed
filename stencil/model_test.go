package stencil

import (
	"bytes"
	"math"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/ktune/ktune/format"
	_ "github.com/ktune/ktune/format/all"
)

// FromName gives back the stencil that Generate named, for every shape.
func TestFromNameInvertsGenerate(t *testing.T) {
	for _, o := range []Options{
		{Dim: 2, Order: 3, Shape: Random, Seed: 14},
		{Dim: 3, Order: 2, Shape: Random, Seed: 6},
		{Dim: 3, Order: 2, Shape: Star, Seed: 1},
		{Dim: 2, Order: 1, Shape: Box, Seed: 1},
	} {
		s, err := Generate(o)
		if err != nil {
			t.Fatal(err)
		}
		got, err := FromName(s.Name)
		if err != nil {
			t.Fatalf("%s: %v", s.Name, err)
		}
		if !reflect.DeepEqual(got, s) {
			t.Errorf("%s: FromName gave another stencil", s.Name)
		}
	}
	for _, bad := range []string{"random2d3r", "star2d2r_s4", "ring2d2r", "star4d1r", "gemm"} {
		if _, err := FromName(bad); err == nil {
			t.Errorf("FromName(%q) accepted", bad)
		}
	}
}

// The combination of a setting is the optimisations it turns on, and the encoding pads
// what the combination lacks with zeros: the 2D block_size_z, a tile without streaming,
// merging factors of 1.
func TestCombinationAndZeroPadding(t *testing.T) {
	for _, c := range []struct {
		setting map[string]float64
		oc      string
		padded  []float64
	}{
		{map[string]float64{"block_size_x": 32, "block_size_y": 4, "block_merge": 1, "cyclic_merge": 1},
			"none", []float64{5, 2, 0, 0, 0, 0, 0, 0, 0, 0}},
		{map[string]float64{"block_size_x": 64, "block_size_y": 1, "block_merge": 4, "cyclic_merge": 1},
			"BM", []float64{6, 0, 0, 2, 0, 0, 0, 0, 0, 0}},
		{map[string]float64{"block_size_x": 16, "block_size_y": 2, "block_size_z": 4, "block_merge": 1, "cyclic_merge": 2,
			"streaming": 0, "stream_tile": 8, "retiming": 0, "prefetching": 0},
			"CM", []float64{4, 1, 2, 0, 1, 0, 0, 0, 0, 0}},
		{map[string]float64{"block_size_x": 128, "block_size_y": 2, "block_size_z": 1, "block_merge": 2, "cyclic_merge": 1,
			"streaming": 1, "stream_tile": 32, "retiming": 1, "prefetching": 1},
			"BM+ST+RT+PR", []float64{7, 1, 0, 1, 0, 1, 5, 1, 1, 0}},
		{map[string]float64{"block_size_x": 32, "block_size_y": 16, "block_merge": 1, "cyclic_merge": 1, "temporal_block": 4},
			"TB", []float64{5, 4, 0, 0, 0, 0, 0, 0, 0, 2}},
	} {
		if oc := Combination(c.setting); oc != c.oc {
			t.Errorf("%v: combination %s, want %s", c.setting, oc, c.oc)
		}
		if got := padSetting(nil, c.setting); !reflect.DeepEqual(got, c.padded) {
			t.Errorf("%v: padded %v, want %v", c.setting, got, c.padded)
		}
	}
	s, _ := Generate(Options{Dim: 2, Order: 2, Shape: Star})
	x := Encode(s, map[string]float64{"block_size_x": 32})
	if len(x) != len(EncodingNames()) {
		t.Errorf("%d inputs, %d names", len(x), len(EncodingNames()))
	}
	if err := CheckSetting([]string{"block_size_x", "tile"}); err == nil || !strings.Contains(err.Error(), "tile") {
		t.Errorf("CheckSetting of a foreign parameter: %v", err)
	}
}

// The boosted trees learn a known function of three inputs, one of them noise, far better
// than its mean does, on points they did not see.
func TestBoostedTreesLearnAKnownFunction(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 5))
	f := func(x []float64) float64 {
		y := 2 * x[0]
		if x[1] > 0.5 {
			y += 3
		}
		return y
	}
	draw := func(n int) ([][]float64, []float64) {
		var xs [][]float64
		var ys []float64
		for range n {
			x := []float64{r.Float64(), r.Float64(), r.Float64()}
			xs, ys = append(xs, x), append(ys, f(x))
		}
		return xs, ys
	}
	xs, ys := draw(400)
	m := gbFit(xs, ys, defaultGBParams, rand.New(rand.NewPCG(1, 1)))
	tx, ty := draw(200)
	mean := 0.0
	for _, y := range ys {
		mean += y / float64(len(ys))
	}
	var se, seMean float64
	for i, x := range tx {
		se += math.Pow(m.predict(x)-ty[i], 2)
		seMean += math.Pow(mean-ty[i], 2)
	}
	if se > 0.02*seMean {
		t.Errorf("squared error %.3f, the mean's %.3f: want under 2%% of it", se, seMean)
	}
}

// measured returns the recordings of testdata/measured (scripts/stencil-dataset.sh).
func measured(t *testing.T) []string {
	t.Helper()
	paths, _ := filepath.Glob("testdata/measured/*.json.gz")
	if len(paths) < 4 {
		t.Fatalf("testdata/measured has %d recordings, want at least 4 (scripts/stencil-dataset.sh)", len(paths))
	}
	return paths
}

func readSamples(t *testing.T, path string) []Sample {
	t.Helper()
	rec, err := format.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	s, err := RecordingSamples(rec)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// Trained on the other measured stencils (PoCL, scripts/stencil-dataset.sh), the model
// predicts each held-out stencil's kernel times with a lower MAPE, over all held-out
// measurements, than predicting the training set's mean time does, and orders each
// held-out stencil's settings with a rank correlation of at least 0.4 (what Algorithm 2
// uses). Predicting the median has a lower MAPE than the model on these recordings (it
// errs low, which MAPE punishes least; the model's errors are mostly a stencil's level,
// from seven stencils to learn it from): the test logs it, BENCHMARKS.md reports it.
func TestModelPredictsHeldOutStencilsBetterThanTheMean(t *testing.T) {
	paths := measured(t)
	samples := make([][]Sample, len(paths))
	for i, p := range paths {
		samples[i] = readSamples(t, p)
	}
	var pred, meanPred, medianPred, meas []float64
	for i := range paths {
		var train []Sample
		for j := range paths {
			if j != i {
				train = append(train, samples[j]...)
			}
		}
		m, err := Train(train, TrainOptions{Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		mean, median := MeanMedianTime(train)
		var p, ms []float64
		for _, s := range samples[i] {
			p = append(p, m.Predict(s.Stencil, s.Setting))
			ms = append(ms, s.TimeMS)
			meanPred, medianPred = append(meanPred, mean), append(medianPred, median)
		}
		rho := Spearman(p, ms)
		t.Logf("%s: MAPE %.1f%%, rank correlation %.3f", samples[i][0].Stencil.Name, MAPE(p, ms), rho)
		if rho < 0.4 {
			t.Errorf("%s: rank correlation %.3f, want 0.4 or more", samples[i][0].Stencil.Name, rho)
		}
		pred, meas = append(pred, p...), append(meas, ms...)
	}
	got, byMean, byMedian := MAPE(pred, meas), MAPE(meanPred, meas), MAPE(medianPred, meas)
	t.Logf("held out: MAPE %.1f%%, predicting the mean %.1f%%, the median %.1f%%", got, byMean, byMedian)
	if got >= byMean {
		t.Errorf("held-out MAPE %.1f%%, not below the mean's %.1f%%", got, byMean)
	}
}

// A saved model reads back to the same predictions; a damaged one is refused, saying
// what to do.
func TestModelSaveLoad(t *testing.T) {
	paths := measured(t)
	train := readSamples(t, paths[0])
	m, err := Train(train, TrainOptions{Trees: 40, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := m.Save(&buf); err != nil {
		t.Fatal(err)
	}
	back, err := LoadModel(bytes.NewReader(buf.Bytes()), "m.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range train[:20] {
		if a, b := m.Predict(s.Stencil, s.Setting), back.Predict(s.Stencil, s.Setting); a != b {
			t.Fatalf("prediction %v before saving, %v after", a, b)
		}
	}
	again, _ := Train(train, TrainOptions{Trees: 40, Seed: 3})
	var buf2 bytes.Buffer
	again.Save(&buf2)
	if !bytes.Equal(buf.Bytes(), buf2.Bytes()) {
		t.Error("the same samples and seed trained another model")
	}
	for _, bad := range []string{
		`{"format": "other"}`,
		strings.Replace(buf.String(), `"trees":[[`, `"trees":[[{"f":0,"t":1},`, 1),
		strings.Replace(buf.String(), `"inputs":["dim"`, `"inputs":["dims"`, 1),
	} {
		if _, err := LoadModel(strings.NewReader(bad), "bad.json"); err == nil || !strings.Contains(err.Error(), "bad.json") {
			t.Errorf("a damaged model: %v", err)
		}
	}
}
