package format_test

import (
	"slices"
	"testing"

	"github.com/ktune/ktune/format"
)

func TestProblemSizeIntsReadsEveryStoredForm(t *testing.T) {
	tests := []struct {
		in   string
		want []int64
		ok   bool
	}{
		{"[128,128]", []int64{128, 128}, true},
		{"[4096, 4096]", []int64{4096, 4096}, true},
		{"400000", []int64{400000}, true},    // Kernel Tuner's 1-D size
		{"128,128", []int64{128, 128}, true}, // what ktune tune stored before
		{"4096x4096x4096", []int64{4096, 4096, 4096}, true},
		{"(128, 64)", []int64{128, 64}, true},
		{"[1e3]", []int64{1000}, true},
		{"", nil, false},
		{"callable", nil, false},
		{"MWG*4,512", nil, false},
		{"[1.5]", nil, false},
		{"[]", nil, false},
		{`["a"]`, nil, false},
	}
	for _, tt := range tests {
		got, ok := format.ProblemSizeInts(tt.in)
		if ok != tt.ok || !slices.Equal(got, tt.want) {
			t.Errorf("ProblemSizeInts(%q) = %v, %v; want %v, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
	if s, ok := format.ProblemSizeJSON("128,128"); !ok || s != "[128,128]" {
		t.Errorf("ProblemSizeJSON(128,128) = %q, %v", s, ok)
	}
}
