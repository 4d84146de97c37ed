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
