package report

import (
	"context"
	"encoding/json"
	stdhtml "html"
	"math"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ktune/ktune/analysis"
	"github.com/ktune/ktune/device"
	"github.com/ktune/ktune/efficiency"
	"github.com/ktune/ktune/result"
	"github.com/ktune/ktune/space"
	"github.com/ktune/ktune/store"
	"github.com/ktune/ktune/store/sqlite"
)

// efficiencyPage stores a run of vector_add (1.2e9 essential bytes: 3 arrays of 1e8
// floats) timed at the given GB/s on a device whose Info carries peak, and returns its
// page's text with the given peaks.
func efficiencyPage(t *testing.T, peak *device.Peak, given efficiency.Given, rates ...float64) string {
	t.Helper()
	return efficiencyPageWith(t, peak, given, rates, nil)
}

// efficiencyPageWith is efficiencyPage with the evaluations after stored after the
// rates' (a wrong_answer a check found later).
func efficiencyPageWith(t *testing.T, peak *device.Peak, given efficiency.Given, rates []float64, after []result.Evaluation) string {
	t.Helper()
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "k.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	props, _ := json.Marshal(device.Info{Backend: "cuda", Name: "GPU", Peak: peak})
	dev, err := st.PutDevice(ctx, store.Device{Name: "GPU", Backend: "cuda", Properties: props})
	if err != nil {
		t.Fatal(err)
	}
	params := []space.Param{{Name: "unroll", Values: []space.Value{space.IntValue(1), space.IntValue(2), space.IntValue(4), space.IntValue(8)}}}
	sp, err := st.PutSpace(ctx, store.Space{Kernel: "vector_add", Params: params})
	if err != nil {
		t.Fatal(err)
	}
	settings, _ := json.Marshal(map[string]any{"budget": len(rates), "essential_ops": efficiency.Ops{Bytes: 1.2e9, Precision: "float32"}})
	id, err := st.CreateRun(ctx, store.RunInfo{SpaceID: sp, DeviceID: dev, Kind: store.KindTuning, Strategy: "random", Seed: 1,
		Objective: "GB/s", Maximize: true, Settings: settings})
	if err != nil {
		t.Fatal(err)
	}
	var evals []result.Evaluation
	for i, r := range rates {
		ms := 1.2e9 / (r * 1e9) * 1e3
		evals = append(evals, result.Evaluation{Config: []space.Value{params[0].Values[i]}, Status: result.OK, Objective: r,
			Samples: []float64{ms}, Metrics: map[string]float64{"GB/s": r, "time": ms}})
	}
	evals = append(evals, after...)
	if err := st.AddEvaluations(ctx, id, evals); err != nil {
		t.Fatal(err)
	}
	if err := st.FinishRun(ctx, id, store.StatusFinished); err != nil {
		t.Fatal(err)
	}
	p, err := RunPage(ctx, st, id, Options{Analysis: analysis.Defaults(), Peaks: given})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := p.Write(&b); err != nil {
		t.Fatal(err)
	}
	text := regexp.MustCompile(`<[^>]+>`).ReplaceAllString(b.String(), " ")
	return strings.Join(strings.Fields(stdhtml.UnescapeString(text)), " ")
}

func TestRunPageEfficiencyUsesTheDevicesDerivedPeak(t *testing.T) {
	// 2, 6, 16 and 10 GB/s of a derived 20 GB/s: 10, 30, 80 and 50%
	page := efficiencyPage(t, &device.Peak{GBs: 20, How: "2 x 1250 MHz x 64-bit bus"}, efficiency.Given{}, 2, 6, 16, 10)
	for _, want := range []string{
		"Efficiency against the peak",
		"memory peak 20 GB/s (derived: 2 x 1250 MHz x 64-bit bus)",
		"The most efficient configuration reaches 80.0% of the device's peak, memory-bound, at 75 ms.",
		"1 of the 4 successful configurations reach 75% of the peak or more",
		"1 80.00 memory 75 16 80.00 4", // rank, efficiency, bound, time, GB/s, share, unroll
		"4 10.00 memory 600 2 10.00 1",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
}

// A configuration found wrong after its success (a wrong_answer evaluation stored later,
// as a check after dynamic tuning stores it) neither reaches the peak nor is the most
// efficient, and the section says it left it out.
func TestRunPageEfficiencyLeavesOutAConfigurationFoundWrong(t *testing.T) {
	// 2, 6, 16 and 10 GB/s of 20 GB/s: 10, 30, 80 and 50%; unroll=4 (80%) found wrong
	found := result.Evaluation{Config: []space.Value{space.IntValue(4)}, Status: result.WrongAnswer, Objective: math.NaN(),
		Message: "found wrong by a check on call 12, after tuning (against the reference): output 3 differs"}
	peak := &device.Peak{GBs: 20, How: "formula"}
	page := efficiencyPageWith(t, peak, efficiency.Given{}, []float64{2, 6, 16, 10}, []result.Evaluation{found})
	for _, want := range []string{
		"1 configuration that ran successfully is left out: it has a wrong_answer evaluation in the run",
		"The most efficient configuration reaches 50.0% of the device's peak, memory-bound, at 120 ms.",
		"0 of the 3 successful configurations reach 75% of the peak or more",
		"1 50.00 memory 120 10 50.00 8",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q:\n%s", want, page)
		}
	}
	if strings.Contains(page, "80.00") {
		t.Errorf("the page ranks the configuration found wrong (80%% of the peak):\n%s", page)
	}
	// the one configuration that ran successfully, unroll=1, was found wrong
	found.Config = []space.Value{space.IntValue(1)}
	page = efficiencyPageWith(t, peak, efficiency.Given{}, []float64{16}, []result.Evaluation{found})
	if !strings.Contains(page, "No successful configuration that was not found wrong has a time to compute an efficiency from.") ||
		strings.Contains(page, "most efficient configuration") {
		t.Errorf("a run whose only success was found wrong:\n%s", page)
	}
	if !strings.Contains(page, "Every configuration that ran successfully has a wrong_answer evaluation in the run as well") {
		t.Errorf("the analysis of a run whose only success was found wrong does not say why there is none:\n%s", page)
	}
}

func TestRunPageEfficiencyPrefersGivenPeaksAndNamesMissingOnes(t *testing.T) {
	page := efficiencyPage(t, &device.Peak{GBs: 20, How: "formula"}, efficiency.Given{GBs: 32}, 2, 16)
	if !strings.Contains(page, "memory peak 32 GB/s (given)") || !strings.Contains(page, "reaches 50.0% of the device's peak") ||
		!strings.Contains(page, "0 of the 2 successful configurations reach 75%") {
		t.Errorf("given peak not used:\n%s", page)
	}
	// only the figure missing is named, with its own reason: not the arithmetic peak's,
	// which is given; a device stored before figures has its reason in the joined text
	const missing = "No efficiency: the device's memory bandwidth peak is unknown (OpenCL reports no memory bandwidth): " +
		"give it with --peak-gbs GB/s, or gbs: GB/s in the device's entry of a peaks file (--peaks); " +
		"take it from the device's data sheet or a measurement (STREAM for memory)."
	var pocl device.Peak
	pocl.Lack("float32", "OpenCL reports no lanes per compute unit")
	pocl.Lack(device.MemoryFigure, "OpenCL reports no memory bandwidth")
	for name, peak := range map[string]*device.Peak{
		"figures":        &pocl,
		"before figures": {Unknown: "float32: OpenCL reports no lanes per compute unit; memory: OpenCL reports no memory bandwidth"},
	} {
		page = efficiencyPage(t, peak, efficiency.Given{GFLOPS: 100}, 2, 16)
		if !strings.Contains(page, missing) || strings.Contains(page, "lanes per compute unit") || strings.Contains(page, "most efficient configuration") {
			t.Errorf("%s: missing peak not named as %q:\n%s", name, missing, page)
		}
	}
}
