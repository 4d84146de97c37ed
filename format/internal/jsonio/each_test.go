package jsonio

import (
	"fmt"
	"strings"
	"testing"
)

// Every value is decoded into a zero T and handed over in order, across batches, in the
// places of one batch (what a large file's reading holds of its decoded values), and the
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
	held := map[*item]bool{} // where the values were decoded
	ok := DecodeEach(data, extents, nil, func(i int, v *item) bool {
		if i != seen || v.A != i || (v.B != nil) != (i%2 == 0) {
			t.Fatalf("value %d (the %dth handed over): %+v", i, seen, v)
		}
		seen++
		held[v] = true
		return true
	})
	if !ok || seen != n {
		t.Fatalf("ok %v after %d of %d values", ok, seen, n)
	}
	if len(held) > eachBatch {
		t.Errorf("%d values decoded in %d places, more than a batch of %d", n, len(held), eachBatch)
	}

	bad := append([]Extent{}, extents...)
	bad[eachBatch+3] = Extent{0, 5} // `{"a":` cut short
	seen = 0
	if DecodeEach(data, bad, nil, func(i int, v *item) bool { seen++; return true }) || seen != eachBatch+3 {
		t.Errorf("a value that does not decode: %d handed over, want %d and false", seen, eachBatch+3)
	}
	seen = 0
	if DecodeEach(data, extents, nil, func(i int, v *item) bool { seen++; return i < 10 }) || seen != 11 {
		t.Errorf("use refusing value 10: %d handed over, want 11 and false", seen)
	}
	if !DecodeEach(data, nil, nil, func(int, *item) bool { return false }) {
		t.Error("no values: false")
	}
}

// A value scan gives up on is decoded by encoding/json afresh, whatever scan had set.
func TestDecodeEachDecodesWhatScanGivesUpOnWithEncodingJSON(t *testing.T) {
	type item struct {
		A int    `json:"a"`
		S string `json:"s"`
	}
	src := `{"a": 1, "s": "x"} {"a": 2} {"a": 3, "s": "y"}`
	extents := []Extent{{0, 18}, {19, 27}, {28, 46}}
	scan := func(s *Scanner, v *item) {
		v.S = "scanned"
		if s.Peek(); s.Data[s.I+6] != '1' {
			s.Fail()
		}
		s.Skip()
		v.A = 1
	}
	var got []item
	if !DecodeEach([]byte(src), extents, scan, func(i int, v *item) bool { got = append(got, *v); return true }) {
		t.Fatal("false")
	}
	want := []item{{1, "scanned"}, {2, ""}, {3, "y"}}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
		t.Errorf("got %+v, want %+v", got, want)
	}
}
