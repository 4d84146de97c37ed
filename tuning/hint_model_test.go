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
}

// Bayesian optimisation proposes one configuration at a time, so a device pipeline with
// several pre-compilers would idle under it (and under auto, which runs it). Where the
// evaluator takes hints, each model step hints the configurations it ranked next after its
// pick: the likeliest picks of the following steps, compiled while the pick is measured.
// The run is the same with or without hints, and a good share of the picks were hinted
// the step before.
func TestModelStepsHintTheirRunnersUp(t *testing.T) {
	for _, c := range []struct {
		path   string
		mode   simulator.Mode
		minHit float64 // least share of model steps whose pick was hinted the step before
	}{
		{pnpolyPath, simulator.Recorded, 0.4},
		{convolutionPath, simulator.Cartesian, 0.4},
	} {
		for _, name := range []string{"bayes", "auto"} {
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
				// hint k comes before the evaluation that follows it; the model's steps
				// start after the initial sample, which hints nothing
				from := len(h.order) - len(h.hints)
				for k := 0; k+1 < len(h.hints); k++ {
					evaluated := h.order[:from+k+1]
					for _, i := range h.hints[k] {
						if slices.Contains(evaluated, i) {
							t.Fatalf("%s: hint %d names configuration %d, evaluated already", name, k, i)
						}
					}
					if len(h.hints[k]) > 8 {
						t.Fatalf("%s: hint %d has %d configurations", name, k, len(h.hints[k]))
					}
					next := h.order[from+k+1]
					steps++
					if slices.Contains(h.hints[k], next) {
						hits++
					}
					if len(h.hints[k]) > 0 && h.hints[k][0] == next {
						first++
					}
				}
			}
			share := float64(hits) / float64(steps)
			t.Logf("%s on %s (%s): %d model steps, next pick among the hints %.0f%%, first hint %.0f%%", name, c.path, c.mode, steps, 100*share, 100*float64(first)/float64(steps))
			if share < c.minHit {
				t.Errorf("%s on %s: only %.0f%% of the picks were hinted", name, c.path, 100*share)
			}
		}
	}
}
