package sensitivity

import (
	"math"

	"github.com/ktune/ktune/space"
)

// encoding maps each parameter's value indices to numbers: numeric values as they are
// (booleans 0/1), and, for a parameter with any string value, the value's position in its
// list (an ordinal encoding, flagged so results can say so).
type encoding struct {
	num     [][]float64 // num[p][v]: the number for value index v of parameter p
	ordinal []bool
}

func encode(params []space.Param) encoding {
	e := encoding{num: make([][]float64, len(params)), ordinal: make([]bool, len(params))}
	for p, par := range params {
		for _, v := range par.Values {
			if !v.IsNumeric() {
				e.ordinal[p] = true
			}
		}
		e.num[p] = make([]float64, len(par.Values))
		for v, val := range par.Values {
			if e.ordinal[p] {
				e.num[p][v] = float64(v)
			} else {
				e.num[p][v] = val.Float()
			}
		}
	}
	return e
}

// finiteRows returns the indices of the rows whose objective is a finite number: the only
// ones any analysis can use.
func finiteRows(y []float64) []int {
	rows := make([]int, 0, len(y))
	for r, v := range y {
		if !math.IsNaN(v) && !math.IsInf(v, 0) {
			rows = append(rows, r)
		}
	}
	return rows
}
