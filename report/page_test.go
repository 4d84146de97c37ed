package report

import (
	"bytes"
	"cmp"
	"context"
	"encoding/base64"
	"errors"
	stdhtml "html"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ktune/ktune/analysis"
	"github.com/ktune/ktune/benchmark"
	"github.com/ktune/ktune/format"
	_ "github.com/ktune/ktune/format/all"
	"github.com/ktune/ktune/result"
	"github.com/ktune/ktune/sensitivity"
	"github.com/ktune/ktune/space"
)

func TestPageEscapesTextAndEmbedsFigures(t *testing.T) {
	dir := t.TempDir()
	svg := filepath.Join(dir, "f.svg")
	content := `<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="5" height="5"/></svg>`
	if err := os.WriteFile(svg, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	fig, err := FigureFile(svg, "a <figure>")
	if err != nil {
		t.Fatal(err)
	}
	p := &Page{Title: `kernel <script>alert(1)</script>`, Sections: []Section{{
		Title: "S", Text: []string{"x & y"},
		Tables:  []Table{{Caption: "T", Head: []string{"a", "b"}, Rows: [][]string{{"<1>", "2"}}}},
		Figures: []Figure{fig},
	}}}
	var b bytes.Buffer
	if err := p.Write(&b); err != nil {
		t.Fatal(err)
	}
	html := stdhtml.UnescapeString(b.String()) // attribute values may carry entities (+ as &#43;)
	if raw := b.String(); strings.Contains(raw, "<script>") || !strings.Contains(raw, "kernel &lt;script&gt;") || !strings.Contains(raw, "x &amp; y") || !strings.Contains(raw, "<td>&lt;1&gt;</td>") {
		t.Errorf("text not escaped:\n%s", html)
	}
	want := `src="data:image/svg+xml;base64,` + base64.StdEncoding.EncodeToString([]byte(content)) + `"`
	if !strings.Contains(html, want) {
		t.Errorf("figure not embedded as a data URI:\n%s", html)
	}
}

func TestWriteFileReplacesOnlyWhenComplete(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.html")
	if err := (&Page{Title: "t"}).WriteFile(path); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path + ".tmp"); !os.IsNotExist(err) {
		t.Errorf("temporary file left behind: %v", err)
	}
	if data, _ := os.ReadFile(path); !strings.Contains(string(data), "<title>t</title>") {
		t.Errorf("page not written: %s", data)
	}
}

// A benchmark page shows the competition, kernel and space sections, and says when the
// benchmark was interrupted.
func TestBenchPageOfAnInterruptedBenchmark(t *testing.T) {
	var cells []benchmark.Cell
	for _, sp := range []string{"k/a", "k/b"} {
		for _, st := range []struct {
			name string
			f    []float64
		}{{"good", []float64{0.9, 0.95, 0.92, 0.97}}, {"bad", []float64{0.5, 0.55, 0.52, 0.51}}} {
			m := 0.0
			for _, v := range st.f {
				m += v / float64(len(st.f))
			}
			cells = append(cells, benchmark.Cell{Strategy: st.name, Space: sp, Budget: 25, MeanFraction: m, MeanEvaluations: 25, Fractions: st.f})
		}
	}
	p, err := BenchPage(&Bench{Interrupted: "interrupted after 4 of 8 cells", Cells: cells}, "bench.json")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(p.Subtitle, "interrupted after 4 of 8 cells") {
		t.Errorf("subtitle %q", p.Subtitle)
	}
	var titles []string
	for _, s := range p.Sections {
		titles = append(titles, s.Title)
	}
	if want := []string{"Competition", "Kernel k", "Space k/a", "Space k/b", "References"}; !slices.Equal(titles, want) {
		t.Errorf("sections %q, want %q", titles, want)
	}
	if len(p.Sections[0].Figures) != 1 || len(p.Sections[1].Figures) != 1 {
		t.Errorf("%d heat maps, %d kernel curves", len(p.Sections[0].Figures), len(p.Sections[1].Figures))
	}
	// every budget is at most 200: no columns of wins and losses over 200, all zero
	if head := p.Sections[0].Tables[0].Head; !slices.Equal(head, []string{"strategy", "wins budgets <= 200", "losses budgets <= 200"}) {
		t.Errorf("competition columns %q", head)
	}
	var b strings.Builder
	if err := p.Write(&b); err != nil {
		t.Fatal(err)
	}
	if html := b.String(); strings.Contains(html, "seed 00") || strings.Contains(html, "its Fig.") {
		t.Error("the page cites papers by internal names")
	}
}

// A recording in which nothing succeeded still gets its page: outcomes, what the failing
// configurations said (grouped by message, the most frequent first), and no analysis.
func TestAPageOfFailuresOnly(t *testing.T) {
	iv := space.IntValue
	rec := &result.Recording{Source: "f.json", Format: "kerneltuner", Objective: "time",
		Params: []space.Param{{Name: "bx", Values: []space.Value{iv(32), iv(64), iv(128)}}},
		Evaluations: []result.Evaluation{
			{Config: []space.Value{iv(32)}, Status: result.RuntimeError, Objective: math.NaN(), Message: "kernel takes 4 arguments, got 3"},
			{Config: []space.Value{iv(64)}, Status: result.RuntimeError, Objective: math.NaN(), Message: "kernel takes 4 arguments, got 3"},
			{Config: []space.Value{iv(128)}, Status: result.CompileError, Objective: math.NaN(), Message: "line 1: error\nline 2: note"},
		}}
	p, err := SpacePage(context.Background(), analysis.Input{Name: "f", Rec: rec}, Options{Analysis: analysis.Defaults()})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := p.Write(&b); err != nil {
		t.Fatal(err)
	}
	html := b.String()
	for _, want := range []string{
		`<td>runtime_error</td><td>2 of 2</td><td class="wrap">bx=32</td><td class="msg">kernel takes 4 arguments, got 3</td>`,
		`<td>compile_error</td><td>1 of 1</td><td class="wrap">bx=128</td><td class="msg">line 1: error` + "\n" + `line 2: note</td>`,
		"None of the 3 configurations ran successfully",
	} {
		if !strings.Contains(html, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
}

// A benchmark's page says what each entry ran: a label ("good") names no strategy.
func TestBenchPageNamesWhatEachEntryRan(t *testing.T) {
	cells := []benchmark.Cell{
		{Strategy: "good", Space: "k/a", Budget: 25, MeanFraction: 0.9, Fractions: []float64{0.9, 0.9}},
		{Strategy: "good", Space: "k/a", Budget: 100, MeanFraction: 0.95, Fractions: []float64{0.95, 0.95}},
	}
	sts := []benchmark.StrategyInfo{{Label: "good", Name: "annealing", Options: map[string]map[string]any{
		"100": {"temperature": 3}, "25": {"temperature": 1, "climber": "firstils"}}}}
	p, err := BenchPage(&Bench{Cells: cells, Strategies: sts}, "bench.json")
	if err != nil {
		t.Fatal(err)
	}
	if p.Sections[0].Title != "Strategies" {
		t.Fatalf("first section %q", p.Sections[0].Title)
	}
	row := p.Sections[0].Tables[0].Rows[0]
	if !slices.Equal(row, []string{"good", "annealing", "25: climber=firstils, temperature=1; 100: temperature=3"}) {
		t.Errorf("row %q", row)
	}
}

// ReadBench leaves to the recorded formats what is not a benchmark: a Kernel Tuner cache,
// and cells without the competition or how they were run (some other tool's JSON).
func TestReadBenchLeavesOtherJSONToTheFormats(t *testing.T) {
	cache, err := os.ReadFile("../testdata/kernel_tuner/vector_add_A4000.json")
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{
		"a Kernel Tuner cache": cache,
		"cells alone":          []byte(`{"cells": []}`),
		"a JSON list":          []byte(`[{"cells": []}]`),
		"nothing":              nil,
	} {
		if _, err := ReadBench(data); !errors.Is(err, ErrNotBench) {
			t.Errorf("%s: %v, want ErrNotBench", name, err)
		}
	}
}

// Numbers and headers never break inside a table: cells stay on one line, a wide table
// scrolls sideways in its own box, and only prose columns wrap (at spaces). A column of
// numbers is right-aligned with figures of one width.
func TestTablesKeepNumbersWholeAndScroll(t *testing.T) {
	p := &Page{Title: "t", Sections: []Section{{Title: "S", Tables: []Table{{
		Head: []string{"rank", "time (ms)", "configuration"}, Wrap: []int{2},
		Rows: [][]string{{"1", "0.016326", "a=1, b=2"}, {"2", "-", "a=3, b=4"}},
	}}}}}
	var b strings.Builder
	if err := p.Write(&b); err != nil {
		t.Fatal(err)
	}
	html := b.String()
	for _, not := range []string{"width: 34em", "max-width: 34em"} {
		if strings.Contains(html, not) {
			t.Errorf("the page's style has %q", not)
		}
	}
	// a word may break anywhere only in the values of a list of names and values, whose
	// column is at least 12em wide: a path or a hash, never a number of a data table
	kv := "table.kv td.wrap { max-width: 48em; overflow-wrap: anywhere; }"
	if n := strings.Count(html, "anywhere"); n != 1 || !strings.Contains(html, kv) {
		t.Errorf("the page's style has overflow-wrap: anywhere %d times, want once, in %q", n, kv)
	}
	for _, want := range []string{
		"th, td { border: 1px solid #ddd; padding: 0.25em 0.6em; text-align: left; vertical-align: top; white-space: nowrap; }",
		".tw { overflow-x: auto;", ".num { text-align: right; font-variant-numeric: tabular-nums; }",
		"figure img { display: block; box-sizing: border-box; max-width: 100%; height: auto;",
		`<div class="tw"><table>`,
		`<th class="num">rank</th><th class="num">time (ms)</th><th>configuration</th>`,
		`<td class="num">1</td><td class="num">0.016326</td><td class="wrap">a=1, b=2</td>`,
		`<td class="num">2</td><td class="num">-</td><td class="wrap">a=3, b=4</td>`,
	} {
		if !strings.Contains(html, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
}

// A recorded space's page gives its objective's unit, lists the configurations that failed
// without a message, cites papers by title rather than by internal names, and says when
// and how the flow graph was left out.
func TestSpacePageHasUnitsFailuresAndReferences(t *testing.T) {
	iv := space.IntValue
	var xs, ys []space.Value
	for i := range 6 {
		xs = append(xs, iv(int64(i)))
	}
	for j := range 4 {
		ys = append(ys, iv(int64(j)))
	}
	rec := &result.Recording{Source: "s.json", Format: "kerneltuner", Objective: "time", Kernel: "k", Device: "d",
		Params: []space.Param{{Name: "x", Values: xs}, {Name: "y", Values: ys}}}
	for i := range xs {
		for j := range ys {
			e := result.Evaluation{Config: []space.Value{xs[i], ys[j]}, Status: result.OK, Objective: 1 + float64((i-3)*(i-3)+j)/7}
			if i == 5 && j > 1 {
				e.Status, e.Objective = result.RuntimeError, math.NaN() // Kernel Tuner's RuntimeFailedConfig: no message
			}
			rec.Evaluations = append(rec.Evaluations, e)
		}
	}
	o := Options{Analysis: analysis.Defaults(), GraphNodes: 5}
	o.Analysis.Bootstrap = -1
	html := spacePageHTML(t, analysis.Input{Name: "s", Rec: rec}, o)
	for _, want := range []string{
		"time in ms (lower is better)", `<th class="num">time (ms)</th>`, "Best time: 1 ms",
		"<h2>Failures</h2>", "<td>runtime_error</td><td>2 of 2</td>", "(no message recorded)",
		"The fitness flow graph figure is left out: its 24 nodes are more than --graph-nodes 5 allows", "'ktune report --graph-nodes 24'",
		"Schoonhoven et al. (2022)", "<h2>References</h2>", "Benchmarking optimization algorithms for auto-tuning GPU kernels",
	} {
		if !strings.Contains(html, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	for _, not := range []string{"seed 00", "its Fig.", "local minim"} {
		if strings.Contains(html, not) {
			t.Errorf("the page has %q", not)
		}
	}
}

// The interactions table ranks pairs by absolute value, as its caption and the figure say.
func TestStrongestPairsByAbsoluteValue(t *testing.T) {
	pair := func(i, j int, v float64) sensitivity.Pair {
		return sensitivity.Pair{I: i, J: j, Index: sensitivity.Interval{Value: v}}
	}
	got := strongestPairs([]sensitivity.Pair{pair(0, 1, 0.01), pair(0, 2, -0.3), pair(1, 2, math.NaN()), pair(0, 3, 0.2), pair(1, 3, -0.01)})
	var order []float64
	for _, p := range got {
		order = append(order, p.Index.Value)
	}
	if want := []float64{-0.3, 0.2, 0.01, -0.01}; !slices.Equal(order, want) {
		t.Errorf("order %v, want %v", order, want)
	}
}

// A space whose optimum is 0 has no fraction of optimum: its page says so in the landscape
// section, and draws the rest.
func TestSpacePageOfAnOptimumOfZero(t *testing.T) {
	iv := space.IntValue
	rec := &result.Recording{Source: "z.json", Format: "kerneltuner", Objective: "errors", Kernel: "k", Device: "d",
		Params: []space.Param{{Name: "x", Values: []space.Value{iv(1), iv(2), iv(3), iv(4)}}}}
	for i, v := range []float64{0, 1, 2, 0.5} {
		rec.Evaluations = append(rec.Evaluations, result.Evaluation{Config: []space.Value{iv(int64(i + 1))}, Status: result.OK, Objective: v})
	}
	o := Options{Analysis: analysis.Defaults(), GraphNodes: 10}
	o.Analysis.Bootstrap = -1
	html := spacePageHTML(t, analysis.Input{Name: "z", Rec: rec}, o)
	for _, want := range []string{"Fraction of optimum undefined: the optimum is 0", "the local optima's fraction of optimum is not shown",
		"Proportion of centrality C_p", "Fitness flow graph"} {
		if !strings.Contains(html, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
}

// The caveat on empirical Sobol indices that are no shares of the variance (a tuner's best
// and worst configurations of a recorded GEMM space) stands in their section, folding the
// indices away, not among the notes.
func TestSobolOfADependentSampleIsFoldedWithItsCaveat(t *testing.T) {
	rec, err := format.Open("../testdata/benchmark_hub/kerneltuner_gemm/RTX_3090.json.gz")
	if err != nil {
		t.Fatal(err)
	}
	ok := slices.DeleteFunc(slices.Clone(rec.Evaluations), func(e result.Evaluation) bool { return e.Failed() })
	slices.SortStableFunc(ok, func(a, b result.Evaluation) int { return cmp.Compare(a.Objective, b.Objective) })
	rec.Evaluations = append(ok[:30:30], ok[len(ok)-30:]...)
	o := Options{Analysis: analysis.Defaults(), GraphNodes: 5}
	o.Analysis.Bootstrap, o.Analysis.Landscape = 10, false
	html := spacePageHTML(t, analysis.Input{Name: "gemm", Rec: rec}, o)
	sec := html[strings.Index(html, "<h2>Sensitivity (Sobol indices)</h2>"):]
	if !strings.Contains(sec, `class="callout warning">The empirical Sobol indices are not shares of the variance here: the first-order indices sum to`) ||
		!strings.Contains(sec, "<details><summary>Show the indices of the sample anyway</summary>") {
		t.Error("the Sobol section of a sample whose first orders sum above 1 has no caveat, or does not fold the indices away")
	}
	if n := strings.Count(html, "not shares of the variance"); n != 1 {
		t.Errorf("the caveat is on the page %d times, want once (in its section, not the notes)", n)
	}
}

// spacePageHTML writes the report page of in with o and returns its HTML, entities
// unescaped.
func spacePageHTML(t *testing.T, in analysis.Input, o Options) string {
	t.Helper()
	p, err := SpacePage(context.Background(), in, o)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := p.Write(&b); err != nil {
		t.Fatal(err)
	}
	return stdhtml.UnescapeString(b.String())
}

// ReadBench refuses a file of 'ktune bench' whose cells no benchmark wrote, naming the
// file's kind, the cell and what is wrong, rather than taking it (QA: a budget of 0
// panicked in the curves' log scale) or calling it an unknown format (QA: one value of the
// wrong type); the same file unedited is read.
func TestReadBenchRefusesCellsNoBenchmarkWrote(t *testing.T) {
	checkpoint := func(cell string) []byte {
		return []byte(`{"mode": "cartesian", "fitness": "deterministic", "seed": 1, "repeats": 2,
  "strategies": [{"label": "random", "name": "random"}],
  "spaces": [{"name": "k/a", "configurations": 10, "optimum": 1}], "budgets": [25],
  "cells": [` + cell + `]}`)
	}
	good := `{"strategy": "random", "space": "k/a", "budget": 25, "mean_fraction_of_optimum": 0.75,
  "std_fraction_of_optimum": 0.3535533905932738, "mean_evaluations": 10, "us_per_evaluation": 3.5, "fractions": [0.5, 1]}`
	if b, err := ReadBench(checkpoint(good)); err != nil || !b.Checkpoint || len(b.Cells) != 1 {
		t.Fatalf("the good checkpoint: %+v, %v", b, err)
	}
	for _, tc := range []struct{ name, from, to, want string }{
		{"budget 0", `"budget": 25`, `"budget": 0`, "at budget 0): a budget is 1 evaluation or more"},
		{"fraction above 1", `[0.5, 1]`, `[0.5, 7.5]`, "fraction 2 of 2 is 7.5, outside [0, 1]"},
		{"a string for a fraction", `[0.5, 1]`, `[0.5, "1"]`, "fraction 2 of 2 is a JSON string, want a number"},
		{"a string for the repeats", `"repeats": 2`, `"repeats": "2"`, "repeats is a JSON string, want a whole number, at line 1, column 75"},
	} {
		data := bytes.Replace(checkpoint(good), []byte(tc.from), []byte(tc.to), 1)
		_, err := ReadBench(data)
		var damaged *BenchFileError
		if !errors.As(err, &damaged) || !strings.Contains(err.Error(), tc.want) ||
			!strings.HasPrefix(err.Error(), "a --checkpoint file of 'ktune bench', edited or damaged: ") {
			t.Errorf("%s: %v, want a *BenchFileError saying %q", tc.name, err, tc.want)
		}
	}
	// one run per cell, the file saying so: its t-tests have no degree of freedom (QA:
	// the page's competition panicked in Student's t)
	one := strings.NewReplacer(`"repeats": 2`, `"repeats": 1`, `[0.5, 1]`, `[0.75]`, `0.3535533905932738`, `0`).Replace(string(checkpoint(good)))
	if _, err := ReadBench([]byte(one)); err == nil || !strings.Contains(err.Error(), "it has 1 fraction: a benchmark runs every cell 2 or more times") {
		t.Errorf("one run per cell: %v", err)
	}
}

// The notes of a page are sentences, each said once: the warning of a recording read up to
// its last whole entry (an interrupted Kernel Tuner run's cache) stands in the summary and
// not again under Notes (QA: it was printed twice), and the analysis's clauses ("only 9
// valid configurations, ...", "empirical: ...") start with a capital and end with a full
// stop, as the rest of the page's text does.
func TestNotesAreSentencesSaidOnce(t *testing.T) {
	cache, err := os.ReadFile("../testdata/kernel_tuner/vector_add_A4000.json")
	if err != nil {
		t.Fatal(err)
	}
	// cut after the tenth entry of the cache, as a killed Kernel Tuner run leaves it
	text := string(cache)
	at := strings.Index(text, `"cache": {`)
	for range 10 {
		at += strings.Index(text[at:], "\n        },") + len("\n        },")
	}
	path := filepath.Join(t.TempDir(), "cut.json")
	if err := os.WriteFile(path, []byte(text[:at]), 0o644); err != nil {
		t.Fatal(err)
	}
	rec, err := format.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(rec.Warnings) != 1 {
		t.Fatalf("warnings %q, want the one of an unclosed cache", rec.Warnings)
	}
	o := Options{Analysis: analysis.Defaults()}
	o.Analysis.Bootstrap = -1
	html := spacePageHTML(t, analysis.Input{Name: "cut", Rec: rec}, o)
	if n := strings.Count(html, rec.Warnings[0]); n != 1 {
		t.Errorf("the recording's warning %q is on the page %d times, want once", rec.Warnings[0], n)
	}
	notes := html[strings.Index(html, "<h2>Notes</h2>"):]
	notes = notes[:strings.Index(notes, "</section>")]
	paras := strings.Split(notes, "<p>")[1:]
	if len(paras) == 0 {
		t.Fatalf("no notes: %s", notes)
	}
	for _, p := range paras {
		p = p[:strings.Index(p, "</p>")]
		if first := p[:1]; strings.ToUpper(first) != first || !strings.HasSuffix(p, ".") {
			t.Errorf("note %q: want a sentence, capitalised and with a full stop", p)
		}
	}
}

func TestSentence(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"only 9 valid configurations, not a full product of the values; the significance still holds", "Only 9 valid configurations, not a full product of the values; the significance still holds."},
		{"empirical: the configurations are not the full product", "Empirical: the configurations are not the full product."},
		{"energy_j is constant (3) over the 9 valid configurations", "energy_j is constant (3) over the 9 valid configurations."},
		{"GB/s is constant", "GB/s is constant."},
		{"/data/x.json: unclosed cache file.", "/data/x.json: unclosed cache file."},
		{"Already one.", "Already one."},
		{"", ""},
	} {
		if got := sentence(c.in); got != c.want {
			t.Errorf("sentence(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// A program that reports on a recording without naming it gets a page titled by the file
// it came from, where the title began with ": "; a missing recording or store is an
// error, where it panicked.
func TestSpacePageOfAnUnnamedInput(t *testing.T) {
	ctx := context.Background()
	if _, err := SpacePage(ctx, analysis.Input{}, Options{}); err == nil || !strings.Contains(err.Error(), "Input.Rec is nil") {
		t.Errorf("SpacePage without a recording = %v, want an error saying so", err)
	}
	if _, err := RunPage(ctx, nil, 1, Options{}); err == nil || !strings.Contains(err.Error(), "no store") {
		t.Errorf("RunPage without a store = %v, want an error saying so", err)
	}
	const path = "../testdata/kernel_tuner/vector_add_A4000.json"
	rec, err := format.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	p, err := SpacePage(ctx, analysis.Input{Rec: rec}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(p.Title, path+": ") {
		t.Errorf("title %q, want it to begin with the recording's file", p.Title)
	}
}
