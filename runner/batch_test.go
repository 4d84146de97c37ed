package runner

import (
	"slices"
	"testing"
)

// The runs that go on for min_time are kept as one sample per batch of consecutive runs,
// the batch's statistic: the samples' mean is every run's mean, their minimum every run's
// minimum.
func TestBatchStatisticsKeepTheStatisticOfEveryRun(t *testing.T) {
	runs := []float64{4, 1, 2, 3, 8, 5, 6, 7, 30, 9, 10, 11}
	for _, c := range []struct {
		statistic string
		want      []float64
	}{
		{"mean", []float64{2.5, 6.5, 15}},
		{"min", []float64{1, 5, 9}},
		{"median", []float64{2.5, 6.5, 10.5}},
	} {
		got := batchStatistics(c.statistic, runs, 3)
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: %v, want %v", c.statistic, got, c.want)
		}
		if c.statistic != "median" && TimeMS(c.statistic, got) != TimeMS(c.statistic, runs) {
			t.Errorf("%s of the samples %v, of the runs %v", c.statistic, TimeMS(c.statistic, got), TimeMS(c.statistic, runs))
		}
	}
}

// RunsPerSample reads the batch's length from the note of an evaluation timed for
// min_time, whatever its statistic and whatever note comes before it; any other message
// is one run per sample.
func TestRunsPerSampleReadsTheMinTimeNote(t *testing.T) {
	for msg, want := range map[string]int{
		"timed over 1280 runs for min_time 10ms: each of its 32 samples is the mean of 40 consecutive runs":                                               40,
		"timed over 70 runs for min_time 1s: each of its 7 samples is the min of 10 consecutive runs (min_time not reached within the cap of 10000 runs)": 10,
		MetricsLeftOut + "GB/s: division by zero; timed over 9 runs for min_time 5ms: each of its 3 samples is the median of 3 consecutive runs":          3,
		"timed over 5 of the spec's 32 iterations: another run would have passed its timeout of 10s":                                                      1,
		"timed over the spec's 5 iterations alone: min_time not reached: another 5 runs would have passed its timeout of 1s":                              1,
		"": 1,
	} {
		if got := RunsPerSample(msg); got != want {
			t.Errorf("RunsPerSample(%q) = %d, want %d", msg, got, want)
		}
	}
}
