package tuner

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ktune/ktune/device"
	"github.com/ktune/ktune/result"
	"github.com/ktune/ktune/store"
)

// openCLMaxBlock is the maximum work-group size of the first OpenCL device (PoCL's
// 4096), the device Tune picks for Device "opencl"; the test skips without one.
func openCLMaxBlock(t *testing.T) int {
	t.Helper()
	needBackend(t, "opencl")
	b, _ := device.Lookup("opencl")
	devs, err := b.Devices()
	if err != nil || len(devs) == 0 {
		t.Skipf("no OpenCL device: %v", err)
	}
	max := devs[0].MaxBlockSize
	if max <= 0 || max > 1<<14 {
		t.Skipf("OpenCL device %s: maximum work-group size %d, want 1 to 16384", devs[0].Name, max)
	}
	return max
}

// overBlockSpec writes an OpenCL spec whose block_size_x values are a quarter and half
// the device's maximum work-group size, and twice and four times it, times three values
// of K: 12 configurations, the 6 with the larger blocks over the device's limit.
func overBlockSpec(t *testing.T, max int) string {
	spec := fmt.Sprintf(`kernel: {name: fill, source: fill.cl}
constants: {N: %d}
parameters:
  - {name: block_size_x, values: [%d, %d, %d, %d]}
  - {name: K, values: [1, 2, 3]}
problem_size: [N]
grid_div_x: [block_size_x]
arguments:
  - {name: y, type: float32, length: N, output: true}
  - {name: n, type: int32, value: N}
iterations: 3
`, 4*max, max/4, max/2, 2*max, 4*max)
	return writeSpec(t, "fill.yaml", map[string]string{"fill.yaml": spec,
		"fill.cl": "__kernel void fill(__global float *y, int n) { int i = get_global_id(0); if (i < n) y[i] = i * K; }\n"})
}

// splitOverLimit splits a run's stored evaluations into those of blocks over the device's
// maximum, each of which must be a device_limit saying so, and the rest, which ran.
func splitOverLimit(t *testing.T, evals []result.Evaluation, max int) (over, ran []result.Evaluation) {
	t.Helper()
	for _, e := range evals {
		if e.Config[0].Int() <= int64(max) {
			ran = append(ran, e)
			continue
		}
		over = append(over, e)
		if e.Status != result.DeviceLimit || !strings.Contains(e.Message, fmt.Sprintf("exceeds the device's maximum of %d", max)) {
			t.Errorf("%s: %v %q; want a device_limit over the maximum of %d", store.ConfigKey(e.Config), e.Status, e.Message, max)
		}
	}
	return over, ran
}

// Configurations whose block is over the device's maximum work-group size, known before
// compiling, are recorded as device_limits and cost no budget, as Kernel Tuner leaves them
// out of the space: a random search of budget 6 on PoCL runs 6 configurations whose block
// fits, cancelled halfway and resumed alike, beside the over-limit ones it met, which the
// report counts (DeviceExcluded). With a budget past the configurations that fit, the
// search ends when the space is exhausted. (They counted: the budget ended the search
// with fewer than 6 configurations run.) The report's counts add up: the evaluations are
// those resumed that cost budget, those measured, and those excluded.
func TestConfigurationsOverADeviceLimitKnownBeforeCompilingCostNoBudget(t *testing.T) {
	max := openCLMaxBlock(t)
	path := overBlockSpec(t, max)
	db := filepath.Join(t.TempDir(), "k.db")
	o := Options{SpecPath: path, Device: "opencl", Strategy: "random", Seed: 3, Budget: 6, DB: db, NoPrecompile: true}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cut := o
	var counts []int
	cut.Progress = func(p Progress) {
		counts = append(counts, p.Evaluations)
		if p.Evaluations >= 3 {
			cancel()
		}
	}
	rep, err := Tune(ctx, cut)
	if !errors.Is(err, context.Canceled) || rep == nil {
		t.Fatalf("cancelled: report %v, error %v; want a report and context.Canceled", rep != nil, err)
	}
	before := storedEvaluations(t, db, rep.Run)
	over, ran := splitOverLimit(t, before, max)
	if len(ran) < 3 || len(ran) >= 6 || rep.DeviceExcluded != len(over) || slices.Max(counts) != len(ran) {
		t.Fatalf("cancelled with %d stored that ran and %d over the limit (%d reported), progress %v; want 3 to 5 that ran, progress counting them alone",
			len(ran), len(over), rep.DeviceExcluded, counts)
	}
	addsUp := func(what string, r *Report, resumed, measured, excluded int) {
		t.Helper()
		if r.Resumed != resumed || r.Measured != measured || r.DeviceExcluded != excluded || r.Evaluations != resumed+measured+excluded {
			t.Errorf("%s: %d evaluations = %d resumed + %d measured + %d excluded; want %d + %d + %d",
				what, r.Evaluations, r.Resumed, r.Measured, r.DeviceExcluded, resumed, measured, excluded)
		}
	}
	addsUp("cancelled", rep, 0, len(ran), len(over))

	var start RunStart
	o.Started = func(r RunStart) { start = r }
	again, err := Tune(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	after := storedEvaluations(t, db, again.Run)
	over, ran = splitOverLimit(t, after, max)
	if again.Run != rep.Run || start.Resumed != len(before)-rep.DeviceExcluded {
		t.Errorf("run %d started as %+v; want run %d resumed from the %d evaluations that counted", again.Run, start, rep.Run, len(before)-rep.DeviceExcluded)
	}
	addsUp("resumed", again, len(before)-rep.DeviceExcluded, 6-(len(before)-rep.DeviceExcluded), len(over))
	if len(ran) != 6 || len(over) == 0 || again.Stop != "budget" || again.DeviceExcluded != len(over) ||
		again.Statuses["device_limit"] != len(over) || again.Evaluations != len(after) {
		t.Errorf("resumed: %d stored that ran, %d over the limit, stop %q, report %d evaluations, statuses %v, %d excluded; want 6 that ran, the budget, and the over-limit ones reported",
			len(ran), len(over), again.Stop, again.Evaluations, again.Statuses, again.DeviceExcluded)
	}
	for _, e := range ran {
		if e.Status != result.OK {
			t.Errorf("%s: %v %q; want ok", store.ConfigKey(e.Config), e.Status, e.Message)
		}
	}
	got := keys(after)
	if slices.Sort(got); len(slices.Compact(slices.Clone(got))) != len(got) {
		t.Errorf("a configuration was evaluated twice: %v", got)
	}

	// a budget past the 6 configurations that fit: all 12 are evaluated, 6 counted
	all := Options{SpecPath: path, Device: "opencl", Strategy: "random", Seed: 3, Budget: 10, DB: db, NoPrecompile: true, Fresh: true}
	whole, err := Tune(context.Background(), all)
	if err != nil {
		t.Fatal(err)
	}
	over, ran = splitOverLimit(t, storedEvaluations(t, db, whole.Run), max)
	if len(ran) != 6 || len(over) != 6 || whole.Stop != "space exhausted" || whole.DeviceExcluded != 6 {
		t.Errorf("budget 10: %d that ran, %d over the limit (%d reported), stop %q; want 6, 6 and the space exhausted",
			len(ran), len(over), whole.DeviceExcluded, whole.Stop)
	}
	addsUp("budget 10", whole, 0, 6, 6)
}
