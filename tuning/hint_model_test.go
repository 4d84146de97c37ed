package tuning_test

import (
	"context"
	"slices"
	"testing"

	"github.com/ktune/ktune/result"
	"github.com/ktune/ktune/simulator"
	"github.com/ktune/ktune/space"
	"github.com/ktune/ktune/tuning"
)

// orderedSim is the simulator recording the configurations evaluated, in order.
type orderedSim struct {
	*simulator.Simulator
	order []int
}

func (o *orderedSim) Evaluate(ctx context.Context, c space.Config) (result.Evaluation, error) {
	i, _ := o.Space().Index(c)
	o.order = append(o.order, i)
	return o.Simulator.Evaluate(ctx, c)
}

// hintedSim is that with a compile-ahead pipeline's ear: it records every hint.
type hintedSim struct {
	orderedSim
	hints [][]int // the space indices of each Hint call
	at    []int   // the evaluations made before each
}

func (h *hintedSim) Hint(cs ...space.Config) {
	call := make([]int, 0, len(cs))
	for _, c := range cs {
		i, ok := h.Space().Index(c)
		if !ok {
			panic("hinted an invalid configuration")
		}
		call = append(call, i)
	}
	h.hints = append(h.hints, call)
	h.at = append(h.at, len(h.order))
}

// Model-based strategies propose one configuration at a time, so a device pipeline with
// several pre-compilers would idle under them (and under auto, which runs bayes). Where the
// evaluator takes hints, the initial sample is hinted ahead, and each model step hints its
// guesses at the following steps' picks, compiled while its own pick is measured. The run
// is the same with or without hints, and a good share of the picks were hinted the step
// before.
func TestModelStepsHintTheirRunnersUp(t *testing.T) {
	// the least share of model steps whose pick was hinted the step before; smac refits
	// its forests after every evaluation up to 100, so its ranking moves more
	minHit := map[string]float64{"bayes": 0.4, "auto": 0.4, "smac": 0.15}
	for _, c := range []struct {
		path string
		mode simulator.Mode
	}{
		{pnpolyPath, simulator.Recorded},
		{convolutionPath, simulator.Cartesian},
	} {
		for _, name := range []string{"bayes", "auto", "smac"} {
			steps, hits, first := 0, 0, 0
			for seed := uint64(1); seed <= 4; seed++ {
				run := func(ev tuning.Evaluator, sim *simulator.Simulator) {
					s, err := tuning.New(sim.Space(), newStrategy(t, name), ev, tuning.Options{Budget: 100, Seed: seed})
					if err != nil {
						t.Fatal(err)
					}
					if _, err := s.Run(context.Background()); err != nil {
						t.Fatal(err)
					}
				}
				p := &orderedSim{Simulator: newSim(t, c.path, simulator.Options{Mode: c.mode})}
				run(p, p.Simulator)
				plain := p.order
				h := &hintedSim{orderedSim: orderedSim{Simulator: newSim(t, c.path, simulator.Options{Mode: c.mode})}}
				run(h, h.Simulator)
				hinted := h.order
				if !slices.Equal(plain, hinted) {
					t.Fatalf("%s on %s, seed %d: hints changed the run", name, c.path, seed)
				}
				// bayes draws its initial sample (10 configurations at this budget) before
				// evaluating any, and hints the next 8 of it before each
				if name != "smac" {
					for k := range 9 {
						if want := h.order[k+1 : min(k+9, 10)]; h.at[k] != k || !slices.Equal(h.hints[k], want) {
							t.Fatalf("%s: hint %d at evaluation %d is %v, the initial sample's next %v", name, k, h.at[k], h.hints[k], want)
						}
					}
				}
				// a hint comes before a step's pick is evaluated and names what the
				// following steps will probably pick; an initial design hinted before
				// the first evaluation is not a model's guess
				for k, call := range h.hints {
					at := h.at[k]
					if at == 0 || at+1 >= len(h.order) {
						continue
					}
					for _, i := range call {
						if slices.Contains(h.order[:at+1], i) {
							t.Fatalf("%s: hint %d names configuration %d, evaluated already", name, k, i)
						}
					}
					if len(call) > 8 {
						t.Fatalf("%s: hint %d has %d configurations", name, k, len(call))
					}
					next := h.order[at+1]
					steps++
					if slices.Contains(call, next) {
						hits++
					}
					if len(call) > 0 && call[0] == next {
						first++
					}
				}
			}
			share := float64(hits) / float64(steps)
			t.Logf("%s on %s (%s): %d model steps, next pick among the hints %.0f%%, first hint %.0f%%", name, c.path, c.mode, steps, 100*share, 100*float64(first)/float64(steps))
			if share < minHit[name] {
				t.Errorf("%s on %s: only %.0f%% of the picks were hinted", name, c.path, 100*share)
			}
		}
	}
}
