package strategy

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// The Gaussian process bayes keeps from step to step, grown by rows and trimmed past
// max_train, is at every step the model fitted at once to its training set with its
// hyperparameters; the training set holds every success up to max_train, then between
// three quarters of max_train and max_train of them (the best half of a trim kept); the
// hyperparameters are not selected again once the successes pass max_train.
func TestBayesModelFollowsItsTrainingSet(t *testing.T) {
	for _, maxTrain := range []int{24, 30, 37, 40, 50} {
		bayesModelFollowsItsTrainingSet(t, maxTrain)
	}
}

func bayesModelFollowsItsTrainingSet(t *testing.T, maxTrain int) {
	p := newFake(t, []int{6, 6, 5, 4}, 400, 3)
	s, err := newBayes(Options{"max_train": maxTrain})
	if err != nil {
		t.Fatal(err)
	}
	r := &bayesRun{bayes: s.(*bayes), ctx: context.Background(), p: p, sp: p.Space(),
		enc: newConfigEncoder(p.Space()), seen: map[int]struct{}{}, bestF: math.Inf(1), nbCountOf: -1}
	r.pt = make([]float64, r.enc.dim())
	d := r.enc.dim()
	rng := rand.New(rand.NewPCG(5, 6))
	trims, selectedPast := 0, 0
	for k := range 160 {
		c, ok := r.unseenSample(64)
		if !ok {
			t.Fatal("space exhausted")
		}
		before, sel := len(r.gpTrain), r.selectedAt
		if err := r.evaluate(c); err != nil {
			t.Fatal(err)
		}
		m := r.fit1()
		n := len(r.fit) // every evaluation succeeds
		if n < 2 {
			continue
		}
		if m.gp == nil {
			t.Fatalf("evaluation %d: no model", n)
		}
		switch {
		case n <= maxTrain && len(r.gpTrain) != n:
			t.Fatalf("evaluation %d: %d training points, want all", n, len(r.gpTrain))
		case n > maxTrain && (len(r.gpTrain) < maxTrain-maxTrain/4 || len(r.gpTrain) > maxTrain):
			t.Fatalf("evaluation %d: %d training points, want %d to %d", n, len(r.gpTrain), maxTrain-maxTrain/4, maxTrain)
		}
		if len(r.gpTrain) < before {
			trims++
			// the best half of the kept points are the best of all evaluations so far
			half := (maxTrain - maxTrain/4) / 2
			sorted := slices.Sorted(slices.Values(r.fit))
			best := 0
			for _, i := range r.gpTrain {
				if r.fit[i] <= sorted[half-1] {
					best++
				}
			}
			if best != half {
				t.Errorf("evaluation %d: the trimmed set holds %d of the %d best", n, best, half)
			}
		}
		if n > maxTrain+1 && r.selectedAt != sel {
			selectedPast++
		}
		// the same model fitted at once
		x := make([]float64, 0, len(r.gpTrain)*d)
		for _, i := range r.gpTrain {
			x = append(x, r.x[i*d:(i+1)*d]...)
		}
		whole := newGPData(x, d, r.gpY).model(r.hyper)
		w1, w2 := make([]float64, whole.n), make([]float64, whole.n)
		for range 5 {
			pt := make([]float64, d)
			for j := range pt {
				pt[j] = rng.Float64()
			}
			m1, s1 := m.gp.predict(pt, w1)
			m2, s2 := whole.predict(pt, w2)
			if math.Abs(m1-m2) > 1e-6*(1+math.Abs(m2)) || math.Abs(s1-s2) > 1e-6*(1+s2) {
				t.Fatalf("max_train %d, evaluation %d (step %d): kept model %.9g ± %.9g, fitted at once %.9g ± %.9g", maxTrain, n, k, m1, s1, m2, s2)
			}
		}
	}
	if trims < 3 {
		t.Errorf("%d trims in 160 evaluations with max_train %d, want at least 3", trims, maxTrain)
	}
	if selectedPast > 0 {
		t.Errorf("max_train %d: hyperparameters selected again %d times past it", maxTrain, selectedPast)
	}
}
