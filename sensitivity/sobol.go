package sensitivity

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/ktune/ktune/space"
	"github.com/ktune/ktune/stats"
)

// Estimation methods, as Sobol.Method names them.
const (
	// Exact: the table is the full cartesian product of the values, each combination once,
	// so conditional means over it are those of the uniform product distribution.
	Exact = "exact"
	// Empirical: the same formulas over the table as an empirical distribution.
	Empirical = "empirical"
	// Saltelli: Monte Carlo estimators over a Saltelli sampling design.
	Saltelli = "saltelli"
)

// DefaultBootstrap is the number of bootstrap resamples when Options.Bootstrap is 0.
const DefaultBootstrap = 200

// Interval is an estimate with its 95% percentile-bootstrap confidence interval. Low and
// High are NaN when no bootstrap was run (none asked for, or exact indices, which have no
// sampling error) or it had nothing to resample.
type Interval struct {
	Value float64 `json:"value"`
	Low   float64 `json:"low"`
	High  float64 `json:"high"`
	// N is the number of design rows behind a Saltelli estimate (rows whose needed points
	// were all measured); 0 for the table methods, which use every configuration.
	N int `json:"n,omitempty"`
}

type intervalJSON struct {
	Value stats.Float `json:"value"`
	Low   stats.Float `json:"low"`
	High  stats.Float `json:"high"`
	N     int         `json:"n,omitempty"`
}

// MarshalJSON writes the interval, NaN bounds as null.
func (iv Interval) MarshalJSON() ([]byte, error) {
	return json.Marshal(intervalJSON{stats.Float(iv.Value), stats.Float(iv.Low), stats.Float(iv.High), iv.N})
}

// UnmarshalJSON reads what MarshalJSON writes, null as NaN.
func (iv *Interval) UnmarshalJSON(b []byte) error {
	var j intervalJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*iv = Interval{float64(j.Value), float64(j.Low), float64(j.High), j.N}
	return nil
}

// Pair is the second-order index of two parameters: I and J (I < J) are positions in
// Sobol.Params (and Sobol.Subset), not parameter indices of the space.
type Pair struct {
	I     int      `json:"i"`
	J     int      `json:"j"`
	Index Interval `json:"index"`
}

// ErrConstant is wrapped by the error of an estimate over a constant objective: with no
// variance there is nothing to apportion, and every index is undefined.
var ErrConstant = errors.New("no variance to apportion")

// Sobol holds variance-based sensitivity indices (seed 004, Section 3.2): the share of the
// objective's variance due to each parameter alone (First), to it with all its
// interactions (Total), and to the interaction of two parameters beyond their own effects
// (Second).
type Sobol struct {
	// Method is Exact, Empirical or Saltelli.
	Method string `json:"method"`
	// Note says in a sentence how to read the indices of this method.
	Note string `json:"note"`
	// Params are the names of the analysed parameters (the subset), in Subset's order.
	Params []string `json:"params"`
	// Subset are the analysed parameters' indices among all parameters.
	Subset []int `json:"subset"`
	// First and Total are parallel to Params.
	First []Interval `json:"first"`
	Total []Interval `json:"total"`
	// Second holds every pair of Params when second-order indices were asked for.
	Second []Pair `json:"second,omitempty"`
	// Samples is the number of configurations (table methods) or base rows with both base
	// points measured (Saltelli) the indices come from.
	Samples int `json:"samples"`
	// Bootstrap is the number of resamples behind the intervals; 0 when none (always for
	// Exact).
	Bootstrap int `json:"bootstrap"`
}

// Options select what a Sobol analysis computes.
type Options struct {
	// Subset lists the parameters (indices among all parameters) whose indices are
	// computed; nil means all. The model keeps every parameter as an input either way.
	Subset []int
	// SecondOrder asks for the indices of every pair of the subset.
	SecondOrder bool
	// Bootstrap is the number of resamples for the confidence intervals: 0 means
	// DefaultBootstrap, a negative number none.
	Bootstrap int
	// Seed seeds the bootstrap and, for NewDesign, the design's draw.
	Seed uint64
}

// resamples returns the bootstrap count o asks for.
// Resamples is the number of bootstrap resamples o asks for: DefaultBootstrap for 0, none
// for a negative number.
func (o Options) Resamples() int {
	switch {
	case o.Bootstrap == 0:
		return DefaultBootstrap
	case o.Bootstrap < 0:
		return 0
	}
	return o.Bootstrap
}

// subset returns the validated subset of params o asks for.
func (o Options) subset(params []space.Param) ([]int, error) {
	nparams := len(params)
	if o.Subset == nil {
		all := make([]int, nparams)
		for i := range all {
			all[i] = i
		}
		return all, nil
	}
	if len(o.Subset) == 0 {
		return nil, fmt.Errorf("empty parameter subset")
	}
	for k, p := range o.Subset {
		if p < 0 || p >= nparams {
			return nil, fmt.Errorf("subset parameter %d out of range (there are %d parameters)", p, nparams)
		}
		if slices.Contains(o.Subset[:k], p) {
			return nil, fmt.Errorf("the parameters analysed name %s twice", params[p].Name)
		}
	}
	return slices.Clone(o.Subset), nil
}

// newSobol returns an empty result for the subset, its pairs laid out when asked for.
func newSobol(method string, params []space.Param, subset []int, second bool) *Sobol {
	s := &Sobol{Method: method, Subset: subset, First: make([]Interval, len(subset)), Total: make([]Interval, len(subset))}
	for _, p := range subset {
		s.Params = append(s.Params, params[p].Name)
	}
	if second {
		for i := range subset {
			for j := i + 1; j < len(subset); j++ {
				s.Second = append(s.Second, Pair{I: i, J: j})
			}
		}
	}
	return s
}
