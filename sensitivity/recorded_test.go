package sensitivity_test

import (
	"math"
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
	s, err := sensitivity.SobolTable(params, cfgs, y, sensitivity.Options{SecondOrder: true, Seed: 1})
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
	if e, err := sensitivity.SobolTable(params, fc, fy, sensitivity.Options{Bootstrap: -1}); err != nil || e.Method != sensitivity.Exact || e.Samples != product {
		t.Errorf("penalised full product: %+v, %v; want exact over %d", e, err, product)
	}
	cs := sensitivity.Significance(params, cfgs, y)
	for _, c := range cs {
		if c.N != len(cfgs) || (!math.IsNaN(c.Pearson) && math.Abs(c.Pearson) > 1) {
			t.Errorf("significance %+v", c)
		}
	}
}

// BenchmarkSobolTable measures the whole table analysis (all pairs, default bootstrap) on
// the recorded pnpoly space.
func BenchmarkSobolTable(b *testing.B) {
	params, cfgs, y, _ := recordedTable(b, "../testdata/benchmark_hub/kerneltuner_pnpoly/RTX_2080_Ti.json.gz")
	for b.Loop() {
		if _, err := sensitivity.SobolTable(params, cfgs, y, sensitivity.Options{SecondOrder: true, Seed: 1}); err != nil {
			b.Fatal(err)
		}
	}
}
