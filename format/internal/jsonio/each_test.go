package jsonio

import (
	"fmt"
	"strings"
	"testing"
)

// Every value is decoded into a zero T and handed over in order, across batches, and the
// first that does not decode (or that use refuses) ends it.
func TestDecodeEachHandsEveryValueOverInOrderDecodedAfresh(t *testing.T) {
	type item struct {
		A int  `json:"a"`
		B *int `json:"b"`
	}
	n := 2*eachBatch + 7
	var b strings.Builder
	var extents []Extent
	for i := range n {
		start := b.Len()
		if i%2 == 0 {
			fmt.Fprintf(&b, `{"a": %d, "b": %d} `, i, i)
		} else {
			fmt.Fprintf(&b, `{"a": %d}`, i)
		}
		extents = append(extents, Extent{start, b.Len()})
	}
	data := []byte(b.String())
	seen := 0
	ok := DecodeEach(data, extents, func(i int, v *item) bool {
		if i != seen || v.A != i || (v.B != nil) != (i%2 == 0) {
			t.Fatalf("value %d (the %dth handed over): %+v", i, seen, v)
		}
		seen++
		return true
	})
	if !ok || seen != n {
		t.Fatalf("ok %v after %d of %d values", ok, seen, n)
	}

	bad := append([]Extent{}, extents...)
	bad[eachBatch+3] = Extent{0, 5} // `{"a":` cut short
	seen = 0
	if DecodeEach(data, bad, func(i int, v *item) bool { seen++; return true }) || seen != eachBatch+3 {
		t.Errorf("a value that does not decode: %d handed over, want %d and false", seen, eachBatch+3)
	}
	seen = 0
	if DecodeEach(data, extents, func(i int, v *item) bool { seen++; return i < 10 }) || seen != 11 {
		t.Errorf("use refusing value 10: %d handed over, want 11 and false", seen)
	}
	if !DecodeEach(data, nil, func(int, *item) bool { return false }) {
		t.Error("no values: false")
	}
}
