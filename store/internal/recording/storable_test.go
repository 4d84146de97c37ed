package recording_test

import (
	"testing"

	"github.com/ktune/ktune/space"
	"github.com/ktune/ktune/store/internal/recording"
	"github.com/ktune/ktune/store/storetest"
)

// A recording whose text the store keeps as it is comes back itself, uncopied, and one
// that needs U+FFFD comes back a copy, the recording given left as it was.
func TestStorableCopiesOnlyWhatItChanges(t *testing.T) {
	rec := storetest.Recording()
	if got, err := recording.Storable(rec); err != nil || got != rec {
		t.Errorf("Storable of a recording all in UTF-8 = %p, %v; want the recording itself, %p", got, err, rec)
	}
	rec.Evaluations[1].Config[3] = space.StringValue("col\xe9")
	rec.Params[3].Values[1] = space.StringValue("col\xe9")
	got, err := recording.Storable(rec)
	if err != nil {
		t.Fatal(err)
	}
	if got == rec || got.Evaluations[1].Config[3] != space.StringValue("col\uFFFD") || got.Params[3].Values[1] != space.StringValue("col\uFFFD") {
		t.Errorf("Storable gave %p, value %q and %q", got, got.Evaluations[1].Config[3].String(), got.Params[3].Values[1].String())
	}
	if rec.Evaluations[1].Config[3] != space.StringValue("col\xe9") || rec.Params[3].Values[1] != space.StringValue("col\xe9") || len(rec.Warnings) != 1 {
		t.Errorf("Storable changed the recording it was given: %q, %q, warnings %q",
			rec.Evaluations[1].Config[3].String(), rec.Params[3].Values[1].String(), rec.Warnings)
	}
}

// Storable's check of a recording that needs no change, on the path of every import.
func BenchmarkStorable(b *testing.B) {
	rec := storetest.LargeRecording(storetest.ImportSize)
	for b.Loop() {
		if got, err := recording.Storable(rec); err != nil || got != rec {
			b.Fatal(got != rec, err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*storetest.ImportSize), "ns/evaluation")
}
