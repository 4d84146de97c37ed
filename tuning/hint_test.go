package tuning

import (
	"context"
	"slices"
	"testing"

	"github.com/ktune/ktune/expr"
	"github.com/ktune/ktune/result"
	"github.com/ktune/ktune/space"
	"github.com/ktune/ktune/strategy"
)

// fakeEval scores configurations by their index and records hints.
type fakeEval struct {
	sp    *space.Space
	hints []int
}

func (f *fakeEval) Evaluate(_ context.Context, c space.Config) (result.Evaluation, error) {
	i, _ := f.sp.Index(c)
	return result.Evaluation{Status: result.OK, Objective: float64(i)}, nil
}

type hintingEval struct {
	fakeEval
	calls [][]int // the configurations of each Hint call
}

func (h *hintingEval) Hint(cs ...space.Config) {
	var call []int
	for _, c := range cs {
		i, _ := h.sp.Index(c)
		h.hints = append(h.hints, i)
		call = append(call, i)
	}
	h.calls = append(h.calls, call)
}

func TestHintsAnnounceTheNextConfigurationsWithoutChangingTheRun(t *testing.T) {
	vals := func(n int) []space.Value {
		var out []space.Value
		for i := range n {
			out = append(out, space.IntValue(int64(i)))
		}
		return out
	}
	sp, err := expr.NewSpace([]space.Param{{Name: "a", Values: vals(20)}, {Name: "b", Values: vals(20)}}, []string{"a + b < 30"})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"random", "bruteforce"} {
		order := func(ev Evaluator) []int {
			st, _ := strategy.New(name, nil)
			s, err := New(sp, st, ev, Options{Budget: 40, Seed: 5})
			if err != nil {
				t.Fatal(err)
			}
			sum, err := s.Run(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			var out []int
			for _, h := range sum.History {
				out = append(out, int(h.Evaluation.Objective))
			}
			return out
		}
		plain := order(&fakeEval{sp: sp})
		he := &hintingEval{fakeEval: fakeEval{sp: sp}}
		hinted := order(he)
		if !slices.Equal(plain, hinted) {
			t.Fatalf("%s: hints changed the run", name)
		}
		// Before each evaluation but the last, the strategy hinted the next 8
		// configurations it will evaluate, in order (enough to keep several pre-compilers
		// busy).
		if len(he.calls) < len(hinted)-1 {
			t.Fatalf("%s: %d hints for %d evaluations", name, len(he.calls), len(hinted))
		}
		for k, call := range he.calls[:len(hinted)-1] {
			if want := hinted[k+1 : min(k+9, len(hinted))]; !slices.Equal(call[:len(want)], want) || len(call) != 8 {
				t.Fatalf("%s: before evaluation %d the hint was %v, the next evaluations %v", name, k, call, want)
			}
		}
		if len(he.hints) == 0 {
			t.Fatalf("%s: no hints", name)
		}
	}
}
