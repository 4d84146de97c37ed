package result

import "testing"

// An evaluation's runs per sample is its RunsPerSample where known; else the batch's
// length read from the note of an evaluation timed for min_time, whatever its statistic
// and whatever note comes before it (recordings made before the field: a ktune export's
// ktune_message); else one run per sample.
func TestSampleRunsIsTheFieldElseTheMinTimeNote(t *testing.T) {
	const noted = "timed over 1280 runs for min_time 10ms: each of its 32 samples is the mean of 40 consecutive runs"
	for _, c := range []struct {
		known int
		msg   string
		want  int
	}{
		{0, noted, 40},
		{0, "timed over 70 runs for min_time 1s: each of its 7 samples is the min of 10 consecutive runs (min_time not reached within the cap of 10000 runs)", 10},
		{0, "metrics left out: GB/s: division by zero; timed over 9 runs for min_time 5ms: each of its 3 samples is the median of 3 consecutive runs", 3},
		{0, "timed over 5 of the spec's 32 iterations: another run would have passed its timeout of 10s", 1},
		{0, "timed over the spec's 5 iterations alone: min_time not reached: another 5 runs would have passed its timeout of 1s", 1},
		{0, "each of its 3 samples is the mean of 7 consecutive runs", 1}, // not a min_time note
		{0, "", 1},
		{1, "", 1},
		{25, "", 25},
		{25, noted, 25}, // the field wins over a note
	} {
		e := Evaluation{RunsPerSample: c.known, Message: c.msg}
		if got := e.SampleRuns(); got != c.want {
			t.Errorf("SampleRuns of RunsPerSample %d, message %q = %d, want %d", c.known, c.msg, got, c.want)
		}
	}
}

// Recordings compare by the runs per sample their evaluations mean: one that says it in
// RunsPerSample equals one that says it in a note (its export read back), and differs
// from one of another batch length.
func TestSameAsComparesRunsPerSample(t *testing.T) {
	const noted = "timed over 1280 runs for min_time 10ms: each of its 32 samples is the mean of 40 consecutive runs"
	rec := func(per int) *Recording {
		return &Recording{Evaluations: []Evaluation{{Status: OK, Objective: 1, Samples: []float64{1}, Message: noted, RunsPerSample: per}}}
	}
	if !rec(40).SameAs(rec(0)) || !rec(0).SameAs(rec(40)) {
		t.Error("RunsPerSample 40 differs from a note saying 40")
	}
	if rec(40).SameAs(rec(20)) || rec(20).SameAs(rec(0)) {
		t.Error("RunsPerSample 20 is the same as 40")
	}
}
