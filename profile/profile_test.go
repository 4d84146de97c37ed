package profile_test

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/ktune/ktune/format"
	_ "github.com/ktune/ktune/format/all"
	"github.com/ktune/ktune/profile"
	"github.com/ktune/ktune/result"
)

const (
	convolutionPath = "../testdata/benchmark_hub/ktt_convolution/RTX_2080_Ti.json.gz"
	pnpolyPath      = "../testdata/benchmark_hub/ktt_pnpoly/RTX_2080_Ti.json.gz"
	coulombPath     = "../testdata/ktt/coulomb_sum_3d/RTX_2080_Ti.json.gz"
)

func open(t *testing.T, path string) *result.Recording {
	t.Helper()
	rec, err := format.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	return rec
}

func firstOK(t *testing.T, rec *result.Recording) *result.Evaluation {
	t.Helper()
	for i := range rec.Evaluations {
		if !rec.Evaluations[i].Failed() {
			return &rec.Evaluations[i]
		}
	}
	t.Fatal("no successful evaluation")
	return nil
}

// Every counter of Table 1 is found under its Nsight Compute name in the three recordings
// with counters, and the classes are the paper's: 17 PCops (with the thread count) and 7
// PCstress.
func TestTableReadsTheRecordedCounterNames(t *testing.T) {
	ops, stress := 0, 0
	for _, s := range profile.Table {
		if s.Class == profile.Ops {
			ops++
		} else {
			stress++
		}
	}
	if ops != 18 || stress != 7 {
		t.Errorf("%d PCops and %d PCstress, want 18 (17 of Table 1 and the thread count) and 7", ops, stress)
	}
	for _, path := range []string{convolutionPath, pnpolyPath, coulombPath} {
		rec := open(t, path)
		n := 0
		for i := range rec.Evaluations {
			e := &rec.Evaluations[i]
			if e.Failed() {
				continue
			}
			if _, err := profile.Read(e); err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			n++
		}
		if n == 0 {
			t.Fatalf("%s: nothing read", path)
		}
	}
	// the first result of coulomb_sum_3d, as its file has it
	c, err := profile.Read(firstOK(t, open(t, coulombPath)))
	if err != nil {
		t.Fatal(err)
	}
	want := map[profile.Counter]float64{profile.DRAMRead: 2100194, profile.InstF32: 8606711808,
		profile.IssueUtil: 30.90363632831649, profile.WarpEfficiency: 100, profile.SMEfficiency: 99.92797347806284}
	for k, v := range want {
		if c[k] != v {
			t.Errorf("%s = %v, want %v", k, c[k], v)
		}
	}
	if profile.Table[profile.DRAMUtil].Class != profile.Stress || profile.Table[profile.IssueUtil].Class != profile.Ops {
		t.Error("DRAM_U must be PCstress and INST_ISSUE_U PCops (Table 1)")
	}
}

// A recording without counters is refused with ErrNoCounters; one with some of them
// missing names what is missing.
func TestReadWithoutCounters(t *testing.T) {
	rec := open(t, "../testdata/kernel_tuner/vector_add_A4000.json")
	if _, err := profile.Read(firstOK(t, rec)); !errors.Is(err, profile.ErrNoCounters) {
		t.Errorf("Kernel Tuner cache: %v, want ErrNoCounters", err)
	}
	if _, err := profile.Train(rec, profile.TrainOptions{}); !errors.Is(err, profile.ErrNoCounters) {
		t.Errorf("Train on a Kernel Tuner cache: %v, want ErrNoCounters", err)
	}
	e := *firstOK(t, open(t, pnpolyPath))
	e.Metrics = map[string]float64{}
	for k, v := range firstOK(t, open(t, pnpolyPath)).Metrics {
		if k != "dram__sectors_write.sum" {
			e.Metrics[k] = v
		}
	}
	if _, err := profile.Read(&e); err == nil || !strings.Contains(err.Error(), "dram__sectors_write.sum") {
		t.Errorf("one counter missing: %v, want an error naming it", err)
	}
}

// The bottleneck analysis of the first recorded coulomb_sum_3d configuration follows eqs.
// 6-15, worked by hand from its counters.
func TestAnalyzeARecordedConfiguration(t *testing.T) {
	e := firstOK(t, open(t, coulombPath))
	c, err := profile.Read(e)
	if err != nil {
		t.Fatal(err)
	}
	b := profile.Analyze(&c, 4352)
	const dramU = 6.515303129123792 / 100
	fitted := 32 * 341835776.0 // eq. 9, both warp efficiencies 100%
	issue := 30.90363632831649 / 50
	fp32 := 8606711808 / fitted
	want := map[profile.Bottleneck]float64{
		profile.BDRAMRead:   2100194.0 / (2100194 + 2020263) * dramU, // eq. 6
		profile.BDRAMWrite:  2020263.0 / (2100194 + 2020263) * dramU, // eq. 7
		profile.BTex:        12.322187152929427 / 100,
		profile.BF32:        fp32 * issue,                           // eq. 10
		profile.BIssue:      fp32 * (100 - 30.90363632831649) / 100, // eqs. 11-12: fp32 dominates
		profile.BSM:         (100 - 99.92797347806284) / 100,        // eq. 13
		profile.BLocal:      0,                                      // no local memory
		profile.BSharedRead: 0,
	}
	for k, v := range want {
		if math.Abs(b[k]-v) > 1e-12 {
			t.Errorf("%s = %v, want %v", k, b[k], v)
		}
	}
	threads := c[profile.Threads]
	if p := max(0, (4352*5-threads)/(4352*5)); b[profile.BParallelism] != p {
		t.Errorf("parallelism = %v, want %v from %v threads", b[profile.BParallelism], p, threads)
	}
	d := profile.Required(&b, profile.InstReaction)
	if d[profile.DRAMRead] != -b[profile.BDRAMRead] || d[profile.TexRequests] != -b[profile.BTex] {
		t.Error("memory counters must fall by their bottleneck")
	}
	if b[profile.BF32] > profile.InstReaction || d[profile.InstF32] != 0 {
		t.Errorf("fp32 bottleneck %v below inst_reaction: change %v, want 0", b[profile.BF32], d[profile.InstF32])
	}
	if d[profile.SMEfficiency] != b[profile.BSM] {
		t.Error("SM_E must rise by its bottleneck")
	}
	// eq. 15 above the reaction: 0.85 at reaction 0.7 asks for -(0.15/0.3)
	b[profile.BF32] = 0.85
	if d := profile.Required(&b, 0.7); math.Abs(d[profile.InstF32]+0.5) > 1e-12 {
		t.Errorf("fp32 change at bottleneck 0.85 = %v, want -0.5", d[profile.InstF32])
	}
}

// The model trained on the paper's deliberate sample of a recording (72 and 96
// configurations) predicts the counters of the configurations it did not see: the
// median absolute error of log(1+counter) is below 0.7 (a factor of 2) for every counter,
// and below 0.05 (5%) for the single-precision instructions, which the tuning
// parameters of both kernels govern smoothly.
func TestModelPredictsHeldOutConfigurations(t *testing.T) {
	for _, path := range []string{convolutionPath, pnpolyPath} {
		rec := open(t, path)
		m, err := profile.Train(rec, profile.TrainOptions{Sample: true})
		if err != nil {
			t.Fatal(err)
		}
		if m.Trained >= len(rec.Evaluations)/10 {
			t.Fatalf("%s: trained on %d configurations, not a sample", path, m.Trained)
		}
		errs := make([][]float64, len(profile.Reacted))
		for i := range rec.Evaluations {
			e := &rec.Evaluations[i]
			if e.Failed() {
				continue
			}
			c, _ := profile.Read(e)
			p := m.PredictValues(e.Config, nil)
			for j, k := range profile.Reacted {
				errs[j] = append(errs[j], math.Abs(math.Log1p(p[j])-math.Log1p(c[k])))
			}
		}
		for j, k := range profile.Reacted {
			slices.Sort(errs[j])
			med := errs[j][len(errs[j])/2]
			bound := 0.7
			if k == profile.InstF32 {
				bound = 0.05
			}
			if med > bound {
				t.Errorf("%s: %s median |log error| %.3f, want below %v", path, k, med, bound)
			}
		}
	}
}

// Eq. 16 scores a candidate that moves a counter the way the required change asks above 0,
// and eq. 17 maps scores to the paper's weights.
func TestScoreAndWeights(t *testing.T) {
	var d profile.Delta
	d[profile.DRAMRead] = -0.5
	prof := make([]float64, len(profile.Reacted))
	cand := make([]float64, len(profile.Reacted))
	prof[0], cand[0] = 300, 100 // Reacted[0] is DRAM_RT
	if s := profile.Score(&d, prof, cand); math.Abs(s-0.25) > 1e-12 {
		t.Errorf("score of a candidate with a third of the DRAM reads = %v, want 0.25", s)
	}
	cand[0] = 0
	if s := profile.Score(&d, prof, cand); s != 0 {
		t.Errorf("a counter predicted 0 must be left out; score %v", s)
	}
	w := []float64{0.5, 0.25, 0, -0.1, -0.2, -0.3, 1}
	use := []bool{true, true, true, true, true, true, false}
	profile.Weights(w, use)
	// smin is -0.3, the lowest score (below the cutoff too)
	want := []float64{256, math.Pow(1.5, 8), 1, math.Pow(2.0/3, 8), math.Pow(1.0/3, 8), profile.MinWeight, 0}
	for i := range w {
		if math.Abs(w[i]-want[i]) > 1e-9 {
			t.Errorf("weight %d = %v, want %v", i, w[i], want[i])
		}
	}
}
