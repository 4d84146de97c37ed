package report

import (
	"encoding/base64"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/plot/plotter"

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

// The caption counts the failed evaluations it leaves out only where there are some, in
// the singular for one (QA: "0 failed evaluations not drawn" under a run without failures).
func TestConvergenceCaptionCountsFailuresLeftOut(t *testing.T) {
	iv := space.IntValue
	for _, c := range []struct {
		failed int
		want   string
	}{{0, ""}, {1, "1 failed evaluation not drawn"}, {2, "2 failed evaluations not drawn"}} {
		rec := &result.Recording{Objective: "time", Params: []space.Param{{Name: "x", Values: []space.Value{iv(0)}}}}
		for i := range 5 {
			e := result.Evaluation{Config: []space.Value{iv(0)}, Status: result.OK, Objective: float64(5 - i)}
			if i < c.failed {
				e.Status, e.Objective = result.CompileError, math.NaN()
			}
			rec.Evaluations = append(rec.Evaluations, e)
		}
		sec, err := convergenceSection(rec, nil)
		if err != nil {
			t.Fatal(err)
		}
		title := sec.Figures[0].Title
		if c.want == "" && strings.Contains(title, "not drawn") || c.want != "" && !strings.Contains(title, c.want) {
			t.Errorf("%d failed: caption %q, want %q", c.failed, title, c.want)
		}
	}
}

// A configuration found wrong later in the run (a wrong_answer evaluation after its
// success, as a check after dynamic tuning stores one) is no best so far: its success is
// not drawn, the best so far steps only to the others, and the caption counts it.
func TestConvergenceLeavesOutAConfigurationFoundWrong(t *testing.T) {
	iv := space.IntValue
	e := func(x int64, status result.Status, ms float64) result.Evaluation {
		return result.Evaluation{Config: []space.Value{iv(x)}, Status: status, Objective: ms}
	}
	rec := &result.Recording{Objective: "time", Params: []space.Param{{Name: "x", Values: []space.Value{iv(0), iv(1), iv(2)}}},
		Evaluations: []result.Evaluation{e(0, result.OK, 5), e(1, result.OK, 1), e(2, result.OK, 3), e(1, result.WrongAnswer, math.NaN())}}
	c := convergenceOf(rec)
	want := plotter.XYs{{X: 1, Y: 5}, {X: 3, Y: 5}, {X: 3, Y: 3}} // x=1's 1 ms at evaluation 2 is no step
	if !slices.Equal(c.best, want) || len(c.all) != 2 || c.failed != 1 || c.foundWrong != 1 {
		t.Errorf("best so far %v (want %v), %d drawn (want 2), %d failed, %d found wrong (want 1 and 1)", c.best, want, len(c.all), c.failed, c.foundWrong)
	}
	sec, err := convergenceSection(rec, nil)
	if err != nil {
		t.Fatal(err)
	}
	if title := sec.Figures[0].Title; !strings.Contains(title, "; 1 failed evaluation not drawn; 1 successful evaluation of configurations found wrong in the run (a wrong_answer evaluation) not drawn") {
		t.Errorf("caption %q", title)
	}
}
