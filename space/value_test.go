package space

import "testing"

// A list may hold values Python calls equal (Kernel Tuner's [1, True, 1.5, "x"]): each
// finds its own position, and a value of another kind the first equal one.
func TestIndexPrefersTheValueOfItsOwnKind(t *testing.T) {
	p := Param{Name: "m", Values: []Value{IntValue(1), BoolValue(true), FloatValue(1.5), StringValue("x"), FloatValue(2)}}
	for _, tc := range []struct {
		v    Value
		want int
	}{
		{IntValue(1), 0}, {BoolValue(true), 1}, {FloatValue(1), 0}, {FloatValue(1.5), 2},
		{StringValue("x"), 3}, {IntValue(2), 4}, {BoolValue(false), -1}, {StringValue("1"), -1},
	} {
		if got := p.Index(tc.v); got != tc.want {
			t.Errorf("Index(%v of kind %v) = %d, want %d", tc.v, tc.v.Kind(), got, tc.want)
		}
	}
}
