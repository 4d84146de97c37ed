package expr_test

import (
	"testing"

	"github.com/ktune/ktune/expr"
	"github.com/ktune/ktune/space"
)

// BenchmarkGEMMSpace builds a space shaped like CLBlast's GEMM (1,327,104 configurations,
// 241,600 valid, as Python counts them): its restrictions are evaluated millions of times.
func BenchmarkGEMMSpace(b *testing.B) {
	ints := func(vs ...int64) []space.Value {
		out := make([]space.Value, len(vs))
		for i, v := range vs {
			out[i] = space.IntValue(v)
		}
		return out
	}
	params := []space.Param{
		{Name: "MWG", Values: ints(16, 32, 64, 128)},
		{Name: "NWG", Values: ints(16, 32, 64, 128)},
		{Name: "KWG", Values: ints(16, 32)},
		{Name: "MDIMC", Values: ints(8, 16, 32)},
		{Name: "NDIMC", Values: ints(8, 16, 32)},
		{Name: "MDIMA", Values: ints(8, 16, 32)},
		{Name: "NDIMB", Values: ints(8, 16, 32)},
		{Name: "KWI", Values: ints(2, 8)},
		{Name: "VWM", Values: ints(1, 2, 4, 8)},
		{Name: "VWN", Values: ints(1, 2, 4, 8)},
		{Name: "STRM", Values: ints(0, 1)},
		{Name: "STRN", Values: ints(0, 1)},
		{Name: "SA", Values: ints(0, 1)},
		{Name: "SB", Values: ints(0, 1)},
	}
	restrictions := []string{
		"KWG % KWI == 0",
		"MWG % (MDIMC * VWM) == 0",
		"NWG % (NDIMC * VWN) == 0",
		"MWG % (MDIMA * VWM) == 0",
		"NWG % (NDIMB * VWN) == 0",
		"KWG % ((MDIMC * NDIMC) // MDIMA) == 0",
		"KWG % ((MDIMC * NDIMC) // NDIMB) == 0",
		"32 <= MDIMC * NDIMC <= 1024",
		"(MWG * KWG + NWG * KWG) * 4 <= 32768 or SA + SB < 2",
	}
	for b.Loop() {
		s, err := expr.NewSpace(params, restrictions)
		if err != nil {
			b.Fatal(err)
		}
		if s.Len() != 241600 {
			b.Fatalf("%d valid configurations, want 241600", s.Len())
		}
	}
}
