package landscape

import (
	"context"
	"math"
	"path/filepath"
	"sync"
	"testing"

	"github.com/ktune/ktune/format"
	_ "github.com/ktune/ktune/format/all"
	"github.com/ktune/ktune/result"
	"github.com/ktune/ktune/simulator"
	"github.com/ktune/ktune/space"
)

// recorded loads the landscape of a testdata recording in a simulator mode, once.
var recorded = sync.OnceValues(func() (map[string]*Landscape, error) {
	out := map[string]*Landscape{}
	for name, path := range map[string]string{
		"pnpoly":      filepath.Join("..", "testdata", "benchmark_hub", "kerneltuner_pnpoly", "RTX_2080_Ti.json.gz"),
		"convolution": filepath.Join("..", "testdata", "benchmark_hub", "convolution_milo", "A100.json.gz"),
	} {
		rec, err := format.Open(path)
		if err != nil {
			return nil, err
		}
		for _, mode := range []simulator.Mode{simulator.Recorded, simulator.Cartesian} {
			sim, err := simulator.New(rec, simulator.Options{Mode: mode})
			if err != nil {
				return nil, err
			}
			out[name+" "+mode.String()] = FromSimulator(sim)
		}
	}
	return out, nil
})

func recordedLandscape(t *testing.T, name string) *Landscape {
	t.Helper()
	ls, err := recorded()
	if err != nil {
		t.Fatal(err)
	}
	return ls[name]
}

// bruteClasses classifies by comparing every pair of configurations: a pair is a
// neighbour in parameter d when it differs in d alone (by one step for adjacency).
func bruteClasses(l *Landscape, nb space.Neighbourhood) []Class {
	n := l.Space.Len()
	cfg := make([]space.Config, n)
	for i := range cfg {
		cfg[i] = l.Space.At(i, nil)
	}
	fit := func(i int) float64 {
		v := l.Objective[i]
		if math.IsNaN(v) {
			return math.Inf(1)
		}
		if l.Maximize {
			return -v
		}
		return v
	}
	P := len(l.Space.Params())
	out := make([]Class, n)
	for x := range n {
		total, ge := make([]int, P), make([]int, P)
		failedNeighbour := false
		for y := range n {
			d, diffs := -1, 0
			for p := range P {
				if cfg[x][p] != cfg[y][p] {
					d, diffs = p, diffs+1
				}
			}
			if diffs != 1 || (nb == space.Adjacent && (cfg[x][d]-cfg[y][d])*(cfg[x][d]-cfg[y][d]) != 1) {
				continue
			}
			total[d]++
			if fit(y) >= fit(x) {
				ge[d]++
			}
			if math.IsNaN(l.Objective[y]) {
				failedNeighbour = true
			}
		}
		if math.IsNaN(l.Objective[x]) && failedNeighbour {
			out[x] = Regular
			continue
		}
		mins, maxs, mixed := 0, 0, false
		for d := range P {
			switch {
			case total[d] == 0:
			case ge[d] == total[d]:
				mins++
			case ge[d] == 0:
				maxs++
			default:
				mixed = true
			}
		}
		switch {
		case mixed:
			out[x] = Regular
		case maxs == 0:
			out[x] = Minimum
		case mins == 0:
			out[x] = Maximum
		default:
			out[x] = Saddle
		}
	}
	return out
}

func TestRecordedSpacesEndToEnd(t *testing.T) {
	for _, tc := range []struct {
		name           string
		points, failed int
		brute          bool // check the classes against the pairwise brute force
	}{
		{"pnpoly recorded", 4092, 358, true},
		{"pnpoly cartesian", 4092, 358, false}, // every configuration is recorded: the same space
		{"convolution recorded", 4362, 161, true},
		{"convolution cartesian", 10240, 6039, false},
	} {
		for _, nb := range []space.Neighbourhood{space.Hamming, space.Adjacent} {
			t.Run(tc.name+" "+nb.String(), func(t *testing.T) {
				l := recordedLandscape(t, tc.name)
				a, err := Analyze(context.Background(), l, Options{Neighbourhood: nb})
				if err != nil {
					t.Fatal(err)
				}
				t.Logf("%d points, %d failed, %d minima, %d maxima, %d saddles, %d regular, %d edges, %d iterations, C_0 %.3f C_0.15 %.3f",
					a.Points, a.Failed, a.Minima, a.Maxima, a.Saddles, a.Regular, a.Edges, a.PageRankIterations,
					a.ProportionAt(0), a.ProportionAt(0.15))
				if a.Points != tc.points || a.Failed != tc.failed || a.Minima+a.Maxima+a.Saddles+a.Regular != a.Points {
					t.Errorf("counts %+v", a)
				}
				opt, at := l.optimum()
				if a.Optimum != opt || a.Classes[at] != Minimum {
					t.Errorf("optimum %v at %d is %v", a.Optimum, at, a.Classes[at])
				}
				if len(a.MinimaFractions) == 0 || a.MinimaFractions[0] != 1 {
					t.Errorf("fractions start %v, want 1 (the optimum)", a.MinimaFractions[:1])
				}
				for i := 1; i < len(a.MinimaFractions); i++ {
					if f := a.MinimaFractions[i]; f > a.MinimaFractions[i-1] || f <= 0 {
						t.Fatalf("fraction %d: %v after %v", i, f, a.MinimaFractions[i-1])
					}
				}
				for i := 1; i < len(a.Proportions); i++ {
					if a.Proportions[i].C < a.Proportions[i-1].C {
						t.Errorf("C_p decreases: %v", a.Proportions)
					}
				}
				if c := a.ProportionAt(0.15); c > 1 || a.ProportionAt(0) <= 0 {
					t.Errorf("C_0 %v, C_0.15 %v", a.ProportionAt(0), c)
				}
				sum := 0.0
				for _, r := range a.Centrality {
					sum += r
				}
				if math.Abs(sum-1) > 1e-9 {
					t.Errorf("centrality sums to %v", sum)
				}
				// The flow graph leaves the global optimum only towards equal neighbours.
				g, err := FlowGraph(context.Background(), l, nb)
				if err != nil {
					t.Fatal(err)
				}
				if g.Edges() != a.Edges {
					t.Errorf("flow graph: %d edges, analysis %d", g.Edges(), a.Edges)
				}
				for _, v := range g.Successors(at) {
					if l.Objective[v] != opt {
						t.Errorf("optimum flows to %d with objective %v", v, l.Objective[v])
					}
				}
				if tc.brute && !testing.Short() {
					if want := bruteClasses(l, nb); !equalClasses(a.Classes, want) {
						t.Error("classes differ from the pairwise brute force")
					}
				}
			})
		}
	}
}

func equalClasses(a, b []Class) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// A configuration found wrong in a real recording (pnpoly's fastest, given a wrong_answer
// evaluation before its success, which the simulator keeps, or after it) is a failed
// point of the landscape: the optimum, and the fractions of optimum of the minima, are
// the next configuration's.
func TestAConfigurationFoundWrongIsAFailedPoint(t *testing.T) {
	for _, before := range []bool{true, false} {
		rec, err := format.Open(filepath.Join("..", "testdata", "benchmark_hub", "kerneltuner_pnpoly", "RTX_2080_Ti.json.gz"))
		if err != nil {
			t.Fatal(err)
		}
		// the fastest configuration and the runner-up's time, read off the recording
		best, next := -1, math.Inf(1)
		for i := range rec.Evaluations {
			if e := &rec.Evaluations[i]; !e.Failed() && (best < 0 || e.Objective < rec.Evaluations[best].Objective) {
				best = i
			}
		}
		for i := range rec.Evaluations {
			if e := &rec.Evaluations[i]; !e.Failed() && i != best && e.Objective < next {
				next = e.Objective
			}
		}
		total, succeeded := rec.Counts() // one evaluation per configuration
		fastest := rec.Evaluations[best].Objective
		found := result.Evaluation{Config: rec.Evaluations[best].Config, Status: result.WrongAnswer, Objective: math.NaN()}
		if before {
			rec.Evaluations = append([]result.Evaluation{found}, rec.Evaluations...)
		} else {
			rec.Evaluations = append(rec.Evaluations, found)
		}
		sim, err := simulator.New(rec, simulator.Options{Mode: simulator.Recorded})
		if err != nil {
			t.Fatal(err)
		}
		l := FromSimulator(sim)
		failed := total - succeeded + 1
		for _, v := range l.Objective {
			if v == fastest {
				t.Errorf("wrong answer first %v: the configuration found wrong keeps its %g ms", before, v)
			}
		}
		a, err := Analyze(context.Background(), l, Options{Neighbourhood: space.Adjacent})
		if err != nil {
			t.Fatal(err)
		}
		if a.Optimum != next || a.Failed != failed || a.MinimaFractions[0] > 1 {
			t.Errorf("wrong answer first %v: optimum %g (fastest %g, runner-up %g), %d failed (want %d), best minimum's fraction %g",
				before, a.Optimum, fastest, next, a.Failed, failed, a.MinimaFractions[0])
		}
	}
}
