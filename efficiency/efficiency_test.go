package efficiency

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/ktune/ktune/device"
)

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }

func TestOfIsEquation2(t *testing.T) {
	gtx1070 := Peaks{Precision: "float32", GFLOPS: 5783, GBs: 256}
	for _, tc := range []struct {
		name    string
		ops     Ops
		ms      float64
		percent float64
		bound   string
	}{
		// BiCG at 2048 x 2048 (4a^2 bytes) in 0.1 ms: 167.77216 GB/s of 256
		{"memory-bound", Ops{Bytes: 4 * 2048 * 2048, Precision: "float32"}, 0.1, 100 * 167.77216 / 256, "memory"},
		// GEMM at 2048 (2a^3 flops) in 4 ms: 4294.967296 GFLOP/s of 5783
		{"compute-bound", Ops{Flops: 2 * 2048 * 2048 * 2048, Precision: "float32"}, 4, 100 * 4294.967296 / 5783, "compute"},
		// both: the larger share wins (memory 50%, compute 10%)
		{"both, memory larger", Ops{Bytes: 128e6, Flops: 578.3e6, Precision: "float32"}, 1, 50, "memory"},
		{"both, compute larger", Ops{Bytes: 12.8e6, Flops: 5783e6, Precision: "float32"}, 1, 100, "compute"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Of(tc.ops, tc.ms, gtx1070)
			if err != nil {
				t.Fatal(err)
			}
			if !near(r.Percent, tc.percent) || r.Bound != tc.bound {
				t.Errorf("%.6f%% %s-bound, want %.6f%% %s", r.Percent, r.Bound, tc.percent, tc.bound)
			}
			if tc.ops.Bytes > 0 && (r.MemoryPercent == nil || !near(r.GBs, tc.ops.Bytes/tc.ms/1e6)) {
				t.Errorf("memory share %v, GB/s %v", r.MemoryPercent, r.GBs)
			}
			if tc.ops.Flops == 0 && r.ComputePercent != nil {
				t.Errorf("a compute share %v without flops", *r.ComputePercent)
			}
		})
	}
}

// A missing peak's error names only the figures missing, each with its own reason as the
// device's backend gave it (not the backend's whole text, which speaks of figures given
// or not needed), and the flag and peaks file entry that give it.
func TestOfNeedsEveryPeakItsOperationsUse(t *testing.T) {
	// as PoCL's OpenCL derives a CPU's peaks: none
	var pocl device.Peak
	pocl.Lack("float32", "OpenCL reports no lanes per compute unit")
	pocl.Lack(device.MemoryFigure, "OpenCL reports no memory bandwidth")
	pocl.Lack("float64", "OpenCL gives no rate of it")
	const (
		memory = "the device's memory bandwidth peak is unknown (OpenCL reports no memory bandwidth): " +
			"give it with --peak-gbs GB/s, or gbs: GB/s in the device's entry of a peaks file (--peaks)"
		float64Peak = "float64 arithmetic peak is unknown (OpenCL gives no rate of it): " +
			"give it with --peak-gflops GFLOP/s, or gflops: {float64: GFLOP/s} in the device's entry of a peaks file (--peaks)"
	)
	ops := Ops{Bytes: 1e6, Flops: 1e6, Precision: "float64"}
	for _, tc := range []struct {
		name            string
		given           Given
		derived         *device.Peak
		memory, compute bool
		want            string
	}{
		{"memory", Given{GFLOPS: 100}, &pocl, true, false,
			"no efficiency: " + memory + "; take it from the device's data sheet or a measurement (STREAM for memory)"},
		{"arithmetic", Given{GBs: 100}, &pocl, false, true,
			"no efficiency: the device's " + float64Peak + "; take it from the device's data sheet or a measurement"},
		{"both", Given{}, &pocl, true, true,
			"no efficiency: " + memory + "; its " + float64Peak + "; take them from the device's data sheet or a measurement (STREAM for memory)"},
		{"no derived peaks", Given{GFLOPS: 100}, nil, true, false,
			"no efficiency: the device's memory bandwidth peak is unknown: give it with --peak-gbs GB/s, or gbs: GB/s in the device's entry of a peaks file (--peaks); " +
				"take it from the device's data sheet or a measurement (STREAM for memory)"},
	} {
		_, err := Of(ops, 1, Resolve(tc.derived, ops.Precision, tc.given))
		var me *MissingPeakError
		if !errors.As(err, &me) || me.Memory != tc.memory || me.Compute != tc.compute {
			t.Errorf("%s missing: %#v", tc.name, err)
			continue
		}
		if err.Error() != tc.want {
			t.Errorf("%s missing:\n got %s\nwant %s", tc.name, err, tc.want)
		}
	}
	if _, err := Of(Ops{Excluded: "latency-bound"}, 1, Peaks{GBs: 1, GFLOPS: 1}); err == nil || !strings.Contains(err.Error(), "latency-bound") {
		t.Errorf("excluded: %v", err)
	}
	if _, err := Of(Ops{Bytes: 1}, 0, Peaks{GBs: 1}); err == nil {
		t.Error("a time of 0 gave an efficiency")
	}
}

func TestResolvePrefersGivenPeaks(t *testing.T) {
	d := &device.Peak{GFLOPS: map[string]float64{"float32": 1000, "float64": 500}, GBs: 300, How: "formula"}
	p := Resolve(d, "float64", Given{GBs: 250})
	if p.GFLOPS != 500 || p.GFLOPSFrom != "derived: formula" || p.GBs != 250 || p.GBsFrom != "given" {
		t.Errorf("got %+v", p)
	}
	if p := Resolve(d, "float16", Given{}); p.GFLOPS != 0 {
		t.Errorf("a float16 peak %v from a device that derives none", p.GFLOPS)
	}
	if p := Resolve(nil, "float32", Given{GFLOPS: 7}); p.GFLOPS != 7 || p.GBs != 0 {
		t.Errorf("got %+v", p)
	}
}

func TestSummarizeSaysWhyThereIsNone(t *testing.T) {
	s := Summarize(Ops{Bytes: 1e9, Precision: "float32"}, &device.Peak{Unknown: "no bandwidth"}, Given{}, 10)
	if s.Best != nil || !strings.Contains(s.Missing, "--peak-gbs") {
		t.Errorf("got %+v", s)
	}
	s = Summarize(Ops{Bytes: 1e9, Precision: "float32"}, nil, Given{GBs: 200}, 10)
	if s.Best == nil || !near(s.Best.Percent, 50) || s.Missing != "" {
		t.Errorf("got %+v", s)
	}
	s = Summarize(Ops{Excluded: "judged against a baseline"}, nil, Given{GBs: 200}, 10)
	if s.Best != nil || s.Peaks != nil || !strings.Contains(s.Missing, "baseline") {
		t.Errorf("got %+v", s)
	}
}

func TestTimeAtIsWhereEquation2ReachesTheFraction(t *testing.T) {
	ops := Ops{Bytes: 128e6, Flops: 2e9, Precision: "float32"}
	p := Peaks{Precision: "float32", GBs: 256, GFLOPS: 5783}
	ms, err := TimeAt(ops, p, 0.75)
	if err != nil {
		t.Fatal(err)
	}
	// the memory share needs 128e6 / (0.75 * 256e9) s = 0.6667 ms, the compute share
	// 2e9 / (0.75 * 5783e9) s = 0.4611 ms: the longer time reaches 75% first
	if !near(ms, 128e6/(0.75*256e9)*1e3) {
		t.Errorf("%v ms, want %v", ms, 128e6/(0.75*256e9)*1e3)
	}
	if r, _ := Of(ops, ms, p); !near(r.Percent, 75) {
		t.Errorf("eq. 2 at that time: %v%%, want 75", r.Percent)
	}
	if _, err := TimeAt(ops, Peaks{GBs: 256}, 0.75); err == nil {
		t.Error("no arithmetic peak, yet a time")
	}
	if _, err := TimeAt(ops, p, 1.5); err == nil {
		t.Error("a fraction of 1.5 accepted")
	}
}
