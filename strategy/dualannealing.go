package strategy

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
)

// Dual annealing (seed 000 section III-C2; Xiang et al. 1997): generalized simulated
// annealing (Tsallis and Stariolo 1996) on the unit cube, whose best point is refined by a
// local minimiser whenever the annealing improves it.

// daMethodTable is seed 000's Table III dual annealing row per budget column (25 ...
// 1600): COBYLA, Powell, then blanks that repeat Powell.
var daMethodTable = [7]string{"cobyla", "powell", "powell", "powell", "powell", "powell", "powell"}

// Defaults of the generalized simulated annealing, those of Xiang et al. as SciPy's
// dual_annealing uses them.
const (
	daVisit        = 2.62
	daAccept       = -5.0
	daInitialTemp  = 5230.0
	daRestartRatio = 2e-5
)

// daIdleIterations is how many annealing iterations in a row (a chain plus any local
// search) may bring no new configuration before the annealing restarts from a random
// point.
const daIdleIterations = 3

var dualAnnealingFactory = Factory{
	Doc: "Dual annealing (seed 000 III-C2; Xiang et al.): generalized simulated annealing " +
		"on the unit cube mapped to the discrete space as seed 000 does (one coordinate per " +
		"parameter with more than one value, value index = floor(x * number of values), a " +
		"point the restrictions forbid stands for the nearest valid configuration), with " +
		"local minimisation of the best point. Iteration t runs at temperature T = " +
		"initial_temp (2^(visit-1) - 1) / ((t+2)^(visit-1) - 1) a chain of 2n candidates (n " +
		"coordinates): the first n move every coordinate, the last n one coordinate each, by " +
		"steps drawn from Tsallis' visiting distribution with parameter visit (a Student t " +
		"with (3-visit)/(visit-1) degrees of freedom scaled by T^(1/(3-visit)) / " +
		"sqrt(3-visit)), wrapped around the cube. A candidate replaces the current point when " +
		"no worse, else with probability (1 - (1-accept) L / (T/(t+1)))^(1/(1-accept)), L " +
		"being its loss relative to the current fitness. When a chain improves the best " +
		"point, the local minimiser starts from it. The annealing restarts from a random " +
		"point when T falls below restart_temp_ratio times initial_temp, or after 3 " +
		"iterations in a row that found no new configuration (configurations evaluated " +
		"before cost nothing), so the whole budget is used; a run that has evaluated every " +
		"configuration ends (under stochastic fitness too: a repeat is never measured " +
		"again). With the default temperatures " +
		"the visits stay spread over the whole cube for the first few hundred iterations, " +
		"so within seed 000's budgets this is uniform exploration plus local minimisation " +
		"of every new best. The minimiser default follows seed 000's Table III.",
	Options: []Option{
		minimiserOption(tableIIIDoc(daMethodTable) + " (seed 000 Table III)"),
		{Name: "visit", Kind: FloatKind(), Default: fmtFloat(daVisit) + " (Xiang et al., SciPy)",
			Doc: "visiting parameter q_v in (1, 3): higher gives a heavier-tailed visiting distribution, longer jumps"},
		{Name: "accept", Kind: FloatKind(), Default: fmtFloat(daAccept) + " (Xiang et al., SciPy)",
			Doc: "acceptance parameter q_a in [-10000, 1): lower accepts fewer worse candidates"},
		{Name: "initial_temp", Kind: FloatKind(), Default: fmtFloat(daInitialTemp) + " (Xiang et al., SciPy)",
			Doc: "initial temperature, above 0: at high temperature candidates are spread over the whole cube"},
		{Name: "restart_temp_ratio", Kind: FloatKind(), Default: fmtFloat(daRestartRatio) + " (Xiang et al., SciPy)",
			Doc: "restart the annealing when the temperature falls below this fraction of initial_temp, in (0, 1)"},
	},
	New: newDualAnnealing,
}

type dualAnnealing struct {
	method       optional[string]
	qv, qa       float64
	t0, restartR float64
}

func newDualAnnealing(opts Options) (Strategy, error) {
	a := &dualAnnealing{}
	var err error
	if a.method, err = minimiserFrom(opts); err != nil {
		return nil, err
	}
	if a.qv, err = opts.Float("visit", daVisit); err != nil {
		return nil, err
	}
	if a.qa, err = opts.Float("accept", daAccept); err != nil {
		return nil, err
	}
	if a.t0, err = opts.Float("initial_temp", daInitialTemp); err != nil {
		return nil, err
	}
	if a.restartR, err = opts.Float("restart_temp_ratio", daRestartRatio); err != nil {
		return nil, err
	}
	switch {
	case !(a.qv > 1 && a.qv < 3):
		return nil, fmt.Errorf("option visit: %v is not in (1, 3)", a.qv)
	case !(a.qa >= -1e4 && a.qa < 1):
		return nil, fmt.Errorf("option accept: %v is not in [-10000, 1)", a.qa)
	case !(a.t0 > 0) || math.IsInf(a.t0, 1):
		return nil, fmt.Errorf("option initial_temp: %v is not a finite number above 0", a.t0)
	case !(a.restartR > 0 && a.restartR < 1):
		return nil, fmt.Errorf("option restart_temp_ratio: %v is not in (0, 1)", a.restartR)
	}
	return a, nil
}

func (*dualAnnealing) Name() string { return "dualannealing" }

func (a *dualAnnealing) Run(ctx context.Context, p Problem) error {
	method := a.method.or(tableIII(p.Budget(), daMethodTable))
	s := newCubeSearch(ctx, p)
	d := s.dim()
	v := newVisitor(a.qv)
	num := math.Pow(2, a.qv-1) - 1
	cand := make([]float64, d)
	for !s.exhausted() {
		x := s.randomPoint()
		e, _, err := s.value(x)
		if err != nil {
			return end(err)
		}
		best, ebest := append([]float64(nil), x...), e
		for t, idle := 0, 0; idle < daIdleIterations; t++ {
			temp := a.t0 * num / (math.Pow(float64(t)+2, a.qv-1) - 1)
			if temp < a.t0*a.restartR {
				break
			}
			tacc := temp / float64(t+1)
			before := s.fresh
			improved := false
			for j := range 2 * d {
				copy(cand, x)
				if j < d {
					for k := range cand {
						cand[k] = v.move(s.r, cand[k], temp)
					}
				} else {
					cand[j-d] = v.move(s.r, cand[j-d], temp)
				}
				ec, _, err := s.value(cand)
				if err != nil {
					return end(err)
				}
				if gsaAccept(s.r, e, ec, tacc, a.qa) {
					copy(x, cand)
					e = ec
				}
				if ec < ebest {
					copy(best, cand)
					ebest, improved = ec, true
				}
			}
			if improved {
				res, err := s.minimise(method, best)
				if err != nil {
					return end(err)
				}
				if res.F < ebest {
					copy(best, res.X)
					ebest = res.F
					copy(x, best)
					e = ebest
				}
			}
			if s.fresh > before {
				idle = 0
			} else {
				idle++
			}
		}
	}
	return nil
}

// gsaAccept decides whether the annealing moves from fitness cur to a candidate of fitness
// next at acceptance temperature tacc: always when no worse (a failure over a failure
// too), never to a failure from a success, otherwise with the generalized Metropolis
// probability of acceptance parameter qa on the loss relative to |cur|.
func gsaAccept(r *rand.Rand, cur, next, tacc, qa float64) bool {
	switch {
	case next <= cur:
		return true
	case math.IsInf(next, 1):
		return false
	}
	loss := next - cur
	if cur != 0 {
		loss /= math.Abs(cur)
	}
	q := 1 - (1-qa)*loss/tacc
	if q <= 0 {
		return false
	}
	return r.Float64() < math.Exp(math.Log(q)/(1-qa))
}

// visitor draws steps from Tsallis' one-dimensional visiting distribution with parameter
// qv, g(dx) ∝ [1 + (qv-1) dx² / T^(2/(3-qv))]^(-1/(qv-1)): a Student t with
// nu = (3-qv)/(qv-1) degrees of freedom scaled by T^(1/(3-qv)) / sqrt(3-qv).
type visitor struct {
	qv, nu float64
	// temp and scale cache the step scale of the last temperature: a chain moves many
	// coordinates at one temperature.
	temp, scale float64
}

func newVisitor(qv float64) visitor { return visitor{qv: qv, nu: (3 - qv) / (qv - 1)} }

// move returns coordinate x moved by a visiting step at temperature temp, wrapped into
// [0, 1). A step so long that wrapping it would only return rounding noise (the heavy
// tail, or a high temperature) lands uniformly in [0, 1), which is what wrapping a very
// long step amounts to.
func (v *visitor) move(r *rand.Rand, x, temp float64) float64 {
	if temp != v.temp || v.scale == 0 {
		v.temp, v.scale = temp, math.Pow(temp, 1/(3-v.qv))/math.Sqrt(3-v.qv)
	}
	step := v.scale * studentT(r, v.nu)
	if !(math.Abs(step) < 1e6) {
		return r.Float64()
	}
	y := x + step
	return y - math.Floor(y)
}

// studentT draws from Student's t distribution with nu degrees of freedom: a standard
// normal over the square root of a chi-squared(nu) / nu.
func studentT(r *rand.Rand, nu float64) float64 {
	chi2 := 2 * gammaRand(r, nu/2)
	return r.NormFloat64() / math.Sqrt(chi2/nu)
}

// gammaRand draws from the Gamma(shape, 1) distribution by Marsaglia and Tsang's method;
// a shape below 1 is boosted to shape+1 and scaled by U^(1/shape).
func gammaRand(r *rand.Rand, shape float64) float64 {
	if shape < 1 {
		u := 1 - r.Float64() // in (0, 1]
		return gammaRand(r, shape+1) * math.Exp(math.Log(u)/shape)
	}
	d := shape - 1.0/3
	c := 1 / math.Sqrt(9*d)
	for {
		z := r.NormFloat64()
		v := 1 + c*z
		if v <= 0 {
			continue
		}
		v = v * v * v
		u := 1 - r.Float64()
		// The squeeze accepts a subset of what the exact test accepts, without logarithms.
		if z2 := z * z; u < 1-0.0331*z2*z2 || math.Log(u) < 0.5*z2+d-d*v+d*math.Log(v) {
			return d * v
		}
	}
}
