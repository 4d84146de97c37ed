package sensitivity

import (
	"testing"

	"github.com/ktune/ktune/format"
	_ "github.com/ktune/ktune/format/all"
	"github.com/ktune/ktune/simulator"
	"github.com/ktune/ktune/space"
)

// recordedTable reads a recorded space and returns its successful configurations as a
// table, and the simulator (recorded mode) it came from.
func recordedTable(tb testing.TB, path string) ([]space.Param, []space.Config, []float64, *simulator.Simulator) {
	tb.Helper()
	rec, err := format.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	sim, err := simulator.New(rec, simulator.Options{Mode: simulator.Recorded})
	if err != nil {
		tb.Fatal(err)
	}
	sp := sim.Space()
	var cfgs []space.Config
	var y []float64
	for i := range sp.Len() {
		c := sp.At(i, nil)
		if v, ok := sim.Objective(c); ok {
			cfgs = append(cfgs, c)
			y = append(y, v)
		}
	}
	return sp.Params(), cfgs, y, sim
}
