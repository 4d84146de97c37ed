package sensitivity

import (
	"encoding/json"
	"fmt"
	"math"

	"github.com/ktune/ktune/space"
	"github.com/ktune/ktune/stats"
)

// Correlation is the significance of one parameter (seed 004, Section 3.1): how its value
// correlates with the objective over the measured configurations.
type Correlation struct {
	// Param is the parameter's name.
	Param string `json:"param"`
	// Pearson is the linear correlation of the parameter's value with the objective; NaN
	// when the parameter (or the objective) is constant over the table.
	Pearson float64 `json:"pearson"`
	// Spearman is the rank correlation, which suits ordinal parameters and monotone but
	// non-linear effects; NaN as Pearson.
	Spearman float64 `json:"spearman"`
	// N is the number of configurations the coefficients are computed from.
	N int `json:"n"`
	// Ordinal says the parameter has string values, encoded by their position in the
	// parameter's value list: its sign then depends on that order.
	Ordinal bool `json:"ordinal"`
}

type correlationJSON struct {
	Param    string      `json:"param"`
	Pearson  stats.Float `json:"pearson"`
	Spearman stats.Float `json:"spearman"`
	N        int         `json:"n"`
	Ordinal  bool        `json:"ordinal"`
}

// MarshalJSON writes the coefficients, undefined ones (NaN) as null.
func (c Correlation) MarshalJSON() ([]byte, error) {
	return json.Marshal(correlationJSON{c.Param, stats.Float(c.Pearson), stats.Float(c.Spearman), c.N, c.Ordinal})
}

// UnmarshalJSON reads what MarshalJSON writes, null as NaN.
func (c *Correlation) UnmarshalJSON(b []byte) error {
	var j correlationJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*c = Correlation{j.Param, float64(j.Pearson), float64(j.Spearman), j.N, j.Ordinal}
	return nil
}

// Significance returns, for each parameter in order, the Pearson and Spearman correlation
// of its value with the objective y over the configurations cfgs (value indices, parallel
// to y). Numeric values count as they are, booleans as 0/1, string values by their
// position in the parameter's value list. Rows whose objective is not finite are skipped.
// It panics when the table's shapes disagree with params, a programming error.
func Significance(params []space.Param, cfgs []space.Config, y []float64) []Correlation {
	if err := checkTable(params, cfgs, y); err != nil {
		panic(fmt.Sprintf("sensitivity.Significance: %v", err))
	}
	enc := encode(params)
	rows := finiteRows(y)
	ys := make([]float64, len(rows))
	for k, r := range rows {
		ys[k] = y[r]
	}
	x := make([]float64, len(rows))
	out := make([]Correlation, len(params))
	for p, par := range params {
		for k, r := range rows {
			x[k] = enc.num[p][cfgs[r][p]]
		}
		out[p] = Correlation{
			Param:    par.Name,
			Pearson:  stats.Pearson(x, ys),
			Spearman: stats.Spearman(x, ys),
			N:        len(rows),
			Ordinal:  enc.ordinal[p],
		}
		if len(rows) < 2 {
			out[p].Pearson, out[p].Spearman = math.NaN(), math.NaN()
		}
	}
	return out
}

// checkTable reports a table whose shapes do not fit its parameters.
func checkTable(params []space.Param, cfgs []space.Config, y []float64) error {
	if len(cfgs) != len(y) {
		return fmt.Errorf("%d configurations but %d objective values", len(cfgs), len(y))
	}
	for r, c := range cfgs {
		if len(c) != len(params) {
			return fmt.Errorf("configuration %d has %d values, want %d", r, len(c), len(params))
		}
		for p, v := range c {
			if v < 0 || v >= len(params[p].Values) {
				return fmt.Errorf("configuration %d: value index %d out of range for parameter %s", r, v, params[p].Name)
			}
		}
	}
	return nil
}
