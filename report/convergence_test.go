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
