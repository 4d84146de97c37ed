package sensitivity

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/ktune/ktune/space"
)

// TestSignificanceByHand checks a five-row table worked by hand: block (int) 16 32 64 32
// 16 against y = 5 3 1 3 5 is monotone but not linear (Spearman exactly -1, Pearson
// above it); unroll (bool) counts as 0/1; layout (strings "row", "col", "tile" in that
// order) as its positions 0, 1, 2; a single-valued parameter has no coefficient.
func TestSignificanceByHand(t *testing.T) {
	params := []space.Param{
		{Name: "block", Values: []space.Value{space.IntValue(16), space.IntValue(32), space.IntValue(64)}},
		{Name: "unroll", Values: []space.Value{space.BoolValue(false), space.BoolValue(true)}},
		{Name: "layout", Values: []space.Value{space.StringValue("row"), space.StringValue("col"), space.StringValue("tile")}},
		{Name: "fixed", Values: []space.Value{space.IntValue(1)}},
	}
	cfgs := []space.Config{{0, 0, 2, 0}, {1, 1, 1, 0}, {2, 1, 0, 0}, {1, 0, 1, 0}, {0, 1, 2, 0}, {2, 0, 0, 0}}
	y := []float64{5, 3, 1, 3, 5, math.NaN()} // the last (failed) row is dropped
	got := Significance(params, cfgs, y)
	if len(got) != 4 {
		t.Fatalf("%d results, want 4", len(got))
	}
	// block: x = 16 32 64 32 16, mean 32, dx = -16 0 32 0 -16; y mean 3.4, dy = 1.6 -.4 -2.4 -.4 1.6.
	// sxy = -25.6 + 0 - 76.8 + 0 - 25.6 = -128; sxx = 256+1024+256 = 1536; syy = 2.56*2+.16*2+5.76 = 11.2.
	wantBlock := -128 / math.Sqrt(1536*11.2)
	// unroll: x = 0 1 1 0 1, mean .6, dx = -.6 .4 .4 -.6 .4; sxy = -.96 -.16 -.96 +.24 +.64 = -1.2; sxx = 1.2.
	wantUnroll := -1.2 / math.Sqrt(1.2*11.2)
	// layout: ordinal x = 2 1 0 1 2, the same shape as block's ranks: dx = .8 -.2 -1.2 -.2 .8;
	// sxy = 1.28 + .08 + 2.88 + .08 + 1.28 = 5.6; sxx = .64*2 + .04*2 + 1.44 = 2.8.
	wantLayout := 5.6 / math.Sqrt(2.8*11.2)
	cases := []struct {
		c                 Correlation
		name              string
		pearson, spearman float64
		ordinal           bool
	}{
		{got[0], "block", wantBlock, -1, false},
		{got[1], "unroll", wantUnroll, math.NaN(), false},
		{got[2], "layout", wantLayout, 1, true},
	}
	for _, c := range cases {
		if c.c.Param != c.name || c.c.N != 5 || c.c.Ordinal != c.ordinal {
			t.Errorf("%+v: want param %s over 5 rows, ordinal %v", c.c, c.name, c.ordinal)
		}
		if math.Abs(c.c.Pearson-c.pearson) > 1e-12 {
			t.Errorf("%s: Pearson %v, want %v", c.name, c.c.Pearson, c.pearson)
		}
		if !math.IsNaN(c.spearman) && math.Abs(c.c.Spearman-c.spearman) > 1e-12 {
			t.Errorf("%s: Spearman %v, want %v", c.name, c.c.Spearman, c.spearman)
		}
	}
	// unroll's ranks: x ties give 1.5 1.5 / 4 4 4; y ranks 4.5 2.5 1 2.5 4.5; the
	// coefficient equals Pearson on those ranks, and with two x levels it is negative.
	if got[1].Spearman >= 0 {
		t.Errorf("unroll: Spearman %v, want negative", got[1].Spearman)
	}
	if !math.IsNaN(got[3].Pearson) || !math.IsNaN(got[3].Spearman) {
		t.Errorf("constant parameter: %+v, want NaN coefficients", got[3])
	}
	b, err := json.Marshal(got)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `{"param":"fixed","pearson":null,"spearman":null,"n":5,"ordinal":false}`) {
		t.Errorf("JSON %s", b)
	}
	var back []Correlation
	if err := json.Unmarshal(b, &back); err != nil || back[0].Pearson != got[0].Pearson || !math.IsNaN(back[3].Pearson) {
		t.Errorf("round trip: %+v, %v", back, err)
	}
}

func TestOrdinalEncodingFollowsTheValueList(t *testing.T) {
	// The same data with the string values listed in reverse order flips the sign.
	fwd := []space.Param{{Name: "s", Values: []space.Value{space.StringValue("a"), space.StringValue("b"), space.StringValue("c")}}}
	rev := []space.Param{{Name: "s", Values: []space.Value{space.StringValue("c"), space.StringValue("b"), space.StringValue("a")}}}
	y := []float64{1, 2, 4}
	f := Significance(fwd, []space.Config{{0}, {1}, {2}}, y) // a b c
	r := Significance(rev, []space.Config{{2}, {1}, {0}}, y) // a b c again
	if !f[0].Ordinal || math.Abs(f[0].Pearson+r[0].Pearson) > 1e-12 || f[0].Pearson <= 0 {
		t.Errorf("forward %+v, reversed %+v: want opposite signs, ordinal", f[0], r[0])
	}
	// Mixed numbers and strings are encoded ordinally as a whole.
	mixed := []space.Param{{Name: "m", Values: []space.Value{space.IntValue(100), space.StringValue("auto"), space.IntValue(1)}}}
	m := Significance(mixed, []space.Config{{0}, {1}, {2}}, y)
	if !m[0].Ordinal || math.Abs(m[0].Pearson-f[0].Pearson) > 1e-12 {
		t.Errorf("mixed: %+v, want the ordinal coefficient %v", m[0], f[0].Pearson)
	}
}
