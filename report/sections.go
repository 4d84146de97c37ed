package report

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/ktune/ktune/analysis"
	"github.com/ktune/ktune/efficiency"
	"github.com/ktune/ktune/result"
	"github.com/ktune/ktune/runner"
	"github.com/ktune/ktune/sensitivity"
	"github.com/ktune/ktune/space"
	"github.com/ktune/ktune/spec"
	"github.com/ktune/ktune/store"
)

// Options configure a run or space report.
type Options struct {
	Analysis   analysis.Options // what to analyse; analysis.Defaults() for everything
	GraphNodes int              // draw flow graphs of spaces up to this size; 0 for none
	Top        int              // best configurations listed; 0 for 10
	// Peaks are the device's peaks as the user gives them, which win over the peaks the
	// run stored when it was tuned (efficiency.Stored), which win over the derived ones
	// the run's device keeps: a run whose spec declared essential_ops gets a section of
	// efficiency against them (seed 003, eq. 2), saying where each came from.
	Peaks efficiency.Given
	// PeaksFile gives the run's device its peaks, under Peaks and over the stored ones; it
	// must name the device.
	// nil: none.
	PeaksFile *efficiency.File
}

// RunPage reports one run of the store: what it was, how it went, its best
// configurations, its convergence, and the analysis of what it measured. A run recorded
// as running whose process was killed reads as running unless st says otherwise
// (tuner.LiveStatus reads such runs as interrupted, as the command line does).
func RunPage(ctx context.Context, st store.Store, id int64, o Options) (*Page, error) {
	p, err := runPage(ctx, st, id, o)
	if err != nil {
		return nil, err
	}
	p.cite()
	return p, nil
}

func runPage(ctx context.Context, st store.Store, id int64, o Options) (*Page, error) {
	if st == nil {
		return nil, fmt.Errorf("report: run %d: no store to read it from (nil)", id)
	}
	info, err := st.Run(ctx, id)
	if err != nil {
		return nil, fmt.Errorf("run %d: %w", id, err)
	}
	stored, err := st.Recording(ctx, id)
	if err != nil {
		return nil, fmt.Errorf("run %d: %w", id, err)
	}
	rec := redirected(stored, o)
	info.Maximize = rec.Maximize
	facts := factsOf(info, rec)
	p := &Page{Title: fmt.Sprintf("Run %d: %s on %s", id, dash(info.Kernel), dash(info.Device)),
		Subtitle: fmt.Sprintf("%s run, %s", info.Kind, facts.state())}
	about := Table{Caption: "Run", KeyValue: true}
	add := func(k, v string) {
		if v != "" {
			about.Rows = append(about.Rows, []string{k, v})
		}
	}
	add("kind", string(info.Kind))
	add("status", facts.state())
	add("strategy", info.Strategy)
	if len(info.StrategyOptions) > 0 && string(info.StrategyOptions) != "null" && string(info.StrategyOptions) != "{}" {
		add("strategy options", settingsText(info.StrategyOptions))
	}
	if info.Kind != store.KindImport {
		add("seed", strconv.FormatUint(info.Seed, 10))
	}
	add("objective", objectiveRow(rec, stored, o))
	add("problem size", info.ProblemSize)
	add("source", info.Source)
	add("format", info.Format)
	if !info.Started.IsZero() {
		add("started", info.Started.Format(stamp))
	}
	switch {
	case info.Status == store.StatusFinished && !info.Finished.IsZero():
		add("finished", info.Finished.Format(stamp))
		add("duration", info.Finished.Sub(info.Started).Round(1e6).String())
	case info.Status == store.StatusInterrupted && !info.Finished.IsZero():
		add("interrupted", info.Finished.Format(stamp))
	}
	if info.Status != store.StatusFinished {
		if last := lastEvaluated(rec); !last.IsZero() {
			add("last evaluation", last.Format(stamp))
		}
	}
	if len(info.Settings) > 0 {
		add("settings", settingsText(info.Settings))
	}
	summary := Section{Title: "Summary", Callouts: facts.callouts(), Tables: []Table{facts.resultTable(), about, outcomes(rec)}}
	for _, w := range info.Warnings {
		summary.Text = append(summary.Text, "Warning: "+w)
	}
	if note := lackingMetrics(rec); note != "" {
		summary.Text = append(summary.Text, note)
	}
	p.Sections = append(p.Sections, summary)
	p.Sections = append(p.Sections, bestSection(rec, o.Top, facts.statistic()))
	if ops, derived := efficiency.OfRun(ctx, st, info); ops != nil {
		given := o.Peaks
		if o.PeaksFile != nil {
			dev, err := efficiency.DeviceOfRun(ctx, st, info)
			if err != nil {
				return nil, err
			}
			if given, err = o.PeaksFile.For(dev, ops.Precision, o.Peaks); err != nil {
				return nil, fmt.Errorf("run %d: %w", info.ID, err)
			}
		}
		kept, err := efficiency.StoredOf(info)
		if err != nil {
			return nil, err
		}
		given = given.Or(kept.Given(ops.Precision, info.ID))
		p.Sections = append(p.Sections, efficiencySection(stored, facts.statistic(), *ops, derived, given, o.Top))
	}
	if f := failuresSection(rec); f != nil {
		p.Sections = append(p.Sections, *f)
	}
	if w := warningsSection(rec); w != nil {
		p.Sections = append(p.Sections, *w)
	}
	if rightSuccesses(rec) == 0 {
		p.Sections = append(p.Sections, nothingSucceeded(rec))
		return p, nil
	}
	var ref *float64 // the default's line: none for one found wrong, whose time is no reference
	if d, ok := facts.defaultObjective(); ok {
		ref = &d
	}
	if conv, err := convergenceSection(rec, ref); err != nil {
		return nil, err
	} else if conv != nil {
		p.Sections = append(p.Sections, *conv)
	}
	// the analysis takes the direction from o itself, and says where it overrides the run's
	in := analysis.Input{Name: analysis.RunName(id, info.Kernel), Rec: stored, Run: &info}
	secs, err := analysisSections(ctx, in, o)
	if err != nil {
		return nil, err
	}
	p.Sections = append(p.Sections, secs...)
	return p, nil
}

// stamp is how the page writes a moment.
const stamp = "2006-01-02 15:04:05 MST"

// lastEvaluated is when the recording's last evaluation was measured; zero when unknown.
func lastEvaluated(rec *result.Recording) time.Time {
	var last time.Time
	for i := range rec.Evaluations {
		if t := rec.Evaluations[i].Time; t.After(last) {
			last = t
		}
	}
	return last
}

// lackingMetrics says how many successful configurations lack metrics that could not be
// computed for them, with the first one's note ("metrics left out: ..."); "" when none.
// A configuration found wrong in the run (result.Recording.FoundWrong) is none of them.
func lackingMetrics(rec *result.Recording) string {
	n, first := 0, ""
	wrong := rec.FoundWrong()
	for i := range rec.Evaluations {
		if e := &rec.Evaluations[i]; !e.Failed() && !wrong(e) && strings.HasPrefix(e.Message, runner.MetricsLeftOut) {
			if n == 0 {
				first = e.Message
			}
			n++
		}
	}
	if n == 0 {
		return ""
	}
	lack := "1 lacks"
	if n > 1 {
		lack = fmt.Sprintf("%d lack", n)
	}
	return fmt.Sprintf("Of the successful configurations, %s metrics that could not be computed for them; the first says: %s", lack, first)
}

// rightSuccesses counts rec's successful evaluations whose configuration was found wrong
// nowhere in it (result.Recording.FoundWrong): the analysis counts the others as failed.
func rightSuccesses(rec *result.Recording) int {
	wrong, n := rec.FoundWrong(), 0
	for i := range rec.Evaluations {
		if e := &rec.Evaluations[i]; !e.Failed() && !wrong(e) {
			n++
		}
	}
	return n
}

// nothingSucceeded is the analysis section of a recording without a successful
// configuration, or whose successful ones were all found wrong: there is nothing to
// analyse, and the failures above say why, where there are any (a run that has evaluated
// nothing yet, or an empty recording, has none).
func nothingSucceeded(rec *result.Recording) Section {
	n := len(rec.Evaluations)
	text := "No configuration has been evaluated, so there is nothing to analyse."
	_, ok := rec.Counts()
	switch {
	case n == 0:
	case ok > 0:
		text = "Every configuration that ran successfully has a wrong_answer evaluation in the run as well (found wrong by a verification, or by a check after dynamic tuning), so there is no objective to analyse; the failures above say why."
	case failuresSection(rec) != nil:
		text = fmt.Sprintf("None of the %s ran successfully, so there is no objective to analyse; the failures above say why.",
			plural(n, "configuration", "configurations"))
	default:
		text = fmt.Sprintf("None of the %s ran successfully, so there is no objective to analyse.", plural(n, "configuration", "configurations"))
	}
	return Section{Title: "Analysis", Text: []string{text}}
}

// maxMessages is how many distinct messages the failures section lists per status.
const maxMessages = 5

// failuresSection lists, per failing status, the messages its configurations gave, the
// most frequent first, each with how many gave it and one of them; nil when nothing failed.
func failuresSection(rec *result.Recording) *Section {
	type group struct {
		status  result.Status
		message string
		n       int
		example string
	}
	byKey := map[string]*group{}
	var groups []*group
	total := map[result.Status]int{}
	for i := range rec.Evaluations {
		e := &rec.Evaluations[i]
		if e.Status == result.OK || e.Status == result.Restricted {
			continue
		}
		total[e.Status]++
		key := e.Status.String() + "\x00" + e.Message
		g := byKey[key]
		if g == nil {
			g = &group{status: e.Status, message: e.Message, example: configText(rec, e)}
			byKey[key] = g
			groups = append(groups, g)
		}
		g.n++
	}
	if len(groups) == 0 {
		return nil
	}
	sort.SliceStable(groups, func(a, b int) bool {
		if groups[a].status != groups[b].status {
			return total[groups[a].status] > total[groups[b].status]
		}
		return groups[a].n > groups[b].n
	})
	t := Table{Caption: "What the failing configurations said", Messages: true, Wrap: []int{2},
		Head: []string{"outcome", "configurations", "for example", "message"}}
	shown := map[result.Status]int{}
	for _, g := range groups {
		if shown[g.status]++; shown[g.status] > maxMessages {
			continue
		}
		msg := g.message
		if msg == "" {
			msg = "(no message recorded)"
		}
		if len(msg) > 3000 {
			msg = msg[:3000] + "\n..."
		}
		t.Rows = append(t.Rows, []string{g.status.String(), fmt.Sprintf("%d of %d", g.n, total[g.status]), g.example, msg})
	}
	return &Section{Title: "Failures", Tables: []Table{t}}
}

// warningsSection lists the distinct warnings the compiler printed for the run's builds
// (result.DistinctWarnings), each with how many configurations' builds gave it and the
// first that did; nil when there were none.
func warningsSection(rec *result.Recording) *Section {
	ws, more := result.DistinctWarnings(rec.Evaluations)
	if len(ws) == 0 {
		return nil
	}
	warned := 0
	for i := range rec.Evaluations {
		if rec.Evaluations[i].Warnings != "" {
			warned++
		}
	}
	t := Table{Caption: "What the compiler warned of, each warning once", Messages: true, Wrap: []int{1},
		Head: []string{"configurations", "the first", "warning"}}
	for _, w := range ws {
		t.Rows = append(t.Rows, []string{fmt.Sprintf("%d of %d", w.Count, len(rec.Evaluations)), configText(rec, &rec.Evaluations[w.First]), w.Text})
	}
	text := []string{fmt.Sprintf("The builds of %s printed warnings, which may explain a wrong or slow result.",
		plural(warned, "configuration", "configurations"))}
	if more > 0 {
		text = append(text, fmt.Sprintf("%d more distinct warnings are left out.", more))
	}
	return &Section{Title: "Compiler warnings", Text: text, Tables: []Table{t}}
}

// SpacePage reports a recorded space read from a file: its outcomes, best
// configurations and analysis.
func SpacePage(ctx context.Context, in analysis.Input, o Options) (*Page, error) {
	p, err := spacePage(ctx, in, o)
	if err != nil {
		return nil, err
	}
	p.cite()
	return p, nil
}

func spacePage(ctx context.Context, in analysis.Input, o Options) (*Page, error) {
	if in.Rec == nil {
		return nil, errors.New("report: no recording to report on (Input.Rec is nil)")
	}
	in.Name = in.Label()
	rec := redirected(in.Rec, o)
	p := &Page{Title: fmt.Sprintf("%s: %s on %s", in.Name, dash(rec.Kernel), dash(rec.Device)),
		Subtitle: fmt.Sprintf("recorded space read from %s (%s format)", rec.Source, rec.Format)}
	facts := factsOf(store.RunInfo{Kind: store.KindImport, Status: store.StatusFinished, Maximize: rec.Maximize}, rec)
	about := Table{Caption: "Recording", KeyValue: true, Rows: [][]string{{"objective", objectiveRow(rec, in.Rec, o)}}}
	if rec.ProblemSize != "" {
		about.Rows = append(about.Rows, []string{"problem size", rec.ProblemSize})
	}
	summary := Section{Title: "Summary", Callouts: facts.callouts(), Tables: []Table{facts.resultTable(), about, outcomes(rec)}}
	for _, w := range rec.Warnings {
		summary.Text = append(summary.Text, "Warning: "+w)
	}
	if note := lackingMetrics(rec); note != "" {
		summary.Text = append(summary.Text, note)
	}
	p.Sections = append(p.Sections, summary, bestSection(rec, o.Top, spec.DefaultStatistic))
	if f := failuresSection(rec); f != nil {
		p.Sections = append(p.Sections, *f)
	}
	if rightSuccesses(rec) == 0 {
		p.Sections = append(p.Sections, nothingSucceeded(rec))
		return p, nil
	}
	secs, err := analysisSections(ctx, in, o)
	if err != nil {
		return nil, err
	}
	p.Sections = append(p.Sections, secs...)
	return p, nil
}

// objectiveRow is the objective of the page's recording rec (redirected from stored),
// with its unit, its direction and where the direction comes from when the recording
// does not say it.
func objectiveRow(rec, stored *result.Recording, o Options) string {
	text := objectiveText(objectiveName(rec), rec.Maximize)
	switch {
	case rec != stored:
		text += ", as --maximize or --minimize says"
	case o.Analysis.Maximize == nil && analysis.NamedDirection(rec):
		text += ", as its name suggests: a Kernel Tuner cache does not record the direction; 'ktune report --maximize' or '--minimize' says it"
	}
	return text
}

// redirected is rec with the direction o.Analysis.Maximize gives its objective, so that
// the page's best configurations, convergence and summary follow it as the analysis does;
// rec itself when o gives none, or gives it for another objective (a metric the analysis
// explains).
func redirected(rec *result.Recording, o Options) *result.Recording {
	m := o.Analysis.Maximize
	if m == nil || *m == rec.Maximize || o.Analysis.Objective != "" && o.Analysis.Objective != objectiveName(rec) {
		return rec
	}
	cp := *rec
	cp.Maximize = *m
	return &cp
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func direction(maximize bool) string {
	if maximize {
		return "higher is better"
	}
	return "lower is better"
}

// outcomes counts evaluations by status. A success of a configuration found wrong in the
// run (result.Recording.FoundWrong) is no ok: it has a row of its own, after ok's.
func outcomes(rec *result.Recording) Table {
	counts := map[result.Status]int{}
	wrong, foundWrong := rec.FoundWrong(), 0
	for i := range rec.Evaluations {
		e := &rec.Evaluations[i]
		s := e.Status
		if s == result.OK && math.IsNaN(e.Objective) {
			s = result.RuntimeError
		}
		if s == result.OK && wrong(e) {
			foundWrong++
			continue
		}
		counts[s]++
	}
	t := Table{Caption: "Evaluations", Head: []string{"outcome", "configurations"}}
	t.Rows = append(t.Rows, []string{"all", strconv.Itoa(len(rec.Evaluations))})
	for s := result.OK; s <= result.DeviceLimit; s++ {
		if counts[s] > 0 {
			t.Rows = append(t.Rows, []string{s.String(), strconv.Itoa(counts[s])})
		}
		if s == result.OK && foundWrong > 0 {
			t.Rows = append(t.Rows, []string{"ok but found wrong (its configuration has a wrong_answer evaluation)", strconv.Itoa(foundWrong)})
		}
	}
	return t
}

// bestSection lists the best configurations by the objective, with its unit; beside an
// objective that is not time, their time where it was recorded (its samples combined by
// statistic); for a run measured on several devices, the device that measured each.
func bestSection(rec *result.Recording, top int, statistic string) Section {
	if top <= 0 {
		top = 10
	}
	var ok []int
	wrong, foundWrong := rec.FoundWrong(), 0
	for i := range rec.Evaluations {
		switch e := &rec.Evaluations[i]; {
		case e.Failed():
		case wrong(e):
			foundWrong++
		default:
			ok = append(ok, i)
		}
	}
	// a configuration found wrong anywhere in the run computes wrong answers on some
	// input: its successes are left out, however fast
	var leftOut []string
	switch {
	case foundWrong == 1:
		leftOut = []string{"1 successful evaluation is left out: its configuration has a wrong_answer evaluation in the run (found wrong by a verification, or by a check after dynamic tuning)."}
	case foundWrong > 1:
		leftOut = []string{fmt.Sprintf("%d successful evaluations are left out: their configurations have a wrong_answer evaluation in the run (found wrong by a verification, or by a check after dynamic tuning).", foundWrong)}
	}
	switch {
	case len(rec.Evaluations) == 0:
		return Section{Title: "Best configurations", Text: []string{"No configuration has been evaluated."}}
	case len(ok) == 0 && foundWrong > 0:
		return Section{Title: "Best configurations", Text: append([]string{"No configuration ran successfully that was not found wrong."}, leftOut...)}
	case len(ok) == 0:
		return Section{Title: "Best configurations", Text: []string{"No configuration ran successfully."}}
	}
	sort.SliceStable(ok, func(a, b int) bool {
		return better(rec.Maximize, rec.Evaluations[ok[a]].Objective, rec.Evaluations[ok[b]].Objective)
	})
	candidates := len(ok)
	ok = ok[:min(top, len(ok))]
	obj := objectiveName(rec)
	objs, times := make([]float64, len(ok)), make([]float64, len(ok))
	spreads := make([]string, len(ok))
	withTime, withSpread, batched := false, false, false
	for r, i := range ok {
		e := &rec.Evaluations[i]
		objs[r], times[r] = e.Objective, math.NaN()
		if obj != "time" {
			times[r] = timeMS(e, statistic)
			withTime = withTime || !math.IsNaN(times[r])
		}
		spreads[r] = "-"
		if cv, has := e.SampleCV(); has {
			spreads[r] = strconv.FormatFloat(100*cv, 'f', 1, 64) + "%"
			withSpread = true
		}
		batched = batched || e.SampleRuns() > 1
	}
	t := Table{Caption: fmt.Sprintf("The %d best of %d successful configurations", len(ok), len(ok)), Head: []string{"rank", headWithUnit(obj)}}
	if all := candidates; all != len(ok) {
		t.Caption = fmt.Sprintf("The %d best of %d successful configurations", len(ok), all)
	} else if all == 1 {
		t.Caption = "The one successful configuration"
	}
	if withTime {
		t.Head = append(t.Head, "time (ms)")
	}
	// a run on several devices: which measured each (one slower device shows)
	withDevice := severalDevices(rec.Evaluations)
	if withDevice {
		t.Head = append(t.Head, "device")
	}
	if withSpread {
		// how much the timed runs varied: ranks closer than that may not repeat
		if batched {
			// runs that went on for the spec's min_time: a sample per batch of runs
			t.Head = append(t.Head, "spread of the samples (CV; each of a batch of runs, min_time)")
		} else {
			t.Head = append(t.Head, "spread of the runs (CV)")
		}
	}
	for _, p := range rec.Params {
		t.Head = append(t.Head, p.Name)
	}
	objText, timeText := column(objs, 5), column(times, 5)
	for r, i := range ok {
		row := []string{strconv.Itoa(r + 1), objText[r]}
		if withTime {
			row = append(row, timeText[r])
		}
		if withDevice {
			row = append(row, cmp.Or(rec.Evaluations[i].Device, "-"))
		}
		if withSpread {
			row = append(row, spreads[r])
		}
		for _, v := range rec.Evaluations[i].Config {
			row = append(row, v.String())
		}
		t.Rows = append(t.Rows, row)
	}
	return Section{Title: "Best configurations", Text: leftOut, Tables: []Table{t}}
}

// severalDevices reports whether the evaluations name more than one device that measured
// them.
func severalDevices(es []result.Evaluation) bool {
	first := ""
	for i := range es {
		switch d := es[i].Device; {
		case d == "":
		case first == "":
			first = d
		case d != first:
			return true
		}
	}
	return false
}

// analysisSections analyses the input and turns the result into sections with figures.
func analysisSections(ctx context.Context, in analysis.Input, o Options) ([]Section, error) {
	ao := o.Analysis
	r, err := analysis.Analyze(ctx, in, ao)
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "ktune-report-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	files, err := analysis.WriteFigures(ctx, []*analysis.Result{r}, dir, analysis.FigureOptions{GraphNodes: o.GraphNodes})
	if err != nil {
		return nil, err
	}
	figs := map[string]Figure{}
	for _, f := range files {
		if filepath.Ext(f) != ".svg" {
			continue
		}
		fig, err := FigureFile(f, figureTitle(filepath.Base(f)))
		if err != nil {
			return nil, err
		}
		figs[filepath.Base(f)] = fig
	}
	take := func(prefix string) []Figure {
		var out []Figure
		var names []string
		for n := range figs {
			if strings.HasPrefix(n, prefix) {
				names = append(names, n)
			}
		}
		// By name without the extension, so "x.svg" comes before "x-second.svg".
		sort.Slice(names, func(i, j int) bool {
			return strings.TrimSuffix(names[i], ".svg") < strings.TrimSuffix(names[j], ".svg")
		})
		for _, n := range names {
			out = append(out, figs[n])
			delete(figs, n)
		}
		return out
	}

	var secs []Section
	// the caveat on the empirical indices stands in their section, and the recording's own
	// warnings (a file read up to its last whole entry) in the summary
	var notes []string
	for _, w := range r.Warnings {
		if w != r.SobolWarning && !slices.Contains(in.Rec.Warnings, w) && (in.Run == nil || !slices.Contains(in.Run.Warnings, w)) {
			notes = append(notes, sentence(w))
		}
	}
	if len(notes) > 0 {
		secs = append(secs, Section{Title: "Notes", Text: notes})
	}
	if a := r.Landscape; a != nil {
		s := Section{Title: "Landscape"}
		better := "lower"
		if r.Maximize {
			better = "higher"
		}
		s.Text = append(s.Text, fmt.Sprintf("Space of %s (%s mode, %d failed) under the %s neighbourhood. "+
			"A point is a local optimum when no neighbour is better (none has a %s %s), and a locally worst point when every neighbour is better. "+
			"The fitness flow graph has an edge to every neighbour at least as good, and the PageRank of a local optimum is the chance that a long random "+
			"first-improvement walk ends there (%s, Section VII).",
			plural(a.Points, "configuration", "configurations"), r.LandscapeMode, a.Failed, a.Neighbourhood, better, r.Objective, refBenchmarking))
		if a.FractionNote != "" {
			note := strings.ToUpper(a.FractionNote[:1]) + a.FractionNote[1:]
			s.Text = append(s.Text, note+"; the local optima's fraction of optimum is not shown.")
		}
		s.Tables = append(s.Tables, Table{Caption: "Points", Head: []string{"class", "points"}, Rows: [][]string{
			{"local optima (no better neighbour)", strconv.Itoa(a.Minima)}, {"locally worst (every neighbour better)", strconv.Itoa(a.Maxima)},
			{"saddles", strconv.Itoa(a.Saddles)}, {"regular", strconv.Itoa(a.Regular)},
			{"flow graph edges", strconv.Itoa(a.Edges)}, {"PageRank iterations", strconv.Itoa(a.PageRankIterations)}}})
		cp := Table{Caption: "Proportion of centrality C_p of the local optima within p of the optimum", Head: []string{"p"}}
		row := []string{"C_p"}
		for _, pr := range a.Proportions {
			cp.Head = append(cp.Head, fmt.Sprintf("%g%%", math.Round(pr.P*100)))
			row = append(row, fnum(pr.C))
		}
		cp.Rows = [][]string{row}
		s.Tables = append(s.Tables, cp)
		s.Figures = append(s.Figures, take("minima")...)
		s.Figures = append(s.Figures, take("centrality")...)
		if ffg := take("ffg-"); len(ffg) > 0 {
			s.Figures = append(s.Figures, ffg...)
		} else {
			s.Text = append(s.Text, flowGraphLeftOut(a.Points, o.GraphNodes))
		}
		if warn := smallSample(isolated(in.Rec, ao.Neighbourhood)); warn != "" {
			s.Callouts = append(s.Callouts, Callout{Warning, warn})
			s.Collapsed = "Show the landscape statistics of the sample anyway"
		}
		secs = append(secs, s)
	}
	if len(r.Significance) > 0 {
		s := Section{Title: "Parameter significance"}
		good := "negative"
		if r.Maximize {
			good = "positive"
		}
		s.Text = append(s.Text, fmt.Sprintf("Correlation of each parameter's value with %s (%s) over the %s (%s, Section 3.1). "+
			"A %s coefficient means larger values of the parameter are better. Pearson measures linear association, Spearman rank (monotone) association.",
			headWithUnit(r.Objective), direction(r.Maximize), plural(r.Valid, "valid configuration", "valid configurations"), refSensitivity, good))
		t := Table{Head: []string{"parameter", "Pearson", "Spearman", "configurations"}}
		someVary := slices.ContainsFunc(r.Significance, func(c sensitivity.Correlation) bool { return !math.IsNaN(c.Pearson) })
		for _, c := range r.Significance {
			name := c.Param
			switch {
			case c.Ordinal:
				name += " (by position)"
			case math.IsNaN(c.Pearson) && someVary:
				// as the significance chart labels it: one value over these configurations
				name += " (constant)"
			}
			t.Rows = append(t.Rows, []string{name, fnum(c.Pearson), fnum(c.Spearman), strconv.Itoa(c.N)})
		}
		s.Tables = append(s.Tables, t)
		s.Figures = append(s.Figures, take("significance-")...)
		secs = append(secs, s)
	}
	for _, so := range []struct {
		title, prefix string
		s             *sensitivity.Sobol
	}{{"Sensitivity (Sobol indices)", "sensitivity-", r.Sobol}, {"Sensitivity from the run's Saltelli design", "saltelli-", r.Saltelli}} {
		sob := so.s
		if sob == nil {
			continue
		}
		s := Section{Title: so.title}
		intervals := fmt.Sprintf("95%% bootstrap intervals from %d resamples", sob.Bootstrap)
		switch {
		case sob.Method == sensitivity.Exact:
			intervals = "no intervals, as exact indices have no sampling error"
		case sob.Bootstrap == 0:
			intervals = "no intervals (--bootstrap 0)"
		}
		s.Text = append(s.Text, fmt.Sprintf("Method %s over %s; %s. "+
			"First order: the share of the variance of %s due to the parameter alone; total order: including all its interactions (%s, Section 3.2).",
			sob.Method, plural(sob.Samples, "sample", "samples"), intervals, r.Objective, refSensitivity))
		if sob.Note != "" {
			s.Text = append(s.Text, sentence(sob.Note))
		}
		// columns of intervals only where there are intervals (not for exact indices)
		withIntervals := sob.Bootstrap > 0
		t := Table{Head: []string{"parameter", "first order", "95% interval", "total order", "95% interval"}}
		if !withIntervals {
			t.Head = []string{"parameter", "first order", "total order"}
		}
		for i, name := range sob.Params {
			row := []string{name, fnum(sob.First[i].Value), span(sob.First[i].Low, sob.First[i].High),
				fnum(sob.Total[i].Value), span(sob.Total[i].Low, sob.Total[i].High)}
			if !withIntervals {
				row = []string{row[0], row[1], row[3]}
			}
			t.Rows = append(t.Rows, row)
		}
		s.Tables = append(s.Tables, t)
		if pairs := strongestPairs(sob.Second); len(pairs) > 0 {
			caption := fmt.Sprintf("The %d strongest second-order interactions by absolute value", len(pairs))
			if len(pairs) == 1 {
				caption = "The second-order interaction"
			}
			pt := Table{Caption: caption,
				Head: []string{"pair", "index", "95% interval"}}
			if !withIntervals {
				pt.Head = pt.Head[:2]
			}
			for _, pr := range pairs {
				row := []string{sob.Params[pr.I] + " x " + sob.Params[pr.J], fnum(pr.Index.Value), span(pr.Index.Low, pr.Index.High)}
				pt.Rows = append(pt.Rows, row[:len(pt.Head)])
			}
			s.Tables = append(s.Tables, pt)
		}
		s.Figures = append(s.Figures, take(so.prefix)...)
		if sob == r.Sobol && r.SobolWarning != "" {
			s.Callouts = append(s.Callouts, Callout{Warning, sentence(r.SobolWarning)})
			s.Collapsed = "Show the indices of the sample anyway"
		}
		secs = append(secs, s)
	}
	return secs, nil
}

// strongestPairs are the ten strongest second-order interactions by absolute value, as the
// interactions figure ranks them: pairs without an estimate left out, ties in the order the
// indices list them.
func strongestPairs(second []sensitivity.Pair) []sensitivity.Pair {
	pairs := slices.DeleteFunc(slices.Clone(second), func(p sensitivity.Pair) bool { return math.IsNaN(p.Index.Value) })
	sort.SliceStable(pairs, func(a, b int) bool { return math.Abs(pairs[a].Index.Value) > math.Abs(pairs[b].Index.Value) })
	return pairs[:min(10, len(pairs))]
}

func figureTitle(file string) string {
	base := strings.TrimSuffix(file, filepath.Ext(file))
	if strings.HasSuffix(base, "-second") {
		return "Strongest second-order interactions by absolute value (Sobol)"
	}
	for prefix, title := range map[string]string{
		"minima":        "Fraction of optimal fitness of the local optima (as in " + refBenchmarking + ", Fig. 3)",
		"centrality":    "Proportion of centrality C_p (as in " + refBenchmarking + ", Fig. 7)",
		"ffg-":          "Fitness flow graph (as in " + refBenchmarking + ", Fig. 6)",
		"significance-": "Parameter significance", "sensitivity-": "Sobol sensitivity indices",
		"saltelli-": "Sobol indices from the Saltelli design", "convergence": "Convergence",
	} {
		if strings.HasPrefix(base, prefix) {
			return title
		}
	}
	return base
}

// sentence is a note of the analysis, written as a clause ("only 7 valid configurations,
// ..."), as a sentence of the page: its first word capitalised when it is a plain word
// (a name such as "energy_j", "GB/s" or a path is kept as written) and a full stop at
// its end.
func sentence(s string) string {
	s = strings.TrimSpace(s)
	first, _, _ := strings.Cut(s, " ")
	first = strings.TrimRight(first, ",:;")
	plain := first != ""
	for _, r := range first {
		plain = plain && r >= 'a' && r <= 'z'
	}
	if plain {
		s = strings.ToUpper(s[:1]) + s[1:]
	}
	if s != "" && !strings.ContainsAny(s[len(s)-1:], ".!?") {
		s += "."
	}
	return s
}

func fnum(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "-"
	}
	return strconv.FormatFloat(v, 'f', 3, 64)
}

func span(lo, hi float64) string {
	if math.IsNaN(lo) || math.IsNaN(hi) {
		return "-"
	}
	return "[" + fnum(lo) + ", " + fnum(hi) + "]"
}

// The papers the page's methods come from, as the text cites them; References lists them
// in full.
const (
	refBenchmarking = "Schoonhoven et al. (2022)"
	refSensitivity  = "Jansen (2025)"
)

// references are the works a page may cite, by how the text cites them.
var references = []struct{ cite, full string }{
	{refBenchmarking, "R. Schoonhoven, B. van Werkhoven and K. J. Batenburg, Benchmarking optimization algorithms for auto-tuning GPU kernels, " +
		"IEEE Transactions on Evolutionary Computation, 2022."},
	{refSensitivity, "T. Jansen, Analyzing Optimization Variables in GPU Kernel Tuning, bachelor thesis, " +
		"Leiden Institute of Advanced Computer Science (LIACS), Leiden University, 2025."},
}

// cite ends the page with a References section listing the works its text cites.
func (p *Page) cite() {
	var text strings.Builder
	for _, s := range p.Sections {
		for _, c := range s.Callouts {
			text.WriteString(c.Text)
		}
		for _, t := range s.Text {
			text.WriteString(t)
		}
		for _, t := range s.Tables {
			text.WriteString(t.Caption)
		}
		for _, f := range s.Figures {
			text.WriteString(f.Title)
		}
	}
	var refs []string
	for _, r := range references {
		if strings.Contains(text.String(), r.cite) {
			refs = append(refs, r.cite+": "+r.full)
		}
	}
	if len(refs) > 0 {
		p.Sections = append(p.Sections, Section{Title: "References", Text: refs})
	}
}

// minLandscapePoints is the fewest configurations whose landscape statistics the page
// shows without a warning.
const minLandscapePoints = 20

// isolated counts the distinct configurations the recording evaluated (restricted ones
// aside) and, of those, the ones without an evaluated neighbour under nb (Hamming: one
// parameter changed to any value; adjacent: one parameter moved to the next or previous
// value in its list).
func isolated(rec *result.Recording, nb space.Neighbourhood) (lone, points int) {
	seen := map[string]bool{}
	var cfgs [][]int
	for i := range rec.Evaluations {
		e := &rec.Evaluations[i]
		if e.Status == result.Restricted || len(e.Config) != len(rec.Params) {
			continue
		}
		idx := make([]int, len(e.Config))
		for p, v := range e.Config {
			idx[p] = rec.Params[p].Index(v)
		}
		if k := key(idx); !seen[k] {
			seen[k] = true
			cfgs = append(cfgs, idx)
		}
	}
	// Hamming: configurations that agree everywhere but in p share a key with p wildcarded.
	hamming := nb == space.Hamming || nb == 0 // as landscape.Analyze reads a zero neighbourhood
	wild := map[string]int{}
	if hamming {
		for _, c := range cfgs {
			for p := range c {
				wild[wildKey(c, p)]++
			}
		}
	}
	for _, c := range cfgs {
		has := false
		for p := range c {
			if hamming {
				has = wild[wildKey(c, p)] > 1
			} else {
				for _, d := range []int{-1, 1} {
					c[p] += d
					has = has || seen[key(c)]
					c[p] -= d
				}
			}
			if has {
				break
			}
		}
		if !has {
			lone++
		}
	}
	return lone, len(cfgs)
}

func key(idx []int) string {
	var b strings.Builder
	for _, i := range idx {
		b.WriteString(strconv.Itoa(i))
		b.WriteByte(',')
	}
	return b.String()
}

func wildKey(idx []int, p int) string {
	c := slices.Clone(idx)
	c[p] = -2
	return key(c)
}

// smallSample says why a sample of points, lone of them without an evaluated neighbour, is
// too small for landscape statistics; "" when it is not.
// have is the verb for n things: "has" for one.
func have(n int) string {
	if n == 1 {
		return "has"
	}
	return "have"
}

func smallSample(lone, points int) string {
	const worth = "A run that evaluates more of the space, or a recorded whole space, gives a landscape worth reading."
	switch {
	case points == 0:
		return ""
	case lone*4 >= points:
		return fmt.Sprintf("Too small a sample for landscape statistics: %d of the %s evaluated %s no evaluated neighbour "+
			"(a lone point counts as a local optimum), so the numbers below say more about which configurations were sampled than about the space. %s",
			lone, plural(points, "configuration", "configurations"), have(lone), worth)
	case points < minLandscapePoints:
		was := "were"
		if points == 1 {
			was = "was"
		}
		return fmt.Sprintf("Too small a sample for landscape statistics: only %s %s evaluated (fewer than %d), "+
			"so the counts and centralities below rest on a handful of points. %s", plural(points, "configuration", "configurations"), was, minLandscapePoints, worth)
	}
	return ""
}

// flowGraphLeftOut says why a landscape section has no flow graph, and how to get one.
func flowGraphLeftOut(points, limit int) string {
	if limit <= 0 {
		return fmt.Sprintf("The fitness flow graph figure is left out (--graph-nodes 0); 'ktune report --graph-nodes %d' draws it.", points)
	}
	return fmt.Sprintf("The fitness flow graph figure is left out: its %d nodes are more than --graph-nodes %d allows, since a graph that large takes long to lay out and reads as a blur; "+
		"'ktune report --graph-nodes %d' draws it all the same.", points, limit, points)
}
