package figure

import (
	"strings"
	"testing"
)

func TestTicksAreRoundAndIncludeZero(t *testing.T) {
	for _, tt := range []struct {
		integer bool
		lo, hi  float64
		want    string
	}{
		{true, 0, 31, "0 5 10 15 20 25 30"},
		{false, 0.0147, 0.0253, "0.016 0.018 0.020 0.022 0.024"},
		// QA: the second-order chart's axis read -0.015 0.005 0.025, skipping 0 (gonum's
		// default ticker on this range)
		{false, -0.0183, 0.0291, "-0.01 0.00 0.01 0.02"},
		{false, -0.0168, 0.0343, "-0.01 0.00 0.01 0.02 0.03"},
		{false, -1, 1, "-1.0 -0.5 0.0 0.5 1.0"},
		{false, -3e-5, 2e-4, "0.00000 0.00005 0.00010 0.00015 0.00020"},
		{false, 0.93, 1, "0.93 0.94 0.95 0.96 0.97 0.98 0.99 1.00"},
		{false, 2, 2, "2"},
	} {
		var labels []string
		for _, tk := range (Ticks{Integer: tt.integer}).Ticks(tt.lo, tt.hi) {
			if tk.Label != "" {
				labels = append(labels, tk.Label)
			}
		}
		if got := strings.Join(labels, " "); got != tt.want {
			t.Errorf("ticks of %v..%v: %s, want %s", tt.lo, tt.hi, got, tt.want)
		}
	}
}
