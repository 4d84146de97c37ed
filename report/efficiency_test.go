package report

import (
	"context"
	"encoding/json"
	stdhtml "html"
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

func TestRunPageEfficiencyPrefersGivenPeaksAndNamesMissingOnes(t *testing.T) {
	page := efficiencyPage(t, &device.Peak{GBs: 20, How: "formula"}, efficiency.Given{GBs: 32}, 2, 16)
	if !strings.Contains(page, "memory peak 32 GB/s (given)") || !strings.Contains(page, "reaches 50.0% of the device's peak") ||
		!strings.Contains(page, "0 of the 2 successful configurations reach 75%") {
		t.Errorf("given peak not used:\n%s", page)
	}
	page = efficiencyPage(t, &device.Peak{Unknown: "memory: OpenCL reports no memory bandwidth"}, efficiency.Given{GFLOPS: 100}, 2, 16)
	if !strings.Contains(page, "No efficiency: the device's memory bandwidth peak is unknown (memory: OpenCL reports no memory bandwidth); give it with --peak-gbs") ||
		strings.Contains(page, "most efficient configuration") {
		t.Errorf("missing peak not named:\n%s", page)
	}
}
