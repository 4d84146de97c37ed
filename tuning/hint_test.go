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

type hintingEval struct{ fakeEval }

func (h *hintingEval) Hint(cs ...space.Config) {
	for _, c := range cs {
		i, _ := h.sp.Index(c)
		h.hints = append(h.hints, i)
	}
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
		he := &hintingEval{fakeEval{sp: sp}}
		hinted := order(he)
		if !slices.Equal(plain, hinted) {
			t.Fatalf("%s: hints changed the run", name)
		}
		// Every evaluated configuration after the first was hinted before it was evaluated.
		for k, idx := range hinted[1:] {
			pos := slices.Index(he.hints, idx)
			if pos < 0 || pos > 2*(k+1) {
				t.Fatalf("%s: configuration %d (evaluation %d) was not hinted in time: %v", name, idx, k+1, he.hints[:min(len(he.hints), 10)])
			}
		}
		if len(he.hints) == 0 {
			t.Fatalf("%s: no hints", name)
		}
	}
}
