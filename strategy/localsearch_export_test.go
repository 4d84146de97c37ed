package strategy

import (
	"context"
	"errors"
	"testing"

	"github.com/ktune/ktune/space"
)

// LocalSearchFactories exposes the local-search factories to the external tests in
// localsearch_test.go, which need the simulator (and the simulator imports this package).
var LocalSearchFactories = map[string]Factory{
	"firstmls":  firstMLSFactory,
	"bestmls":   bestMLSFactory,
	"firstils":  firstILSFactory,
	"bestils":   bestILSFactory,
	"firsttabu": firstTabuFactory,
	"besttabu":  bestTabuFactory,
	"annealing": annealingFactory,
}

// AnnealingFrom exposes annealing's hand-off start (auto's second stage) to the external
// tests.
func AnnealingFrom(c space.Config) Strategy {
	a, err := newAnnealing(nil)
	if err != nil {
		panic(err)
	}
	return a.(*annealing).startingAt(c)
}

func TestLocalSearchPassesOnEvaluatorErrors(t *testing.T) {
	for name, f := range LocalSearchFactories {
		s, err := f.New(nil)
		if err != nil {
			t.Fatal(err)
		}
		p := newFake(t, []int{5, 5, 3}, 100, 1)
		p.failAt = 7
		if err := s.Run(context.Background(), p); !errors.Is(err, errFake) {
			t.Errorf("%s: Run = %v, want the evaluator's error", name, err)
		}
	}
}
