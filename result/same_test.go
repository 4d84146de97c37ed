package result_test

import (
	"bytes"
	"testing"

	"github.com/ktune/ktune/format"
	_ "github.com/ktune/ktune/format/all"
	"github.com/ktune/ktune/result"
)

// One run in two formats holds the same measurements though it is not the same recording:
// convolution_milo's A100 run as a Kernel Tuner cache and as its T4 export (which names no
// device, kernel or problem size, and drops the metrics and the benchmark time), which
// the benchmark hub keeps both of. Another device's run, or a measurement changed, is not.
func TestSameMeasurementsWhateverTheFormat(t *testing.T) {
	open := func(path string) *result.Recording {
		t.Helper()
		rec, err := format.Open("../testdata/benchmark_hub/convolution_milo/" + path)
		if err != nil {
			t.Fatal(err)
		}
		return rec
	}
	cache, t4, mi250x := open("A100.json.gz"), open("A100_T4.json.gz"), open("MI250X.json.gz")
	if cache.SameAs(t4) {
		t.Error("a cache and a T4 file are the same recording")
	}
	if !cache.SameMeasurements(t4) || !t4.SameMeasurements(cache) {
		t.Error("the A100 run as a cache and as T4 are not the same measurements")
	}
	if cache.SameMeasurements(mi250x) || mi250x.SameMeasurements(t4) {
		t.Error("the MI250X run has the A100's measurements")
	}
	changed := open("A100_T4.json.gz")
	changed.Evaluations[7].Samples[0] *= 1.01
	if cache.SameMeasurements(changed) {
		t.Error("a sample changed: still the same measurements")
	}
	changed = open("A100_T4.json.gz")
	changed.Device = "NVIDIA A40"
	if cache.SameMeasurements(changed) {
		t.Error("another device: still the same measurements")
	}
}

// Kernel Tuner writes a one-dimensional problem size as a number (pnpoly's 20000000),
// ktune's writers as an array ([20000000]): a cache and its export, read back, still hold
// the same measurements, as 'ktune bench' must see to warn that one run counts twice.
func TestSameMeasurementsOfAnExportWithAOneDimensionalProblemSize(t *testing.T) {
	cache, err := format.Open("../testdata/benchmark_hub/kerneltuner_pnpoly/RTX_2080_Ti.json.gz")
	if err != nil {
		t.Fatal(err)
	}
	if cache.ProblemSize != "20000000" {
		t.Fatalf("the pnpoly cache's problem size reads %q, want Kernel Tuner's 20000000", cache.ProblemSize)
	}
	for _, name := range []string{"kerneltuner", "t4"} {
		f, ok := format.Lookup(name)
		if !ok {
			t.Fatalf("no format %s", name)
		}
		var b bytes.Buffer
		if err := f.Write(&b, cache); err != nil {
			t.Fatal(err)
		}
		back, err := format.Read(&b, "export."+name)
		if err != nil {
			t.Fatal(err)
		}
		if !cache.SameMeasurements(back) || !back.SameMeasurements(cache) {
			t.Errorf("the pnpoly cache and its %s export (problem size %q) are not the same measurements", name, back.ProblemSize)
		}
	}
}

func TestSameMeasurementsComparesProblemSizesByTheirSizes(t *testing.T) {
	tests := []struct {
		a, b string
		same bool
	}{
		{"20000000", "[20000000]", true},
		{"[4096,4096]", "4096x4096", true},
		{"(128, 128)", "[128,128]", true},
		{"", "[128]", true}, // one file does not say it
		{"[4096]", "[2048]", false},
		{"[128,128]", "[128]", false},
		{"callable", "[1]", false},
		{"n*2", "n*2", true},
		{"n*2", "n*4", false},
	}
	for _, tt := range tests {
		r := &result.Recording{ProblemSize: tt.a}
		o := &result.Recording{ProblemSize: tt.b}
		if got := r.SameMeasurements(o); got != tt.same {
			t.Errorf("problem sizes %q and %q: SameMeasurements = %v, want %v", tt.a, tt.b, got, tt.same)
		}
	}
}
