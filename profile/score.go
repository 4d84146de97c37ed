package profile

import "math"

// Score is eq. 16: how far a candidate configuration moves the counters the way d asks,
// compared with the profiled configuration, both as the model predicts them (prof and
// cand, in the order of Reacted). Each counter with a required change adds the change
// times the candidate's relative difference from the profiled configuration,
// (cand-prof)/(cand+prof); counters predicted 0 for either are left out. The paper prints
// the difference as prof-cand, which would score a candidate that lowers a counter the
// expert system wants lowered (a negative change) below 0, against its own text ("higher
// scores to configurations which are predicted to change PCops in the required way"):
// the sign here follows the text.
func Score(d *Delta, prof, cand []float64) float64 {
	s := 0.0
	for i, c := range Reacted {
		dc := d[c]
		if dc == 0 {
			continue
		}
		a, b := prof[i], cand[i]
		if a == 0 || b == 0 {
			continue
		}
		s += dc * (b - a) / (a + b)
	}
	return s
}

// Cutoff is eq. 17's γ: a score at or below it gets the least weight.
const Cutoff = -0.25

// MinWeight is the least weight a configuration gets (eq. 17).
const MinWeight = 0.0001

// Weights is eq. 17: it turns scores into the weights of the biased random draw, in
// place, for the entries where use is true (the others become 0: configurations already
// evaluated). Positive scores map to (1, 256] by (1+s/smax)^8, scores in (γ, 0] to
// [MinWeight, 1] by (1-s/smin)^8, lower ones to MinWeight.
func Weights(scores []float64, use []bool) {
	smax, smin := 0.0, 0.0
	for i, s := range scores {
		if use[i] {
			smax, smin = max(smax, s), min(smin, s)
		}
	}
	for i, s := range scores {
		switch {
		case !use[i]:
			scores[i] = 0
		case s > 0:
			scores[i] = math.Pow(1+s/smax, 8)
		case s > Cutoff:
			w := 1.0
			if smin < 0 {
				w = math.Pow(1-s/smin, 8)
			}
			scores[i] = max(MinWeight, w)
		default:
			scores[i] = MinWeight
		}
	}
}
