package report

import (
	"strings"
	"testing"

	"github.com/ktune/ktune/result"
	"github.com/ktune/ktune/store"
)

// A run whose builds printed warnings lists each distinct warning once, with how many
// configurations' builds gave it and the first that did; a run without any has no such
// section.
func TestRunPageListsTheCompilersWarningsOnce(t *testing.T) {
	const unused = "vector_add.c:3:9: warning: unused variable 'x' [-Wunused-variable]\n    3 |     int x;\n      |         ^"
	warned := func(e result.Evaluation, w string) result.Evaluation { e.Warnings = w; return e }
	evals := []result.Evaluation{gbps(1, 1, 2), warned(gbps(2, 1, 6), unused), warned(failed(4, 2, "the object does not load"), unused)}
	page := tunedRun(t, 3, evals, store.StatusFinished)
	for _, want := range []string{
		"<h2>Compiler warnings</h2>",
		"The builds of 2 configurations printed warnings",
		`<td>2 of 3</td><td class="wrap">unroll_factor=2, threads=1</td>`,
		"vector_add.c:3:9: warning: unused variable 'x' [-Wunused-variable]\n    3 |     int x;",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if strings.Count(page, "unused variable") != 1 {
		t.Errorf("the warning is not shown once")
	}
	if page := tunedRun(t, 3, evals[:1], store.StatusFinished); strings.Contains(page, "Compiler warnings") {
		t.Error("a run without warnings has a section of them")
	}
}
