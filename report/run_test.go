package report

import (
	"context"
	"encoding/json"
	"fmt"
	stdhtml "html"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ktune/ktune/analysis"
	"github.com/ktune/ktune/result"
	"github.com/ktune/ktune/space"
	"github.com/ktune/ktune/store"
	"github.com/ktune/ktune/store/sqlite"
)

// vectorAddSpec is a spec with a default configuration and a metric objective, as
// 'ktune tune' records its path in a run's settings.
const vectorAddSpec = `kernel: {name: vector_add, source: vector_add.c}
constants: {N: 100000000}
parameters:
  - {name: unroll_factor, values: [1, 2, 4, 8, 16]}
  - {name: threads, values: [1, 2, 4]}
problem_size: [N]
arguments:
  - {name: c, type: float32, length: N, output: true}
  - {name: n, type: int32, value: N}
metrics:
  - {name: GB/s, expr: "3 * 4 * N / (time / 1e3) / 1e9", maximize: true}
objective: GB/s
statistic: median
default_config: {unroll_factor: 1, threads: 1}
`

// killed is the status of a run whose 'ktune tune' was killed: stored as running, read as
// interrupted through the command line's store (tuner.LiveStatus).
const killed store.RunStatus = "killed"

// liveStatus reads every run as interrupted, as the command line's store reads a run
// stored as running whose process is gone.
type liveStatus struct{ store.Store }

func (s liveStatus) Run(ctx context.Context, id int64) (store.RunInfo, error) {
	r, err := s.Store.Run(ctx, id)
	r.Status = store.StatusInterrupted
	return r, err
}

// tunedRun stores a tuning run of vectorAddSpec as 'ktune tune' leaves it: the default
// configuration first, then what the strategy tried, each GB/s with its timing samples;
// status is how it ended (or killed). It returns the run's page.
func tunedRun(t *testing.T, budget int, evals []result.Evaluation, status store.RunStatus) string {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	specPath := filepath.Join(dir, "vector_add_c.yaml")
	if err := os.WriteFile(specPath, []byte(vectorAddSpec), 0o644); err != nil {
		t.Fatal(err)
	}
	st, err := sqlite.Open(ctx, filepath.Join(dir, "k.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	iv := space.IntValue
	params := []space.Param{{Name: "unroll_factor", Values: []space.Value{iv(1), iv(2), iv(4), iv(8), iv(16)}},
		{Name: "threads", Values: []space.Value{iv(1), iv(2), iv(4)}}}
	dev, err := st.PutDevice(ctx, store.Device{Name: "cpu", Backend: "c"})
	if err != nil {
		t.Fatal(err)
	}
	sp, err := st.PutSpace(ctx, store.Space{Kernel: "vector_add", Params: params})
	if err != nil {
		t.Fatal(err)
	}
	settings, _ := json.Marshal(map[string]any{"spec": specPath, "budget": budget, "time_limit": "0s", "backend": "c"})
	id, err := st.CreateRun(ctx, store.RunInfo{SpaceID: sp, DeviceID: dev, Kind: store.KindTuning, Strategy: "random", Seed: 1,
		Objective: "GB/s", Maximize: true, Settings: settings})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.AddEvaluations(ctx, id, evals); err != nil {
		t.Fatal(err)
	}
	var read store.Store = st
	switch status {
	case store.StatusRunning:
	case killed:
		read = liveStatus{st}
	default:
		if err := st.FinishRun(ctx, id, status); err != nil {
			t.Fatal(err)
		}
	}
	p, err := RunPage(ctx, read, id, Options{Analysis: analysis.Defaults()})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := p.Write(&b); err != nil {
		t.Fatal(err)
	}
	return stdhtml.UnescapeString(b.String())
}

// gbps is an evaluation of unroll_factor u and threads n at the given GB/s, with timing
// samples whose median is the time that rate means.
func gbps(u, n int64, rate float64) result.Evaluation {
	ms := 3 * 4 * 1e8 / (rate * 1e9) * 1e3
	return result.Evaluation{Config: []space.Value{space.IntValue(u), space.IntValue(n)}, Status: result.OK, Objective: rate,
		Samples: []float64{ms * 0.9, ms, ms * 1.5}, Metrics: map[string]float64{"GB/s": rate}}
}

func failed(u, n int64, msg string) result.Evaluation {
	return result.Evaluation{Config: []space.Value{space.IntValue(u), space.IntValue(n)}, Status: result.CompileError,
		Objective: math.NaN(), Message: msg}
}

// The summary of a finished run says what 'ktune tune' printed: the best GB/s and its
// time, how much better it is than the default configuration and the median, how much of
// the budget and space it used, and why it stopped.
func TestRunSummaryHasTheHeadlineResult(t *testing.T) {
	evals := []result.Evaluation{gbps(1, 1, 2), gbps(2, 1, 6), gbps(4, 2, 13.74), gbps(8, 4, 10), gbps(16, 4, 4)}
	page := tunedRun(t, 5, evals, store.StatusFinished)
	for _, want := range []string{
		"tuning run, finished: its budget of 5 evaluations was spent",
		"Best GB/s: 13.74 GB/s (time 87.336 ms), 6.87x better than the default configuration (2 GB/s) and 2.29x better than the median configuration evaluated (6 GB/s).",
		"<td>default configuration</td><td class=\"wrap\">2 GB/s: unroll_factor=1, threads=1; the best is 6.87x better than it</td>",
		"<td class=\"wrap\">5 of a budget of 5 evaluations, 5 successful</td>",
		"<td class=\"wrap\">15 configurations (the full product of the values; no restrictions)</td>",
		"(median of its samples)",
		`<th class="num">time (ms)</th>`,
		`<th class="num">spread of the runs (CV)</th>`,
		"<td>finished</td>",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	// the columns' numbers have as many decimals each, so they line up; the spread of
	// the samples 0.9, 1 and 1.5 times 87.336 ms is 28.4%
	if !strings.Contains(page, `<td class="num">13.740</td><td class="num">87.34</td><td class="num">28.4%</td>`) {
		t.Errorf("the best configuration's row is not formatted as its column:\n%s", regexp.MustCompile(`(?s)<tbody>.*?</tbody>`).FindAllString(page, -1))
	}
}

// Where the runs went on for the spec's min_time, each sample is a batch's statistic:
// the best configurations' table calls its spread the samples', not the runs', whether
// the evaluation keeps its runs per sample or, made before it did, its note alone says
// them; with a sample per run it is the runs'.
func TestTheSpreadOfBatchedSamplesIsNamedSo(t *testing.T) {
	const batched = `<th class="num">spread of the samples (CV; each of a batch of runs, min_time)</th>`
	for _, c := range []struct {
		name    string
		per     int
		note    string
		batched bool
	}{
		{"field", 100, "", true},
		{"note", 0, "timed over 300 runs for min_time 10ms: each of its 3 samples is the mean of 100 consecutive runs", true},
		{"one run per sample", 1, "", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			best := gbps(4, 2, 13.74)
			best.Message, best.RunsPerSample = c.note, c.per
			page := tunedRun(t, 3, []result.Evaluation{gbps(1, 1, 2), gbps(2, 1, 6), best}, store.StatusFinished)
			if strings.Contains(page, batched) != c.batched || strings.Contains(page, "spread of the runs (CV)") == c.batched {
				t.Errorf("batched %v, the page has %q: %v, the runs' spread: %v", c.batched,
					batched, strings.Contains(page, batched), strings.Contains(page, "spread of the runs (CV)"))
			}
		})
	}
}

// A run interrupted, or killed (its process gone: the command line's store reads it as
// interrupted), reads as partial results: how far it got and how to resume it, and no
// "finished" time.
func TestAnInterruptedRunReadsAsPartial(t *testing.T) {
	evals := []result.Evaluation{gbps(1, 1, 2), gbps(2, 1, 6), gbps(4, 2, 13.74)}
	for _, tt := range []struct {
		status store.RunStatus
		want   string
	}{
		{store.StatusInterrupted, "the run was interrupted after 3 of a budget of 200 evaluations; run the same ktune tune command again to resume it"},
		{killed, "the run was interrupted (its ktune tune process ended without recording how) after 3 of a budget of 200 evaluations; run the same ktune tune command again to resume it"},
	} {
		page := tunedRun(t, 200, evals, tt.status)
		for _, want := range []string{"tuning run, interrupted after 3 of a budget of 200 evaluations", tt.want, `class="callout warning"`} {
			if !strings.Contains(page, want) {
				t.Errorf("%s: the page lacks %q", tt.status, want)
			}
		}
		for _, not := range []string{"<td>finished</td>", "<td>duration</td>", "<td>stopped</td>"} {
			if strings.Contains(page, not) {
				t.Errorf("%s: the page of an interrupted run has %q", tt.status, not)
			}
		}
	}
}

// A run where every configuration failed is a failure, and says why it stopped.
func TestARunWhereEverythingFailedIsAFailure(t *testing.T) {
	var evals []result.Evaluation
	for _, u := range []int64{1, 2, 4, 8, 16} {
		for _, n := range []int64{1, 2} {
			evals = append(evals, failed(u, n, "vector_add.c:21: error: 'undefined_symbol' undeclared\nmore"))
		}
	}
	page := tunedRun(t, 20, evals, store.StatusFinished)
	for _, want := range []string{
		"tuning run, failed: no configuration ran successfully",
		`<p class="callout failure">Failed: none of the 10 configurations evaluated ran successfully; all 10 configurations failed the same way (compile_error: vector_add.c:21: error: &#39;undefined_symbol&#39; undeclared ...)`,
		"unroll_factor=1, threads=1: did not run successfully (compile_error)",
	} {
		if !strings.Contains(page, stdhtml.UnescapeString(want)) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if strings.Contains(page, "tuning run, finished") {
		t.Error("a run where everything failed reads as finished")
	}
}

// The landscape of a run that maximises speaks of optima, not minima; a sample whose points
// mostly lack an evaluated neighbour says so and folds its statistics away.
func TestLandscapeOfASmallSampleIsFoldedAndSpeaksOfOptima(t *testing.T) {
	evals := []result.Evaluation{gbps(1, 1, 2), gbps(4, 2, 6), gbps(16, 4, 13.74), gbps(2, 1, 3)}
	page := tunedRun(t, 5, evals, store.StatusFinished)
	if !strings.Contains(page, "Too small a sample for landscape statistics: 2 of the 4 configurations evaluated have no evaluated neighbour") ||
		!strings.Contains(page, "<details><summary>Show the landscape statistics of the sample anyway</summary>") {
		t.Error("the landscape of a sample of lone points is not folded away with a warning")
	}
	if text := dataURI.ReplaceAllString(page, ""); strings.Contains(text, "minim") || !strings.Contains(text, "local optima (no better neighbour)") {
		t.Error("the landscape of a maximised objective speaks of minima")
	}
}

var dataURI = regexp.MustCompile(`data:image/[a-z+]+;base64,[A-Za-z0-9+/=]+`)

func TestIsolatedCountsPointsWithoutAnEvaluatedNeighbour(t *testing.T) {
	iv := space.IntValue
	vals := []space.Value{iv(0), iv(1), iv(2), iv(3)}
	rec := &result.Recording{Params: []space.Param{{Name: "a", Values: vals}, {Name: "b", Values: vals}}}
	for _, c := range [][2]int64{{0, 0}, {0, 1}, {3, 3}, {2, 0}, {2, 0}} {
		rec.Evaluations = append(rec.Evaluations, result.Evaluation{Config: []space.Value{iv(c[0]), iv(c[1])}})
	}
	// adjacent: (0,0)-(0,1) are neighbours; (2,0) is two steps from (0,0), (3,3) alone
	if lone, points := isolated(rec, space.Adjacent); lone != 2 || points != 4 {
		t.Errorf("adjacent: %d lone of %d points, want 2 of 4", lone, points)
	}
	// Hamming: (2,0) and (0,0) differ in one parameter
	if lone, points := isolated(rec, space.Hamming); lone != 1 || points != 4 {
		t.Errorf("Hamming: %d lone of %d points, want 1 of 4", lone, points)
	}
}

func TestColumnLinesNumbersUp(t *testing.T) {
	for _, tt := range []struct {
		in   []float64
		want []string
	}{
		{[]float64{25.6236, 18.05, 3.7276}, []string{"25.624", "18.050", "3.728"}},
		{[]float64{0.016326, 0.015914, math.NaN()}, []string{"0.016326", "0.015914", "-"}},
		{[]float64{123456, 99}, []string{"123456", "99"}},
		{[]float64{1500, 0.002}, []string{"1.5000e+03", "2.0000e-03"}},
	} {
		if got := column(tt.in, 5); strings.Join(got, " ") != strings.Join(tt.want, " ") {
			t.Errorf("column(%v) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestBestTimeIsTheTimeTheRunUsed: beside a metric objective the best time is the time
// the run kept (its spec's statistic of the samples, here a median), whatever statistic
// the report would apply to the samples, which it only does for runs stored before ktune
// kept that time.
func TestBestTimeIsTheTimeTheRunUsed(t *testing.T) {
	e := result.Evaluation{Objective: 7.4, Samples: []float64{1, 2, 9}, Metrics: map[string]float64{"GB/s": 7.4, "time": 2}}
	if got := timeMS(&e, "mean"); got != 2 {
		t.Errorf("time %v, want the kept 2 ms (not the samples' mean, 4)", got)
	}
	old := result.Evaluation{Objective: 7.4, Samples: []float64{1, 2, 9}, Metrics: map[string]float64{"GB/s": 7.4}}
	if got := timeMS(&old, "mean"); got != 4 {
		t.Errorf("time of an evaluation stored before: %v, want the samples' mean 4", got)
	}
	if got := timeMS(&result.Evaluation{}, "mean"); !math.IsNaN(got) {
		t.Errorf("time without samples: %v, want NaN", got)
	}
}

// A run that has evaluated nothing yet says so, and points at no failures (a QA saw "None
// of the 0 configurations ran successfully ... the failures above say why" with none).
func TestARunThatHasEvaluatedNothingSaysSo(t *testing.T) {
	page := tunedRun(t, 20, nil, store.StatusRunning)
	for _, want := range []string{"No configuration has been evaluated.", "No configuration has been evaluated, so there is nothing to analyse."} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	for _, bad := range []string{"None of the 0", "failures above", "No configuration ran successfully"} {
		if strings.Contains(page, bad) {
			t.Errorf("the page says %q", bad)
		}
	}
}

// Successful configurations that lack metrics which could not be computed for them are
// said in the summary (a QA found the note only in exports).
func TestTheSummarySaysWhichMetricsCouldNotBeComputed(t *testing.T) {
	e := result.Evaluation{Config: []space.Value{space.IntValue(1), space.IntValue(1)}, Status: result.OK, Objective: 2,
		Samples: []float64{2}, Message: `metrics left out: spec.yaml:9: metrics[1].expr: metric "inv": 1 / (VW - 1) fails`}
	// a success timed over fewer runs than the spec's iterations lacks no metric
	timed := result.Evaluation{Config: []space.Value{space.IntValue(2), space.IntValue(1)}, Status: result.OK, Objective: 3,
		Samples: []float64{3}, Message: `timed over 1 of the spec's 32 iterations: another run would have passed its timeout of 10s`}
	page := tunedRun(t, 20, []result.Evaluation{timed, e}, store.StatusFinished)
	want := `Of the successful configurations, 1 lacks metrics that could not be computed for them; the first says: metrics left out: spec.yaml:9: metrics[1].expr: metric "inv"`
	if !strings.Contains(stdhtml.UnescapeString(page), want) {
		t.Errorf("the page lacks %q", want)
	}
}

// An objective of 0 or below has no speedup ratio: the page says "better than" or "as
// good as" without one. Before, two negative objectives gave a ratio that read as worse.
func TestRunSummaryOfNegativeObjectivesHasNoRatio(t *testing.T) {
	neg := func(u, n int64, v float64) result.Evaluation {
		return result.Evaluation{Config: []space.Value{space.IntValue(u), space.IntValue(n)}, Status: result.OK, Objective: v}
	}
	page := tunedRun(t, 3, []result.Evaluation{neg(1, 1, -5), neg(2, 1, -3), neg(4, 2, -1)}, store.StatusFinished)
	for _, want := range []string{
		"better than the default configuration (-5 GB/s) and better than the median configuration evaluated (-3 GB/s).",
		"-5 GB/s: unroll_factor=1, threads=1; the best is better than it</td>",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if strings.Contains(page, "x better") {
		t.Error("the page gives a ratio of negative objectives")
	}
}

// A run whose configurations all failed in different ways until the space was exhausted
// says why it stopped as 'ktune tune' does (space exhausted), not that nothing succeeded
// a second time (QA: "Failed: none of the 4 configurations evaluated ran successfully;
// no configuration ran successfully.").
func TestAFailedRunSaysWhyItStopped(t *testing.T) {
	var evals []result.Evaluation
	for _, u := range []int64{1, 2, 4, 8, 16} {
		for _, n := range []int64{1, 2, 4} {
			evals = append(evals, failed(u, n, fmt.Sprintf("error %d", u*n)))
		}
	}
	page := tunedRun(t, 20, evals, store.StatusFinished)
	for _, want := range []string{
		"tuning run, failed: no configuration ran successfully",
		`Failed: none of the 15 configurations evaluated ran successfully; every configuration of the space was evaluated. The failures below say why.`,
		`<td>stopped</td><td class="wrap">every configuration of the space was evaluated</td>`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if n := strings.Count(page, "no configuration ran successfully"); n != 2 {
		t.Errorf("the page says %d times that no configuration ran successfully, want twice (subtitle and status)", n)
	}
}

// A run measured on several devices names, in its best configurations' table, the device
// that measured each; a run on one device has no such column.
func TestTheBestConfigurationsOfARunOnSeveralDevicesNameTheirDevice(t *testing.T) {
	evals := []result.Evaluation{gbps(1, 1, 2), gbps(2, 1, 6), gbps(4, 2, 13.74)}
	for i, d := range []string{"opencl:0", "opencl:1", "opencl:1"} {
		evals[i].Device = d
	}
	page := tunedRun(t, 3, evals, store.StatusFinished)
	if !strings.Contains(page, "<th>device</th>") ||
		!strings.Contains(page, `<td class="num">13.740</td><td class="num">87.34</td><td>opencl:1</td>`) {
		t.Errorf("the best configurations' table names no device:\n%s", regexp.MustCompile(`(?s)<table.*?</table>`).FindAllString(page, -1))
	}
	for i := range evals {
		evals[i].Device = "opencl:0"
	}
	if page := tunedRun(t, 3, evals, store.StatusFinished); strings.Contains(page, "<th>device</th>") {
		t.Error("a run on one device has a device column")
	}
}

// A configuration that a check after tuning found wrong on later data (a wrong_answer
// evaluation recorded after its success, as dynamic tuning stores it) is neither the
// headline's best nor in the best configurations' table, which says it left it out.
func TestAConfigurationFoundWrongIsNotTheBest(t *testing.T) {
	found := result.Evaluation{Config: []space.Value{space.IntValue(4), space.IntValue(2)}, Status: result.WrongAnswer,
		Objective: math.NaN(), Message: "found wrong by a check on call 12, after tuning (against the reference): output 3 differs"}
	evals := []result.Evaluation{gbps(1, 1, 2), gbps(2, 1, 6), gbps(4, 2, 13.74), gbps(8, 4, 10), gbps(16, 4, 4), found}
	page := tunedRun(t, 6, evals, store.StatusFinished)
	for _, want := range []string{
		"Best GB/s: 10 GB/s",
		"1 successful evaluation is left out: its configuration has a wrong_answer evaluation in the run",
		"The 4 best of 4 successful configurations",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if strings.Contains(page, "13.74") {
		t.Errorf("the page shows the configuration found wrong (13.74 GB/s) as a result:\n%s", regexp.MustCompile(`(?s)<tbody>.*?</tbody>`).FindAllString(page, -1))
	}
}

// wrongAnswer is the wrong_answer evaluation a check after tuning stores of
// unroll_factor u and threads n, after the configuration's success.
func wrongAnswer(u, n int64) result.Evaluation {
	return result.Evaluation{Config: []space.Value{space.IntValue(u), space.IntValue(n)}, Status: result.WrongAnswer,
		Objective: math.NaN(), Message: "found wrong by a check on call 12, after tuning (against the reference): output 3 differs"}
}

// A configuration found wrong after its success counts nowhere in the summary as a
// success: not in the median the best is compared with (2, 4, 6 and 10 GB/s: 5, not the 6
// of all five), nor in the successful count, which says one more is left out; the
// outcomes table counts it apart from ok.
func TestTheSummaryLeavesOutAConfigurationFoundWrong(t *testing.T) {
	evals := []result.Evaluation{gbps(1, 1, 2), gbps(2, 1, 6), gbps(4, 2, 13.74), gbps(8, 4, 10), gbps(16, 4, 4), wrongAnswer(4, 2)}
	page := tunedRun(t, 6, evals, store.StatusFinished)
	for _, want := range []string{
		"Best GB/s: 10 GB/s (time 120 ms), 5.00x better than the default configuration (2 GB/s) and 2.00x better than the median configuration evaluated (5 GB/s).",
		"<td>median of the configurations evaluated</td><td class=\"wrap\">5 GB/s; the best is 2.00x better than it</td>",
		"<td class=\"wrap\">6 of a budget of 6 evaluations, 4 successful; 1 more that ran successfully is left out of the successful and the median: its configuration has a wrong_answer evaluation in the run",
		"<td>ok</td><td class=\"num\">4</td>",
		"<td>ok but found wrong (its configuration has a wrong_answer evaluation)</td><td class=\"num\">1</td>",
		"<td>wrong_answer</td><td class=\"num\">1</td>",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q:\n%s", want, regexp.MustCompile(`(?s)<table.*?</table>`).FindAllString(page, 3))
		}
	}
}

// A configuration found wrong is none of the successful configurations that lack
// metrics: the summary counts the one right success that lacks them.
func TestTheSummaryCountsNoConfigurationFoundWrongAsLackingMetrics(t *testing.T) {
	lacking := func(e result.Evaluation) result.Evaluation {
		e.Message = "metrics left out: GB/s: division by zero"
		return e
	}
	evals := []result.Evaluation{gbps(1, 1, 2), lacking(gbps(2, 1, 6)), lacking(gbps(4, 2, 13.74)), wrongAnswer(4, 2)}
	page := tunedRun(t, 4, evals, store.StatusFinished)
	if want := "Of the successful configurations, 1 lacks metrics that could not be computed for them"; !strings.Contains(page, want) {
		t.Errorf("the page lacks %q:\n%s", want, regexp.MustCompile(`Of the successful configurations[^<]*`).FindAllString(page, -1))
	}
}

// A default configuration found wrong after its success is no reference: the headline
// and the result table compare the best with the median alone (6, 13.74, 10 and 4 GB/s:
// 8), and the convergence figure draws no default line.
func TestADefaultConfigurationFoundWrongIsNoReference(t *testing.T) {
	evals := []result.Evaluation{gbps(1, 1, 2), gbps(2, 1, 6), gbps(4, 2, 13.74), gbps(8, 4, 10), gbps(16, 4, 4), wrongAnswer(1, 1)}
	page := tunedRun(t, 6, evals, store.StatusFinished)
	for _, want := range []string{
		"Best GB/s: 13.74 GB/s (time 87.336 ms), 1.72x better than the median configuration evaluated (8 GB/s).",
		"<td>default configuration</td><td class=\"wrap\">unroll_factor=1, threads=1: ran successfully but was found wrong (a wrong_answer evaluation in the run), so the best is not compared with it</td>",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if strings.Contains(page, "default configuration (2 GB/s)") || strings.Contains(page, "6.87x") {
		t.Error("the page compares the best with the default configuration found wrong")
	}
	if !strings.Contains(page, "best so far (blue); 1 failed evaluation not drawn; 1 successful evaluation of configurations found wrong in the run (a wrong_answer evaluation) not drawn") ||
		strings.Contains(page, "the default configuration's 2 GB/s dashed") {
		t.Errorf("the convergence figure draws the default configuration found wrong as a reference:\n%s", regexp.MustCompile(`<figcaption>[^<]*best so far[^<]*`).FindAllString(page, -1))
	}
}

// A run whose one success was found wrong failed: its state and headline say so.
func TestARunWhoseSuccessesWereAllFoundWrongFailed(t *testing.T) {
	evals := []result.Evaluation{gbps(1, 1, 2), failed(2, 1, "error: bad unroll"), wrongAnswer(1, 1)}
	page := tunedRun(t, 3, evals, store.StatusFinished)
	for _, want := range []string{
		"tuning run, failed: no configuration ran successfully that was not found wrong",
		"Failed: none of the 3 configurations evaluated ran successfully without being found wrong; its budget of 3 evaluations was spent (1 evaluation that ran successfully: its configuration has a wrong_answer evaluation in the run",
		"3 of a budget of 3 evaluations, 0 successful; 1 more that ran successfully is left out",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
}
