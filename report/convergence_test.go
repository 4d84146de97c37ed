package report

import (
	"encoding/base64"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/ktune/ktune/result"
	"github.com/ktune/ktune/space"
)

func TestConvergenceOfALongRunStaysSmallAndDrawsEveryImprovement(t *testing.T) {
	const n = 300000
	r := rand.New(rand.NewPCG(3, 4))
	rec := &result.Recording{Source: "long", Format: "ktune", Objective: "time",
		Params: []space.Param{{Name: "x", Values: []space.Value{space.IntValue(0)}}}}
	improvements := 0
	best := math.Inf(1)
	for i := range n {
		e := result.Evaluation{Config: []space.Value{space.IntValue(0)}, Status: result.OK, Objective: 1 + r.Float64()}
		if i%10 == 3 {
			e.Status, e.Objective = result.RuntimeError, math.NaN()
		}
		if !e.Failed() && e.Objective < best {
			best = e.Objective
			improvements++
		}
		rec.Evaluations = append(rec.Evaluations, e)
	}
	sec, err := convergenceSection(rec, nil)
	if err != nil || sec == nil {
		t.Fatalf("section %v, %v", sec, err)
	}
	src := string(sec.Figures[0].Src)
	svg, err := base64.StdEncoding.DecodeString(src[strings.Index(src, ",")+1:])
	if err != nil {
		t.Fatal(err)
	}
	// every drawn point is an SVG path; 300,000 of them made a 48 MB figure
	if len(svg) > 1<<20 {
		t.Errorf("the convergence SVG of %d evaluations is %d bytes, want under 1 MiB", n, len(svg))
	}
	if !strings.Contains(sec.Figures[0].Title, "every improvement") || !strings.Contains(sec.Figures[0].Title, "of 270000") {
		t.Errorf("caption %q: want it to say the evaluations were thinned, of how many", sec.Figures[0].Title)
	}
	t.Logf("%d evaluations, %d improvements: SVG %d bytes", n, improvements, len(svg))
}
