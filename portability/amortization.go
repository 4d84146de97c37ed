package portability

import (
	"fmt"
	"math"
	"strconv"
)

// Settings are the choices of seed 003's amortization estimate (Section 5.4).
type Settings struct {
	// Within is how close to the best a well-performing configuration is: its performance
	// is at least Within times the best's (a time at most best/Within).
	Within float64 `json:"within"`
	// Probability is p of equation 5: how likely random search is to have found a
	// well-performing configuration after its steps.
	Probability float64 `json:"probability"`
	// Performance is rp of equations 3 and 4: the performance of the n invocations,
	// tuning included, relative to n invocations of a well-performing kernel.
	Performance float64 `json:"performance"`
	// WithinPeak, when above 0, defines well-performing by the device's peak instead of
	// the best: efficiency (seed 003, eq. 2; Space.Efficiency) at least WithinPeak of the
	// peak, as seed 003's Section 6 experiment stops tuning at "75% of the peak memory
	// bandwidth". Within is then not used.
	WithinPeak float64 `json:"within_peak,omitempty"`
}

// PaperSettings are the settings of seed 003's Table 11: well-performing within 95% of the
// best, found with probability 0.9, and tuning overhead under 10% (rp = 0.9).
func PaperSettings() Settings { return Settings{Within: 0.95, Probability: 0.9, Performance: 0.9} }

// Check says which setting is out of its range: each is a fraction, Within in (0, 1],
// Probability and Performance in (0, 1).
func (s Settings) Check() error {
	switch {
	case !(s.Within > 0 && s.Within <= 1):
		return fmt.Errorf("the well-performing fraction %g is not in (0, 1]", s.Within)
	case !(s.Probability > 0 && s.Probability < 1):
		return fmt.Errorf("the probability %g is not in (0, 1): 1 needs every configuration", s.Probability)
	case !(s.Performance > 0 && s.Performance < 1):
		return fmt.Errorf("the relative performance %g is not in (0, 1): 1 is never reached while tuning", s.Performance)
	case !(s.WithinPeak >= 0 && s.WithinPeak <= 1):
		return fmt.Errorf("the well-performing fraction of the peak %g is not in (0, 1]", s.WithinPeak)
	}
	return nil
}

// RelativePerformance is seed 003's equation 3: the performance of n kernel invocations
// of which the first s are tuning steps, each taking tAvg on average, and the others a
// well-performing kernel's tWell, relative to n invocations of that kernel:
// (s·tAvg + (n−s)·tWell) / (n·tWell). As printed in the paper this is the time ratio,
// 1 or more; its inverse, n·tWell / (s·tAvg + (n−s)·tWell), is the performance that
// equation 4 solves for (the two agree where the overhead is small).
func RelativePerformance(n, s, tAvg, tWell float64) float64 {
	return n * tWell / (s*tAvg + (n-s)*tWell)
}

// Invocations is seed 003's equation 4: the kernel invocations n, the s tuning steps
// included, after which the performance including tuning is rp of a well-performing
// kernel's, when the kernels tried while tuning take avgOverWell = tAvg/tWell times as
// long: n = rp·s·(tAvg/tWell − 1)/(1 − rp). Where that is fewer than s (tuning costs so
// little that rp is reached during it), n is s: the tuning steps are invocations too.
func Invocations(rp, s, avgOverWell float64) float64 {
	n := rp * s * (avgOverWell - 1) / (1 - rp)
	return math.Max(n, s)
}

// TuningSteps is seed 003's equation 5: the steps s = log_{1−r}(1 − p) of random search
// (drawing with replacement) that find one of a share r of well-performing configurations
// with probability p. It is a real number; Steps rounds it up. r of 1 needs 0 steps (one
// to run), r of 0 infinitely many.
func TuningSteps(r, p float64) float64 {
	switch {
	case r >= 1:
		return 0
	case r <= 0:
		return math.Inf(1)
	}
	return math.Log(1-p) / math.Log(1-r)
}

// Steps is the whole number of tuning steps that TuningSteps's s asks for: s rounded up,
// at least 1. The paper rounds the same way (r = 0.01, p = 0.9: s = 229.1, "230").
func Steps(s float64) float64 {
	if math.IsInf(s, 1) {
		return s
	}
	// a quotient of logarithms that should be whole may be a hair above it
	return math.Max(1, math.Ceil(s-1e-9))
}

// Amortization is seed 003's estimate for one space (Section 5.4, Table 11): how hard
// dynamic tuning with random search is there and how many invocations pay for it.
type Amortization struct {
	Name   string `json:"name"`
	Device string `json:"device"`
	Valid  int    `json:"valid"` // configurations with a value of the objective: the space random search draws from
	// Well is how many of them perform within Settings.Within of the best, or with
	// Settings.WithinPeak, reach that fraction of the device's peak.
	Well int `json:"well"`
	// R is Well/Valid, equation 5's r.
	R float64 `json:"r"`
	// AvgOverBest is tAvg/tBest: how many times longer the average kernel takes than the
	// best. Times are the objective's values where lower is better, and the inverse of
	// them (the time of a rate) where higher is; its inverse is the paper's "average
	// kernel performance" relative to the best.
	AvgOverBest float64 `json:"avg_over_best"`
	// AvgOverWell is tAvg/tWell of equation 4, where tWell is the mean time of the
	// well-performing configurations: the one random search stops at is any of them.
	AvgOverWell float64 `json:"avg_over_well"`
	// S is equation 5's s, a real number; Steps is it rounded up (at least 1).
	S     float64 `json:"s"`
	Steps float64 `json:"steps"`
	// N is equation 4's n with Steps tuning steps, rounded up.
	N float64 `json:"n"`
}

// Amortize estimates seed 003's amortization of dynamic tuning on sp with settings set
// (PaperSettings for the paper's): the share r of well-performing configurations among
// those with a value, the tuning steps s of random search that find one with probability
// set.Probability (equation 5), and the invocations n that bring the performance, tuning
// included, to set.Performance of a well-performing kernel's (equation 4). Failed
// configurations are left out, as the paper's spaces held only those that ran.
func Amortize(sp Space, set Settings) (Amortization, error) {
	if err := set.Check(); err != nil {
		return Amortization{}, err
	}
	a := Amortization{Name: sp.Name, Device: sp.Device}
	b := sp.best()
	if b < 0 {
		return a, fmt.Errorf("%s: none of its %d configurations has a value of %s", sp.Name, len(sp.Configs), sp.Objective.Name)
	}
	if err := checkValues(&sp); err != nil {
		return a, err
	}
	best := sp.Values[b]
	byPeak := set.WithinPeak > 0
	if byPeak && len(sp.Efficiency) != len(sp.Values) {
		return a, fmt.Errorf("%s: no efficiency against the device's peak for its configurations (a run of a spec with essential_ops, on a device whose peaks are known), which well-performing within a fraction of the peak needs", sp.Name)
	}
	// the time a value stands for: itself, or for a rate its inverse
	timeOf := func(v float64) float64 {
		if sp.Objective.Maximize {
			return 1 / v
		}
		return v
	}
	var sum, sumWell float64
	mostEfficient := math.NaN()
	for k, v := range sp.Values {
		if !valid(v) {
			continue
		}
		a.Valid++
		t := timeOf(v)
		sum += t
		well := sp.Objective.Maximize && v >= set.Within*best || !sp.Objective.Maximize && set.Within*v <= best
		if byPeak {
			e := sp.Efficiency[k]
			well = e >= 100*set.WithinPeak
			if !math.IsNaN(e) && (math.IsNaN(mostEfficient) || e > mostEfficient) {
				mostEfficient = e
			}
		}
		if well {
			a.Well++
			sumWell += t
		}
	}
	if a.Well == 0 {
		// only a threshold of the peak leaves none: the best is within any fraction of itself
		return a, fmt.Errorf("%s: none of its %d configurations reaches %s of the device's peak (the most efficient reaches %.1f%%): random search would never find a well-performing one; give a lower fraction of the peak",
			sp.Name, a.Valid, strconv.FormatFloat(100*set.WithinPeak, 'g', -1, 64)+"%", mostEfficient)
	}
	tBest, tAvg, tWell := timeOf(best), sum/float64(a.Valid), sumWell/float64(a.Well)
	a.R = float64(a.Well) / float64(a.Valid)
	a.AvgOverBest = tAvg / tBest
	a.AvgOverWell = tAvg / tWell
	a.S = TuningSteps(a.R, set.Probability)
	a.Steps = Steps(a.S)
	a.N = math.Ceil(Invocations(set.Performance, a.Steps, a.AvgOverWell) - 1e-9)
	return a, nil
}
