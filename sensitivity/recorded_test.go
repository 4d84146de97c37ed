package sensitivity_test

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/ktune/ktune/format"
	_ "github.com/ktune/ktune/format/all"
	"github.com/ktune/ktune/sensitivity"
	"github.com/ktune/ktune/simulator"
	"github.com/ktune/ktune/space"
)

// recordedTable reads a recorded space and returns its successful configurations as a
// table, and the simulator (recorded mode) it came from.
func recordedTable(tb testing.TB, path string) ([]space.Param, []space.Config, []float64, *simulator.Simulator) {
	tb.Helper()
	rec, err := format.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	sim, err := simulator.New(rec, simulator.Options{Mode: simulator.Recorded})
	if err != nil {
		tb.Fatal(err)
	}
	sp := sim.Space()
	var cfgs []space.Config
	var y []float64
	for i := range sp.Len() {
		c := sp.At(i, nil)
		if v, ok := sim.Objective(c); ok {
			cfgs = append(cfgs, c)
			y = append(y, v)
		}
	}
	return sp.Params(), cfgs, y, sim
}

func TestRecordedPnpoly(t *testing.T) {
	params, cfgs, y, sim := recordedTable(t, "../testdata/benchmark_hub/kerneltuner_pnpoly/RTX_2080_Ti.json.gz")
	if len(cfgs) < 100 {
		t.Fatalf("only %d successful configurations", len(cfgs))
	}
	start := time.Now()
	s, err := sensitivity.SobolTable(context.Background(), params, cfgs, y, sensitivity.Options{SecondOrder: true, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	elapsed := time.Since(start)
	t.Logf("%d configurations, %d parameters, method %s, %v with %d resamples", len(cfgs), len(params), s.Method, elapsed, s.Bootstrap)
	if elapsed > 5*time.Second {
		t.Errorf("analysis took %v", elapsed)
	}
	product := 1
	for _, p := range params {
		product *= len(p.Values)
	}
	wantMethod := sensitivity.Exact
	if len(cfgs) != product {
		wantMethod = sensitivity.Empirical
	}
	if s.Method != wantMethod {
		t.Errorf("method %s for %d of %d product configurations, want %s", s.Method, len(cfgs), product, wantMethod)
	}
	var sum float64
	for i := range s.First {
		for _, iv := range []sensitivity.Interval{s.First[i], s.Total[i]} {
			if iv.Value < -1e-9 || iv.Value > 1+1e-9 {
				t.Errorf("%s: index %v outside [0, 1]", s.Params[i], iv.Value)
			}
			if !(iv.Low <= iv.Value && iv.Value <= iv.High) {
				t.Errorf("%s: interval %+v", s.Params[i], iv)
			}
		}
		sum += s.First[i].Value
	}
	if sum > 1.05 {
		t.Errorf("first-order indices sum to %v", sum)
	}
	// An independent first-order computation: group the objective by the parameter's value
	// string and take the variance of the group means, weighted by group size.
	for i, p := range s.Subset {
		groups := map[string][]float64{}
		var mean float64
		for r, c := range cfgs {
			key := params[p].Values[c[p]].String()
			groups[key] = append(groups[key], y[r])
			mean += y[r]
		}
		mean /= float64(len(y))
		var between, total float64
		for _, g := range groups {
			var m float64
			for _, v := range g {
				m += v
			}
			m /= float64(len(g))
			between += float64(len(g)) * (m - mean) * (m - mean)
		}
		for _, v := range y {
			total += (v - mean) * (v - mean)
		}
		if want := between / total; math.Abs(s.First[i].Value-want) > 1e-9 {
			t.Errorf("%s: first order %v, group means give %v", s.Params[i], s.First[i].Value, want)
		}
	}
	// The recording covers the whole product, but some configurations failed: that breaks
	// the product. Giving the failed ones a value (as a penalty would) restores it.
	if sim.Space().Len() != product || len(cfgs) >= product || s.Method != sensitivity.Empirical {
		t.Fatalf("space %d, product %d, successful %d, method %s: want a product with failures, empirical",
			sim.Space().Len(), product, len(cfgs), s.Method)
	}
	full := sim.Space()
	var fc []space.Config
	var fy []float64
	for i := range full.Len() {
		c := full.At(i, nil)
		v, ok := sim.Objective(c)
		if !ok {
			v = 1e3
		}
		fc, fy = append(fc, c), append(fy, v)
	}
	if e, err := sensitivity.SobolTable(context.Background(), params, fc, fy, sensitivity.Options{Bootstrap: -1}); err != nil || e.Method != sensitivity.Exact || e.Samples != product {
		t.Errorf("penalised full product: %+v, %v; want exact over %d", e, err, product)
	}
	cs := sensitivity.Significance(params, cfgs, y)
	for _, c := range cs {
		if c.N != len(cfgs) || (!math.IsNaN(c.Pearson) && math.Abs(c.Pearson) > 1) {
			t.Errorf("significance %+v", c)
		}
	}
}

// TestRecordedIntervalsAreSharesOfVariance takes slices of the recorded pnpoly space
// small enough for wide intervals (two methods fixed, four tile sizes: 16 configurations
// or so, empirical as the slice is not the product of all four parameters' values). There
// block_size_x explains almost everything, its total-order index is about 1, and the
// re-centred interval reached past 1 (QA saw [0.527, 1.179]): every bound of a first- or
// total-order index must be a share of variance, in [0, 1], and contain its estimate.
func TestRecordedIntervalsAreSharesOfVariance(t *testing.T) {
	params, cfgs, y, _ := recordedTable(t, "../testdata/benchmark_hub/kerneltuner_pnpoly/RTX_2080_Ti.json.gz")
	atOne := 0
	for r0 := 0; r0 < len(cfgs); r0 += 37 {
		var c []space.Config
		var yy []float64
		for i, cf := range cfgs {
			if cf[2] == cfgs[r0][2] && cf[3] == cfgs[r0][3] && cf[1] < 4 {
				c, yy = append(c, cf), append(yy, y[i])
			}
		}
		s, err := sensitivity.SobolTable(context.Background(), params, c, yy, sensitivity.Options{SecondOrder: true, Seed: 1})
		if errors.Is(err, sensitivity.ErrConstant) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if s.Method != sensitivity.Empirical || s.Bootstrap != sensitivity.DefaultBootstrap {
			t.Fatalf("slice at row %d: method %s with %d resamples, want empirical with %d", r0, s.Method, s.Bootstrap, sensitivity.DefaultBootstrap)
		}
		for i := range s.First {
			for _, iv := range []sensitivity.Interval{s.First[i], s.Total[i]} {
				if !(0 <= iv.Low && iv.Low <= iv.Value+1e-12 && iv.Value-1e-12 <= iv.High && iv.High <= 1) {
					t.Errorf("slice at row %d (%d configurations): %s has the interval %+v, want 0 <= low <= value <= high <= 1", r0, len(c), s.Params[i], iv)
				}
				if iv.High == 1 {
					atOne++
				}
			}
		}
	}
	if atOne == 0 {
		t.Error("no interval reaches 1: the slices no longer test the upper bound")
	}
}

// TestRecordedFullProductHasNoIntervals: the recorded vector_add cache with energy is the
// full product of its parameters' values (15 block sizes at one clock), so its indices are exact, and a bootstrap over
// its configurations (QA saw 0.061 [0.000, 0.473] on such a product) would express no
// uncertainty of theirs: none is drawn, however many resamples are asked for.
func TestRecordedFullProductHasNoIntervals(t *testing.T) {
	params, cfgs, y, _ := recordedTable(t, "../testdata/kernel_tuner/time_energy.json")
	s, err := sensitivity.SobolTable(context.Background(), params, cfgs, y, sensitivity.Options{SecondOrder: true, Seed: 1, Bootstrap: 500})
	if err != nil {
		t.Fatal(err)
	}
	if s.Method != sensitivity.Exact {
		t.Fatalf("method %s over %d configurations, want exact", s.Method, len(cfgs))
	}
	if s.Bootstrap != 0 {
		t.Errorf("exact indices drew %d resamples, want none", s.Bootstrap)
	}
	for i := range s.First {
		for _, iv := range []sensitivity.Interval{s.First[i], s.Total[i]} {
			if !math.IsNaN(iv.Low) || !math.IsNaN(iv.High) {
				t.Errorf("%s: exact index with the interval %+v", s.Params[i], iv)
			}
		}
	}
}

// BenchmarkSobolTable measures the whole table analysis (all pairs, default bootstrap) on
// the recorded pnpoly space.
func BenchmarkSobolTable(b *testing.B) {
	params, cfgs, y, _ := recordedTable(b, "../testdata/benchmark_hub/kerneltuner_pnpoly/RTX_2080_Ti.json.gz")
	for b.Loop() {
		if _, err := sensitivity.SobolTable(context.Background(), params, cfgs, y, sensitivity.Options{SecondOrder: true, Seed: 1}); err != nil {
			b.Fatal(err)
		}
	}
}

// TestBootstrapStopsWhenCancelled: the bootstrap of a large table takes minutes with many
// resamples, and Ctrl-C must end it: a cancelled context ends SobolTable and
// Design.Estimate with the context's error instead of indices.
func TestBootstrapStopsWhenCancelled(t *testing.T) {
	params, cfgs, y, sim := recordedTable(t, "../testdata/benchmark_hub/convolution_milo/A100.json.gz")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	start := time.Now()
	// convolution_milo has failures, so the table is empirical and bootstrapped; a million
	// resamples would take hours
	s, err := sensitivity.SobolTable(ctx, params, cfgs, y, sensitivity.Options{SecondOrder: true, Seed: 1, Bootstrap: 1_000_000})
	if !errors.Is(err, context.Canceled) || s != nil {
		t.Errorf("SobolTable with a cancelled context: %v, %v; want context.Canceled", s, err)
	}
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("SobolTable took %v to stop", took)
	}
	// uncancelled, the same table gives indices: the error above is the cancellation's
	if _, err := sensitivity.SobolTable(context.Background(), params, cfgs, y, sensitivity.Options{Seed: 1, Bootstrap: 20}); err != nil {
		t.Fatal(err)
	}

	d, err := sensitivity.NewDesign(sim.Space(), 200, sensitivity.Options{SecondOrder: true, Seed: 3, Bootstrap: 1_000_000})
	if err != nil {
		t.Fatal(err)
	}
	yd := make([]float64, len(d.Points))
	for i, c := range d.Points {
		yd[i] = float64(c[0]) + 2*float64(c[1]) + float64(c[0]*c[2])
	}
	start = time.Now()
	if s, err := d.Estimate(ctx, yd); !errors.Is(err, context.Canceled) || s != nil {
		t.Errorf("Estimate with a cancelled context: %v, %v; want context.Canceled", s, err)
	}
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("Estimate took %v to stop", took)
	}
}

// TestEmpiricalNoteSpeaksOfIntervalsOnlyWithThem: the note of empirical indices explains
// their bootstrap intervals where there are some, and says nothing of intervals without a
// bootstrap (QA: 'ktune analyze --bootstrap 0' explained intervals it did not print).
func TestEmpiricalNoteSpeaksOfIntervalsOnlyWithThem(t *testing.T) {
	params, cfgs, y, _ := recordedTable(t, "../testdata/benchmark_hub/convolution_milo/A100.json.gz")
	for _, tt := range []struct {
		bootstrap int
		intervals bool
	}{{-1, false}, {20, true}} {
		s, err := sensitivity.SobolTable(context.Background(), params, cfgs, y, sensitivity.Options{Seed: 1, Bootstrap: tt.bootstrap})
		if err != nil {
			t.Fatal(err)
		}
		if s.Method != sensitivity.Empirical || !strings.HasPrefix(s.Note, "empirical:") {
			t.Fatalf("method %s, note %q: want empirical indices of a space with failures", s.Method, s.Note)
		}
		if got := strings.Contains(s.Note, "intervals"); got != tt.intervals || (s.Bootstrap > 0) != tt.intervals {
			t.Errorf("--bootstrap %d: %d resamples, note %q: want intervals spoken of %v", tt.bootstrap, s.Bootstrap, s.Note, tt.intervals)
		}
	}
}
