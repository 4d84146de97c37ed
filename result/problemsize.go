package result

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
)

// ProblemSizeInts reads a recording's problem size (Recording.ProblemSize) as integer
// sizes: a JSON array of integers ("[4096,4096]"), one integer ("20000000", as Kernel
// Tuner writes a 1-D size), or sizes separated by commas or x ("128,128",
// "4096x4096x4096", "(128, 128)"), the forms ktune stored before it stored arrays. It
// returns false for anything else (an expression over parameters, "callable", an empty
// string), which no integer array can stand for.
func ProblemSizeInts(s string) ([]int64, bool) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, false
	}
	var list []json.Number
	if json.Unmarshal([]byte(s), &list) == nil {
		return integers(list)
	}
	s = strings.Trim(s, "()[] ")
	parts := strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == 'x' || r == 'X' })
	nums := make([]json.Number, 0, len(parts))
	for _, p := range parts {
		nums = append(nums, json.Number(strings.TrimSpace(p)))
	}
	return integers(nums)
}

// integers converts numbers that are all whole (1e3 and 128.0 included) to int64s.
func integers(nums []json.Number) ([]int64, bool) {
	if len(nums) == 0 {
		return nil, false
	}
	out := make([]int64, len(nums))
	for i, n := range nums {
		if v, err := strconv.ParseInt(string(n), 10, 64); err == nil {
			out[i] = v
			continue
		}
		f, err := strconv.ParseFloat(string(n), 64)
		if err != nil || f != float64(int64(f)) || f > 1<<53 || f < -(1<<53) {
			return nil, false
		}
		out[i] = int64(f)
	}
	return out, true
}

// sameProblemSize reports whether two problem sizes are the same: the same integer sizes
// where both are written as integers, whatever the form (Kernel Tuner writes a 1-D size as
// 20000000, ktune's writers as [20000000]), and the same text otherwise.
func sameProblemSize(a, b string) bool {
	x, okA := ProblemSizeInts(a)
	y, okB := ProblemSizeInts(b)
	if okA && okB {
		return slices.Equal(x, y)
	}
	return a == b
}
