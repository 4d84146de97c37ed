package tuner

import (
	"testing"

	"github.com/ktune/ktune/spec"
)

// A run stores constant sizes as an array of integers, and sizes over the parameters
// as their expressions.
func TestStoredProblemSize(t *testing.T) {
	consts := []spec.Constant{{Name: "M", Value: 128}, {Name: "N", Value: 400000}}
	tests := []struct {
		sizes []string
		want  string
	}{
		{[]string{"M", "M"}, "[128,128]"},
		{[]string{"N"}, "[400000]"},
		{[]string{"2*M", "M/2"}, "[256,64]"},
		{[]string{"M/3"}, "128/3"},
		{[]string{"M*tile", "M"}, "128*tile,128"},
	}
	for _, tt := range tests {
		if got := storedProblemSize(&spec.Spec{Constants: consts, ProblemSize: tt.sizes}); got != tt.want {
			t.Errorf("sizes %q: stored %q, want %q", tt.sizes, got, tt.want)
		}
	}
}
