package portability_test

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/ktune/ktune/analysis"
	"github.com/ktune/ktune/format"
	_ "github.com/ktune/ktune/format/all" // registers the Kernel Tuner, KTT and T4 readers
	"github.com/ktune/ktune/portability"
	"github.com/ktune/ktune/result"
	"github.com/ktune/ktune/space"
)

func near(got, want, tol float64) bool { return math.Abs(got-want) <= tol }

// Seed 003's worked example (Section 4.4): BiCG reaches 65 GB/s tuned on a GTX 750 and
// 544 GB/s tuned on an RTX 2080 Ti; the 2080 Ti's code reaches 54.6 GB/s on the 750 (84%)
// and the 750's reaches 381 GB/s on the 2080 Ti (70%). As times of one problem the
// percentages are the same.
func TestPercentMatchesThePapersBiCGExample(t *testing.T) {
	tests := []struct {
		name                 string
		elsewhere, own, want float64
	}{
		{"2080 Ti's code on the GTX 750", 54.6, 65, 84},
		{"GTX 750's code on the 2080 Ti", 381, 544, 70},
	}
	for _, tt := range tests {
		if got := portability.Percent(tt.elsewhere, tt.own, true); math.Round(got) != tt.want {
			t.Errorf("%s: %.2f%%, want %g%%", tt.name, got, tt.want)
		}
		// the same matrix read 1 MB of it in time 1/GBs: lower is better
		if got := portability.Percent(1/tt.elsewhere, 1/tt.own, false); math.Round(got) != tt.want {
			t.Errorf("%s as times: %.2f%%, want %g%%", tt.name, got, tt.want)
		}
	}
	if got := portability.Percent(0, 1, false); !math.IsNaN(got) {
		t.Errorf("a zero time gives %g, want NaN", got)
	}
}

// Equations 3 to 5 against the paper's examples (Section 5.4) and numbers worked by hand.
func TestEquationsMatchThePapersExamplesAndHandValues(t *testing.T) {
	// eq. 4: t_avg 10 ms, t_well 5 ms, s = 100, rp = 0.9: "900 kernel invocations"
	if n := portability.Invocations(0.9, 100, 10.0/5); !near(n, 900, 1e-9) {
		t.Errorf("Invocations(0.9, 100, 2) = %g, want 900", n)
	}
	// and eq. 3 (as eq. 4 reads it: a performance) gives rp back from that n
	if rp := portability.RelativePerformance(900, 100, 10, 5); !near(rp, 0.9, 1e-12) {
		t.Errorf("RelativePerformance(900, 100, 10, 5) = %g, want 0.9", rp)
	}
	// eq. 5: r = 0.01, p = 0.9: "we need to explore 230 configurations"
	s := portability.TuningSteps(0.01, 0.9)
	if !near(s, math.Log(0.1)/math.Log(0.99), 1e-12) || portability.Steps(s) != 230 {
		t.Errorf("TuningSteps(0.01, 0.9) = %g (%g steps), want 229.1 (230)", s, portability.Steps(s))
	}
	tests := []struct {
		name         string
		r, p         float64
		s, steps     float64
		rp, ratio, n float64
	}{
		// ln 0.1 / ln 0.9 = 21.854; n = 0.9·22·0.5/0.1 = 99
		{"one in ten", 0.1, 0.9, 21.8543453, 22, 0.9, 1.5, 99},
		// ln 0.01 / ln 0.1 = 2 exactly, not 3
		{"a whole s", 0.9, 0.99, 2, 2, 0.9, 3, 0.9 * 2 * 2 / 0.1},
		// n = 0.9·2·0.01/0.1 = 0.18: fewer than the tuning steps, which count
		{"cheap tuning", 0.7, 0.9, 1.9124893, 2, 0.9, 1.01, 2},
		// rp 0.5: n = 0.5·5·1/0.5 = 5 (ln 0.05 / ln 0.5 = 4.32)
		{"half the speed", 0.5, 0.95, 4.3219281, 5, 0.5, 2, 5},
		{"all well-performing", 1, 0.9, 0, 1, 0.9, 1, 1},
	}
	for _, tt := range tests {
		s := portability.TuningSteps(tt.r, tt.p)
		steps := portability.Steps(s)
		n := portability.Invocations(tt.rp, steps, tt.ratio)
		if !near(s, tt.s, 1e-6) || steps != tt.steps || !near(n, tt.n, 1e-9) {
			t.Errorf("%s: s %g, steps %g, n %g; want %g, %g, %g", tt.name, s, steps, n, tt.s, tt.steps, tt.n)
		}
	}
	if s := portability.TuningSteps(0, 0.9); !math.IsInf(s, 1) {
		t.Errorf("no well-performing configuration: s %g, want +Inf", s)
	}
}

// synthetic builds a space of configurations (a, b) with values; NaN is a failure.
func synthetic(name string, maximize bool, params []string, configs [][]int64, values []float64) portability.Space {
	sp := portability.Space{Name: name, Params: params, Objective: analysis.Objective{Name: "time", Maximize: maximize}}
	if maximize {
		sp.Objective.Name = "GFLOP/s"
	}
	for i, c := range configs {
		var vs []space.Value
		for _, x := range c {
			vs = append(vs, space.IntValue(x))
		}
		sp.Configs = append(sp.Configs, vs)
		sp.Values = append(sp.Values, values[i])
		fail := ""
		if math.IsNaN(values[i]) {
			fail = "compile_error"
		}
		sp.Failures = append(sp.Failures, fail)
	}
	return sp
}

// Configurations are matched by their parameters' values whatever the parameters' order;
// a best configuration the other space lacks, or that failed there, fails, and the
// summary counts it apart from the percentages.
func TestMatrixMatchesConfigurationsAndSaysWhichFail(t *testing.T) {
	a := synthetic("a", false, []string{"x", "y"}, [][]int64{{1, 1}, {1, 2}, {2, 1}}, []float64{2, 1, 4})
	// b's parameters in the other order: (y, x); a's best (x=1, y=2) failed there
	b := synthetic("b", false, []string{"y", "x"}, [][]int64{{1, 1}, {2, 1}, {1, 2}}, []float64{3, math.NaN(), 1.5})
	// c lacks a's best; its own best (x=2, y=1) runs on a at 4 ms against 1: 25%
	c := synthetic("c", false, []string{"x", "y"}, [][]int64{{1, 1}, {2, 1}}, []float64{5, 2.5})
	m, err := portability.Compute([]portability.Space{a, b, c})
	if err != nil {
		t.Fatal(err)
	}
	type cell struct {
		pct  float64
		fail string
	}
	want := [][]cell{
		{{100, ""}, {0, "compile_error"}, {0, "absent"}},
		// b's best is (x=2, y=1): 4 ms on a (25%), 2.5 ms on c (100%)
		{{25, ""}, {100, ""}, {100, ""}},
		{{25, ""}, {100, ""}, {100, ""}},
	}
	for i := range want {
		for j, w := range want[i] {
			got := m.Cells[i][j]
			if got.Fails != w.fail || w.fail == "" && !near(float64(got.Percent), w.pct, 1e-9) || w.fail != "" && !math.IsNaN(float64(got.Percent)) {
				t.Errorf("cell %d,%d: %+v, want %g%% fails %q", i, j, got, w.pct, w.fail)
			}
		}
	}
	s := m.Summary
	if s.Pairs != 6 || s.Failed != 2 || !near(float64(s.Mean), 62.5, 1e-9) || !near(float64(s.Worst), 25, 1e-9) || s.WorstRow != "b" || s.WorstColumn != "a" {
		t.Errorf("summary %+v, want 6 pairs, 2 failed, mean 62.5, worst 25 (b on a)", s)
	}
	if !near(float64(s.Stdev), 37.5, 1e-9) { // 25, 100, 25, 100 around 62.5
		t.Errorf("stdev %g, want 37.5", s.Stdev)
	}
}

// Integers and floats of one value are one configuration (a file may write 32 or 32.0).
func TestMatrixMatchesIntegersAndFloats(t *testing.T) {
	a := synthetic("a", true, []string{"x"}, [][]int64{{32}, {64}}, []float64{10, 20})
	b := synthetic("b", true, []string{"x"}, [][]int64{{32}, {64}}, []float64{30, 15})
	b.Configs = [][]space.Value{{space.FloatValue(32)}, {space.FloatValue(64)}}
	m, err := portability.Compute([]portability.Space{a, b})
	if err != nil {
		t.Fatal(err)
	}
	// GFLOP/s: a's best (64) runs at 15 on b against 30: 50%; b's (32) at 10 on a: 50%
	if m.Cells[0][1].Fails != "" || !near(float64(m.Cells[0][1].Percent), 50, 1e-9) || !near(float64(m.Cells[1][0].Percent), 50, 1e-9) {
		t.Errorf("cells %+v", m.Cells)
	}
}

// Inputs that are not spaces of one kernel are refused, naming the space.
func TestComputeRefusesSpacesThatDoNotFit(t *testing.T) {
	xy := [][]int64{{1, 1}, {1, 2}}
	a := synthetic("gemm/A", false, []string{"x", "y"}, xy, []float64{1, 2})
	tests := []struct {
		name   string
		spaces []portability.Space
		want   string
	}{
		{"one space", []portability.Space{a}, "only gemm/A"},
		{"other parameters", []portability.Space{a, synthetic("conv/B", false, []string{"x", "z"}, xy, []float64{1, 2})}, "gemm/A and conv/B are not spaces of one kernel: different parameters (the second lacks y; the second has z besides)"},
		{"other objective", []portability.Space{a, synthetic("gemm/B", true, []string{"x", "y"}, xy, []float64{1, 2})}, "gemm/A's objective is time and gemm/B's is GFLOP/s"},
		{"nothing valid", []portability.Space{a, synthetic("gemm/B", false, []string{"x", "y"}, xy, []float64{math.NaN(), math.NaN()})}, "gemm/B: none of its 2 configurations"},
		{"a value of 0", []portability.Space{a, synthetic("gemm/B", false, []string{"x", "y"}, xy, []float64{0, 2})}, "gemm/B: time is 0 at x=1, y=1"},
		{"twice", []portability.Space{a, a}, "gemm/A is given twice"},
	}
	for _, tt := range tests {
		_, err := portability.Compute(tt.spaces)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want %q", tt.name, err, tt.want)
		}
	}
	if _, err := portability.Compute([]portability.Space{a}); !errors.Is(err, portability.ErrTooFewSpaces) {
		t.Errorf("one space: %v is not ErrTooFewSpaces", err)
	}
	b := synthetic("gemm/B", true, []string{"x", "y"}, xy, []float64{1, 2})
	b.Objective.Name = "time"
	if _, err := portability.Compute([]portability.Space{a, b}); err == nil || !strings.Contains(err.Error(), "--maximize or --minimize") {
		t.Errorf("other directions: %v", err)
	}
}

func recorded(t *testing.T, kernel, device, objective string) portability.Space {
	t.Helper()
	rec, err := format.Open("../testdata/benchmark_hub/" + kernel + "/" + device + ".json.gz")
	if err != nil {
		t.Fatal(err)
	}
	sp, err := portability.FromRecording(kernel+"/"+device, rec, objective, nil)
	if err != nil {
		t.Fatal(err)
	}
	return sp
}

// Seed 000's GEMM (CLBlast Xgemm, 17,956 configurations) on three GPUs: the matrix's
// percentages are those computed independently in Python from the Kernel Tuner caches
// (the first best time in file order per GPU; 100·best(column)/time(row's best on column)),
// and in GFLOP/s, maximised, they are the same, as GFLOP/s is the work over the time.
func TestGEMMPortabilityOnThreeRecordedGPUs(t *testing.T) {
	gpus := []string{"RTX_2080_Ti", "RTX_3090", "RTX_Titan"}
	want := [][]float64{
		{100, 68.2132, 91.9168},
		{83.1916, 100, 85.0816},
		{99.0906, 62.0577, 100},
	}
	bests := []float64{11.482779, 5.657844, 11.466165}
	for _, objective := range []string{"", "GFLOP/s"} {
		var spaces []portability.Space
		for _, g := range gpus {
			spaces = append(spaces, recorded(t, "kerneltuner_gemm", g, objective))
		}
		m, err := portability.Compute(spaces)
		if err != nil {
			t.Fatal(err)
		}
		if objective == "" && (m.Objective != "time" || m.Maximize) || objective != "" && !m.Maximize {
			t.Errorf("objective %s, maximize %v", m.Objective, m.Maximize)
		}
		for i := range want {
			if objective == "" && !near(m.Spaces[i].Best, bests[i], 1e-6) {
				t.Errorf("%s: best %g ms, want %g", gpus[i], m.Spaces[i].Best, bests[i])
			}
			if m.Spaces[i].Valid != 17956 || m.Spaces[i].Configurations != 17956 {
				t.Errorf("%s: %d valid of %d", gpus[i], m.Spaces[i].Valid, m.Spaces[i].Configurations)
			}
			for j, w := range want[i] {
				if c := m.Cells[i][j]; c.Fails != "" || !near(float64(c.Percent), w, 5e-4) {
					t.Errorf("%s (%s) tuned on %s, run on %s: %+v, want %g%%", m.Objective, objective, gpus[i], gpus[j], c, w)
				}
			}
		}
		s := m.Summary
		if s.Pairs != 6 || s.Failed != 0 || !near(float64(s.Worst), 62.0577, 5e-4) || s.WorstRow != "kerneltuner_gemm/RTX_Titan" || s.WorstColumn != "kerneltuner_gemm/RTX_3090" {
			t.Errorf("summary %+v", s)
		}
		mean := (68.2132 + 91.9168 + 83.1916 + 85.0816 + 99.0906 + 62.0577) / 6
		if !near(float64(s.Mean), mean, 1e-3) {
			t.Errorf("mean %g, want %g", s.Mean, mean)
		}
	}
}

// Across vendors the best configuration carries over badly: the 2D convolution tuned on
// an A100 runs at 4.9% of the MI250X's best there, the MI250X's at 35.1% of the A100's.
// The A100 file is Kernel Tuner cache with failures (4,201 of 4,362 valid).
func TestConvolutionPortabilityAcrossVendors(t *testing.T) {
	m, err := portability.Compute([]portability.Space{
		recorded(t, "convolution_milo", "A100", ""),
		recorded(t, "convolution_milo", "MI250X", ""),
	})
	if err != nil {
		t.Fatal(err)
	}
	if !near(float64(m.Cells[0][1].Percent), 4.9080, 5e-4) || !near(float64(m.Cells[1][0].Percent), 35.0579, 5e-4) {
		t.Errorf("A100 on MI250X %v%%, MI250X on A100 %v%%; want 4.9080 and 35.0579", m.Cells[0][1].Percent, m.Cells[1][0].Percent)
	}
	if m.Spaces[0].Valid != 4201 || m.Spaces[1].Valid != 4362 {
		t.Errorf("valid %d and %d, want 4201 and 4362", m.Spaces[0].Valid, m.Spaces[1].Valid)
	}
}

// Seed 003's amortization of GEMM on the RTX 3090 with the paper's settings (within 95%
// of the best, p = 0.9, rp = 0.9), against the figures computed independently in Python:
// 6 of 17,956 configurations within 95% of 5.658 ms, r = 3.3415e-4, t_avg/t_best = 3.4648,
// t_avg/t_well = 3.37535, s = ln 0.1 / ln(1 - r) = 6889.72, 6890 steps, and
// n = 0.9·6890·2.37535/0.1 = 147,296 invocations.
func TestAmortizationOfRecordedSpaces(t *testing.T) {
	tests := []struct {
		kernel, device      string
		valid, well         int
		r, avgBest, avgWell float64
		s, steps, n         float64
	}{
		{"kerneltuner_gemm", "RTX_3090", 17956, 6, 3.3415014479839606e-4, 3.4648202335087195, 3.3753506902743817, 6889.718298291537, 6890, 147296},
		{"kerneltuner_convolution", "RTX_3090", 5220, 22, 0.00421455938697318, 3.269682786409162, 3.203281171738382, 545.1885418385489, 546, 10827},
	}
	for _, tt := range tests {
		for _, objective := range []string{"", "GFLOP/s"} {
			if objective != "" && tt.kernel != "kerneltuner_gemm" {
				continue
			}
			a, err := portability.Amortize(recorded(t, tt.kernel, tt.device, objective), portability.PaperSettings())
			if err != nil {
				t.Fatal(err)
			}
			tol := 1e-9
			if objective != "" {
				tol = 1e-6 // GFLOP/s is the work over the time, rounded
			}
			if a.Valid != tt.valid || a.Well != tt.well || !near(a.R, tt.r, 1e-12) || !near(a.AvgOverBest, tt.avgBest, tol) ||
				!near(a.AvgOverWell, tt.avgWell, tol) || !near(a.S, tt.s, 1e-6) || a.Steps != tt.steps || a.N != tt.n {
				t.Errorf("%s/%s %s: %+v, want %+v", tt.kernel, tt.device, objective, a, tt)
			}
		}
	}
}

// The paper's settings are those of its Table 11, and settings out of range are refused.
func TestSettings(t *testing.T) {
	if s := portability.PaperSettings(); s != (portability.Settings{Within: 0.95, Probability: 0.9, Performance: 0.9}) {
		t.Errorf("PaperSettings() = %+v", s)
	}
	for _, s := range []portability.Settings{{0, 0.9, 0.9, 0}, {1.1, 0.9, 0.9, 0}, {0.95, 1, 0.9, 0}, {0.95, 0, 0.9, 0}, {0.95, 0.9, 1, 0},
		{0.95, 0.9, 0.9, 1.5}, {0.95, 0.9, 0.9, -0.1}} {
		if err := s.Check(); err == nil {
			t.Errorf("%+v accepted", s)
		}
	}
	a := synthetic("a", false, []string{"x"}, [][]int64{{1}}, []float64{1})
	if _, err := portability.Amortize(a, portability.Settings{Within: 0.95, Probability: 1, Performance: 0.9}); err == nil {
		t.Error("Amortize took p = 1")
	}
}

// Spaces that record other problem sizes or kernel names are compared, with a warning;
// one that records none differs from none.
func TestMatrixWarnsOfOtherInputs(t *testing.T) {
	xy := [][]int64{{1, 1}, {1, 2}}
	a := synthetic("a", false, []string{"x", "y"}, xy, []float64{1, 2})
	b := synthetic("b", false, []string{"x", "y"}, xy, []float64{2, 1})
	a.Kernel, a.ProblemSize = "k", "[4096]"
	m, err := portability.Compute([]portability.Space{a, b})
	if err != nil || len(m.Warnings) != 0 {
		t.Fatalf("%v, warnings %q", err, m.Warnings)
	}
	b.Kernel, b.ProblemSize = "k2", "[128]"
	m, err = portability.Compute([]portability.Space{a, b})
	if err != nil || len(m.Warnings) != 2 || !strings.Contains(m.Warnings[1], "([4096], [128])") {
		t.Fatalf("%v, warnings %q", err, m.Warnings)
	}
}

// With WithinPeak, well-performing is a fraction of the device's peak (seed 003, Section
// 6: 75% of the peak memory bandwidth), read from each configuration's efficiency, not a
// fraction of the best.
func TestAmortizationWellPerformingByThePeak(t *testing.T) {
	// times 1, 2, 4 and 8 ms; efficiencies 80, 40, 20 and 10% of the peak
	sp := synthetic("a", false, []string{"x"}, [][]int64{{1}, {2}, {3}, {4}}, []float64{1, 2, 4, 8})
	sp.Efficiency = []float64{80, 40, 20, 10}
	set := portability.Settings{Within: 0.95, Probability: 0.9, Performance: 0.9, WithinPeak: 0.35}
	a, err := portability.Amortize(sp, set)
	if err != nil {
		t.Fatal(err)
	}
	// two of four at 35% of the peak or more: r = 0.5, t_avg = 3.75, t_well = 1.5
	if a.Well != 2 || a.Valid != 4 || !near(a.R, 0.5, 1e-12) || !near(a.AvgOverWell, 3.75/1.5, 1e-12) {
		t.Errorf("well %d of %d, r %g, t_avg/t_well %g; want 2 of 4, 0.5, 2.5", a.Well, a.Valid, a.R, a.AvgOverWell)
	}
	// s = log(0.1)/log(0.5) = 3.32: 4 steps
	if a.Steps != 4 {
		t.Errorf("steps %v, want 4", a.Steps)
	}
	set.WithinPeak = 0.9
	if _, err := portability.Amortize(sp, set); err == nil || !strings.Contains(err.Error(), "none of its 4 configurations reaches 90% of the device's peak (the most efficient reaches 80.0%)") {
		t.Errorf("no well-performing configuration: %v", err)
	}
	sp.Efficiency = nil
	set.WithinPeak = 0.75
	if _, err := portability.Amortize(sp, set); err == nil || !strings.Contains(err.Error(), "no efficiency against the device's peak") {
		t.Errorf("no efficiency: %v", err)
	}
}

// A success of a configuration that has a wrong_answer evaluation elsewhere in the
// recording (a check after dynamic tuning found it wrong) has no value: it is neither the
// space's best nor well-performing.
func TestAConfigurationFoundWrongHasNoValue(t *testing.T) {
	iv := space.IntValue
	rec := &result.Recording{Kernel: "k", Device: "d", Objective: "time", Params: []space.Param{{Name: "x", Values: []space.Value{iv(1), iv(2), iv(3)}}},
		Evaluations: []result.Evaluation{
			{Config: []space.Value{iv(1)}, Status: result.OK, Objective: 1},
			{Config: []space.Value{iv(2)}, Status: result.OK, Objective: 2},
			{Config: []space.Value{iv(3)}, Status: result.OK, Objective: 2.05},
			{Config: []space.Value{iv(1)}, Status: result.WrongAnswer, Objective: math.NaN(), Message: "found wrong by a check"},
		}}
	sp, err := portability.FromRecording("k/d", rec, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	if !math.IsNaN(sp.Values[0]) || sp.Failures[0] != "wrong_answer" || sp.Values[1] != 2 {
		t.Fatalf("values %v, failures %q; want the first NaN as a wrong_answer", sp.Values, sp.Failures)
	}
	a, err := portability.Amortize(sp, portability.PaperSettings())
	if err != nil {
		t.Fatal(err)
	}
	// x=2 is the best; x=3 is within 95% of it (2/2.05 = 97.6%); x=1 counts as neither
	if a.Valid != 2 || a.Well != 2 || !near(a.R, 1, 1e-12) {
		t.Errorf("Amortize: %d valid, %d well-performing, r %g; want 2, 2, 1", a.Valid, a.Well, a.R)
	}
}
