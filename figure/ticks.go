package figure

import (
	"math"
	"strconv"

	"gonum.org/v1/plot"
)

// Ticks marks an axis at round steps (1, 2 or 5 times a power of ten), about five to eight
// of them, with a minor tick halfway between each. Every labelled tick is a whole multiple
// of the step, so 0 is one whenever the axis spans it; gonum's default ticker may offset
// them instead (-0.015, 0.005, 0.025). Labels have the decimals the step needs and no
// more, so they line up without trailing noise.
type Ticks struct {
	// Integer keeps steps of at least 1, for counts such as evaluations.
	Integer bool
}

// Ticks implements plot.Ticker.
func (t Ticks) Ticks(lo, hi float64) []plot.Tick {
	if !(hi > lo) {
		return []plot.Tick{{Value: lo, Label: strconv.FormatFloat(lo, 'g', 6, 64)}}
	}
	raw := (hi - lo) / 8
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step := 10 * mag
	for _, m := range []float64{1, 2, 5} {
		if m*mag >= raw {
			step = m * mag
			break
		}
	}
	if t.Integer {
		step = max(step, 1)
	}
	var ticks []plot.Tick
	for k := math.Ceil(lo / step); k*step <= hi+step*1e-9; k++ {
		v := k * step
		if math.Abs(v) < step*1e-9 {
			v = 0 // not -0
		}
		ticks = append(ticks, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'f', decimalsOf(step), 64)})
		if m := v + step/2; m <= hi && (!t.Integer || step >= 2) {
			ticks = append(ticks, plot.Tick{Value: m})
		}
	}
	return ticks
}

// decimalsOf is how many decimals a step needs to be written exactly.
func decimalsOf(step float64) int {
	return max(0, -int(math.Floor(math.Log10(step)+1e-9)))
}
