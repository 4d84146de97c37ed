package format

import (
	"encoding/json"

	"github.com/ktune/ktune/result"
)

// ProblemSizeInts reads a recording's problem size as the integer sizes Kernel Tuner's
// cache schema requires ("problem_size": an array of integers), in the forms
// result.ProblemSizeInts reads: a JSON array of integers ("[4096,4096]"), one integer
// ("20000000", as Kernel Tuner writes a 1-D size), or sizes separated by commas or x
// ("128,128", "4096x4096x4096", "(128, 128)"). It returns false for anything else (an
// expression over parameters, "callable", an empty string), which no integer array can
// stand for.
func ProblemSizeInts(s string) ([]int64, bool) { return result.ProblemSizeInts(s) }

// ProblemSizeJSON is the problem size as a compact JSON array of integers ("[128,128]"), the
// form ktune stores and writes; false when ProblemSizeInts cannot read s.
func ProblemSizeJSON(s string) (string, bool) {
	ints, ok := ProblemSizeInts(s)
	if !ok {
		return "", false
	}
	b, _ := json.Marshal(ints)
	return string(b), true
}
