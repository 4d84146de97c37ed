package result_test

import (
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
