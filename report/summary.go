package report

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ktune/ktune/expr"
	"github.com/ktune/ktune/result"
	"github.com/ktune/ktune/runner"
	"github.com/ktune/ktune/spec"
	"github.com/ktune/ktune/store"
)

// sameFailures is how many configurations, from the first, 'ktune tune' lets fail with
// one message before it stops the run (tuner's StopSameFailure).
const sameFailures = 10

// runFacts is what a run's summary says beyond its stored settings: what it found, against
// what, and why it stopped. 'ktune tune' prints the same from its tuner.Report; a report
// reads the run back from the store, so it works them out from the stored evaluations, the
// run's settings and its spec file.
type runFacts struct {
	info      store.RunInfo
	rec       *result.Recording
	budget    int           // the run's budget; 0 when none (or not recorded)
	timeLimit time.Duration // 0 when none
	specPath  string        // the spec the run tuned, as recorded
	spec      *spec.Spec    // that spec as its file reads now; nil when it cannot be read
	specErr   error
	spaceSize int    // configurations the restrictions allow (an import without them: it holds); 0 when unknown
	spaceNote string // what spaceSize counts, for the settings table

	// ok counts the successful evaluations of configurations found wrong nowhere in the
	// run; foundWrong those of configurations found wrong (result.Recording.FoundWrong),
	// which count nowhere as a success: not in the median, not as the best nor the default
	ok, foundWrong int
	best           int     // index of the best evaluation; -1 when none succeeded
	median         float64 // of the successful objectives counted in ok; NaN when none
	def            int     // index of the default configuration's evaluation; -1 when unknown
	defNote        string  // what is known of the default when def is -1; "" for nothing to say
}

// factsOf works out a run's facts.
func factsOf(info store.RunInfo, rec *result.Recording) *runFacts {
	f := &runFacts{info: info, rec: rec, best: -1, def: -1, median: math.NaN()}
	var settings struct {
		Budget    int    `json:"budget"`
		TimeLimit string `json:"time_limit"`
		Spec      string `json:"spec"`
	}
	if len(info.Settings) > 0 && json.Unmarshal(info.Settings, &settings) == nil {
		f.budget = settings.Budget
		f.timeLimit, _ = time.ParseDuration(settings.TimeLimit)
		f.specPath = settings.Spec
	}
	if f.specPath != "" {
		// Parse reads no kernel source: the spec's default configuration and statistic
		// are all the report needs of it.
		data, err := os.ReadFile(f.specPath)
		if err == nil {
			f.spec, err = spec.Parse(data, f.specPath)
		}
		f.specErr = err
	}
	if sp, err := expr.NewSpace(rec.Params, rec.Restrictions); err == nil {
		f.spaceSize, f.spaceNote = sp.Len(), "allowed by the restrictions"
		if len(rec.Restrictions) == 0 {
			f.spaceNote = "the full product of the values; no restrictions"
		}
	}
	if info.Kind != store.KindTuning && len(rec.Restrictions) == 0 {
		// A recording without restrictions (a Kernel Tuner cache) is its own space: the
		// configurations it holds, as simulate and analyze take it.
		seen := map[string]bool{}
		for i := range rec.Evaluations {
			seen[store.ConfigKey(rec.Evaluations[i].Config)] = true
		}
		f.spaceNote = "the recorded ones; the recording has no restrictions"
		if full := f.spaceSize; full > len(seen) {
			f.spaceNote = fmt.Sprintf("the recorded ones; the recording has no restrictions, and the full product of the values has %d", full)
		}
		f.spaceSize = len(seen)
	}
	var objs []float64
	// a configuration found wrong anywhere in the run computes wrong answers on some
	// input: never the best, and no part of the median the best is compared with
	wrong := rec.FoundWrong()
	for i := range rec.Evaluations {
		e := &rec.Evaluations[i]
		if e.Failed() {
			continue
		}
		if wrong(e) {
			f.foundWrong++
			continue
		}
		objs = append(objs, e.Objective)
		if f.best < 0 || better(rec.Maximize, e.Objective, rec.Evaluations[f.best].Objective) {
			f.best = i
		}
	}
	f.ok = len(objs)
	if len(objs) > 0 {
		slices.Sort(objs)
		f.median = objs[len(objs)/2]
		if len(objs)%2 == 0 {
			f.median = (objs[len(objs)/2-1] + objs[len(objs)/2]) / 2
		}
	}
	f.def, f.defNote = f.findDefault()
	return f
}

// findDefault finds the evaluation of the spec's default configuration: 'ktune tune'
// measures it before anything else, so it is the run's first evaluation.
func (f *runFacts) findDefault() (int, string) {
	switch {
	case f.info.Kind != store.KindTuning:
		return -1, ""
	case f.specPath == "":
		return -1, "unknown (the run does not record its spec)"
	case f.spec == nil:
		return -1, fmt.Sprintf("unknown: the run's spec %s cannot be read now (%v)", f.specPath, f.specErr)
	case f.spec.Default == nil:
		return -1, "none: the spec gives no default_config"
	case len(f.rec.Evaluations) == 0:
		return -1, "not measured yet"
	case store.ConfigKey(f.rec.Evaluations[0].Config) != store.ConfigKey(f.spec.Default):
		return -1, fmt.Sprintf("unknown: the default_config of %s is not the run's first evaluation (the spec changed since the run?)", f.specPath)
	}
	return 0, ""
}

// defaultObjective is the default configuration's objective, to compare the best with:
// false when it is unknown, did not run successfully, or was found wrong in the run
// (defaultFoundWrong), whose time is no reference for a right answer's.
func (f *runFacts) defaultObjective() (float64, bool) {
	if f.def < 0 || f.rec.Evaluations[f.def].Failed() || f.defaultFoundWrong() {
		return math.NaN(), false
	}
	return f.rec.Evaluations[f.def].Objective, true
}

// defaultFoundWrong reports whether the default configuration ran successfully and has a
// wrong_answer evaluation in the run too (result.Recording.FoundWrong).
func (f *runFacts) defaultFoundWrong() bool {
	return f.def >= 0 && f.foundWrong > 0 && !f.rec.Evaluations[f.def].Failed() && f.rec.FoundWrong()(&f.rec.Evaluations[f.def])
}

// statistic is how the run's spec combines timing samples into a time.
func (f *runFacts) statistic() string {
	if f.spec != nil {
		return f.spec.Statistic
	}
	return spec.DefaultStatistic
}

// foundWrongWhy says why n successful evaluations count nowhere as a success.
func foundWrongWhy(n int) string {
	if n == 1 {
		return "its configuration has a wrong_answer evaluation in the run (found wrong by a verification, or by a check after dynamic tuning)"
	}
	return "their configurations have a wrong_answer evaluation in the run (found wrong by a verification, or by a check after dynamic tuning)"
}

// failed reports whether the run ended without one successful configuration that was not
// found wrong.
func (f *runFacts) failed() bool {
	return f.ok == 0 && len(f.rec.Evaluations) > 0 && f.info.Status == store.StatusFinished
}

// ofBudget is "N of a budget of B evaluations", or "N evaluations" without a budget.
func (f *runFacts) ofBudget() string {
	n := len(f.rec.Evaluations)
	if f.budget > 0 {
		return fmt.Sprintf("%d of a budget of %d evaluations", n, f.budget)
	}
	return plural(n, "evaluation", "evaluations")
}

// sameFailure says how the configurations of a run where none succeeded failed, when
// the first of them (up to sameFailures) all failed with one message; "" otherwise.
func (f *runFacts) sameFailure() string {
	es := f.rec.Evaluations
	if f.ok > 0 || len(es) == 0 {
		return ""
	}
	first := es[0]
	for _, e := range es[:min(len(es), sameFailures)] {
		if e.Status != first.Status || e.Message != first.Message || e.Message == "" {
			return ""
		}
	}
	who := fmt.Sprintf("the first %d configurations", sameFailures)
	if len(es) <= sameFailures {
		who = "all " + plural(len(es), "configuration", "configurations")
	}
	return fmt.Sprintf("%s failed the same way (%s: %s)", who, first.Status, firstLine(first.Message))
}

// stop says why a run stopped, as 'ktune tune' prints it; "" for a run that is not a
// finished tuning run.
func (f *runFacts) stop() string {
	if f.info.Kind != store.KindTuning || f.info.Status != store.StatusFinished {
		return ""
	}
	n := len(f.rec.Evaluations)
	switch {
	case f.ok == 0 && f.sameFailure() != "":
		return f.sameFailure()
	// a run where nothing succeeded stops as any other ('ktune tune' says "space
	// exhausted"); that nothing succeeded, its state and headline say
	case f.budget > 0 && n >= f.budget:
		return fmt.Sprintf("its budget of %d evaluations was spent", f.budget)
	case f.spaceSize > 0 && n >= f.spaceSize:
		return "every configuration of the space was evaluated"
	case f.timeLimit > 0 && !f.info.Finished.IsZero() && f.info.Finished.Sub(f.info.Started) >= f.timeLimit:
		return fmt.Sprintf("its time limit of %s passed", f.timeLimit)
	}
	return "the strategy had nothing left to try"
}

// state is the run's status in a few words, for the subtitle and the settings table.
func (f *runFacts) state() string {
	switch {
	case f.failed() && f.foundWrong > 0:
		return "failed: no configuration ran successfully that was not found wrong"
	case f.failed():
		return "failed: no configuration ran successfully"
	case f.info.Status == store.StatusInterrupted:
		return "interrupted after " + f.ofBudget()
	case f.info.Status == store.StatusRunning:
		return "running: " + f.ofBudget() + " so far"
	case f.info.Status == store.StatusFinished && f.info.Kind == store.KindTuning:
		return "finished: " + f.stop()
	}
	return string(f.info.Status)
}

// callouts are the headline of the summary: the state of a run that did not finish well,
// then the result.
func (f *runFacts) callouts() []Callout {
	var out []Callout
	switch st := f.info.Status; {
	case f.failed():
		why := ""
		if st := f.stop(); st != "" {
			why = "; " + st
		}
		if f.foundWrong > 0 {
			out = append(out, Callout{Failure, fmt.Sprintf("Failed: none of the %s ran successfully without being found wrong%s (%s that ran successfully: %s). The failures below say why.",
				plural(len(f.rec.Evaluations), "configuration evaluated", "configurations evaluated"), why, plural(f.foundWrong, "evaluation", "evaluations"), foundWrongWhy(f.foundWrong))})
			break
		}
		out = append(out, Callout{Failure, fmt.Sprintf("Failed: none of the %s ran successfully%s. The failures below say why.",
			plural(len(f.rec.Evaluations), "configuration evaluated", "configurations evaluated"), why)})
	case st == store.StatusInterrupted && f.info.Kind == store.KindTuning:
		how := ""
		if f.info.Finished.IsZero() {
			how = " (its ktune tune process ended without recording how)"
		}
		next := "run the same ktune tune command again to resume it"
		if f.budget > 0 && len(f.rec.Evaluations) >= f.budget {
			next = "run the same ktune tune command with a larger --budget to go on with it"
		}
		out = append(out, Callout{Warning, fmt.Sprintf("Partial results: the run was interrupted%s after %s; %s. What follows covers the evaluations made so far.",
			how, f.ofBudget(), next)})
	case st == store.StatusRunning:
		out = append(out, Callout{Warning, fmt.Sprintf("Partial results: the run is still going (%s so far); what follows covers the evaluations made when this page was written.",
			f.ofBudget())})
	}
	if f.best >= 0 {
		out = append(out, Callout{Result, f.headline()})
	}
	return out
}

// headline is the best result in one sentence, against the default and the median.
func (f *runFacts) headline() string {
	rec := f.rec
	b := &rec.Evaluations[f.best]
	obj := objectiveName(rec)
	s := fmt.Sprintf("Best %s: %s", obj, withUnit(b.Objective, obj))
	if t := timeMS(b, f.statistic()); obj != "time" && !math.IsNaN(t) {
		s += fmt.Sprintf(" (time %s)", withUnit(t, "time"))
	}
	var vs []string
	if d, ok := f.defaultObjective(); ok {
		vs = append(vs, fmt.Sprintf("%s the default configuration (%s)", result.Better(rec.Maximize, b.Objective, d), withUnit(d, obj)))
	}
	if f.ok > 1 {
		vs = append(vs, fmt.Sprintf("%s the median configuration evaluated (%s)", result.Better(rec.Maximize, b.Objective, f.median), withUnit(f.median, obj)))
	}
	if len(vs) > 0 {
		s += ", " + strings.Join(vs, " and ")
	}
	return s + "."
}

// resultTable lists what the run found: the best configuration, its objective and time,
// the default and the median beside it, how much it evaluated and why it stopped.
func (f *runFacts) resultTable() Table {
	rec := f.rec
	obj := objectiveName(rec)
	t := Table{Caption: "Result", KeyValue: true}
	add := func(k, v string) {
		if v != "" {
			t.Rows = append(t.Rows, []string{k, v})
		}
	}
	if f.best >= 0 {
		b := &rec.Evaluations[f.best]
		add("best "+obj, withUnit(b.Objective, obj))
		if tm := timeMS(b, f.statistic()); obj != "time" && !math.IsNaN(tm) {
			add("best time", withUnit(tm, "time")+" ("+f.statistic()+" of its samples)")
		}
		add("best configuration", configText(rec, b))
	}
	switch {
	case f.def >= 0 && rec.Evaluations[f.def].Failed():
		e := &rec.Evaluations[f.def]
		add("default configuration", fmt.Sprintf("%s: did not run successfully (%s)", configText(rec, e), e.Status))
	case f.defaultFoundWrong():
		add("default configuration", fmt.Sprintf("%s: ran successfully but was found wrong (a wrong_answer evaluation in the run), so the best is not compared with it",
			configText(rec, &rec.Evaluations[f.def])))
	case f.def >= 0 && f.best >= 0:
		e := &rec.Evaluations[f.def]
		add("default configuration", fmt.Sprintf("%s: %s; the best is %s it", withUnit(e.Objective, obj), configText(rec, e),
			result.Better(rec.Maximize, rec.Evaluations[f.best].Objective, e.Objective)))
	default:
		add("default configuration", f.defNote)
	}
	if f.ok > 1 {
		add("median of the configurations evaluated", fmt.Sprintf("%s; the best is %s it", withUnit(f.median, obj),
			result.Better(rec.Maximize, rec.Evaluations[f.best].Objective, f.median)))
	}
	ev := fmt.Sprintf("%s, %d successful", f.ofBudget(), f.ok)
	if f.info.Kind == store.KindTuning && f.budget == 0 {
		ev += " (no budget)"
	}
	if f.foundWrong > 0 {
		ev += fmt.Sprintf("; %s left out of the successful and the median: %s",
			plural(f.foundWrong, "more that ran successfully is", "more that ran successfully are"), foundWrongWhy(f.foundWrong))
	}
	add("evaluations", ev)
	if f.spaceSize > 0 {
		add("space size", plural(f.spaceSize, "configuration", "configurations")+" ("+f.spaceNote+")")
	}
	add("stopped", f.stop())
	return t
}

// objectiveName is the recording's objective; "time" when it names none.
func objectiveName(rec *result.Recording) string {
	if rec.Objective == "" {
		return "time"
	}
	return rec.Objective
}

// headWithUnit is a column header for an objective: "time (ms)", "GFLOP/s".
func headWithUnit(objective string) string {
	if u := result.Unit(objective); u != objective {
		return objective + " (" + u + ")"
	}
	return objective
}

// objectiveText is an objective with its unit and direction: "time in ms (lower is
// better)", "GFLOP/s (higher is better)".
func objectiveText(objective string, maximize bool) string {
	if u := result.Unit(objective); u != objective {
		objective += " in " + u
	}
	return objective + " (" + direction(maximize) + ")"
}

// withUnit is a value with five significant digits and its unit: "10.476 ms".
func withUnit(v float64, objective string) string {
	if math.IsNaN(v) {
		return "-"
	}
	return strconv.FormatFloat(v, 'g', 5, 64) + " " + result.Unit(objective)
}

// timeMS is an evaluation's kernel time in ms beside another objective: the time the run
// used (the "time" metric runs and recordings keep), or for runs stored before ktune kept
// it, its samples combined by the spec's statistic; NaN when neither is there.
func timeMS(e *result.Evaluation, statistic string) float64 {
	if t, ok := e.Metrics["time"]; ok {
		return t
	}
	return runner.TimeMS(statistic, e.Samples)
}

// configText is an evaluation's configuration as name=value pairs.
func configText(rec *result.Recording, e *result.Evaluation) string {
	var cfg []string
	for p, v := range e.Config {
		name := strconv.Itoa(p)
		if p < len(rec.Params) {
			name = rec.Params[p].Name
		}
		cfg = append(cfg, name+"="+v.String())
	}
	return strings.Join(cfg, ", ")
}

// better reports whether x is better than y in the objective's direction.
func better(maximize bool, x, y float64) bool {
	if maximize {
		return x > y
	}
	return x < y
}

// firstLine is the first line of s, cut at 200 bytes.
func firstLine(s string) string {
	s, _, cut := strings.Cut(strings.TrimSpace(s), "\n")
	if len(s) > 200 {
		s, cut = s[:200], true
	}
	if cut {
		s += " ..."
	}
	return s
}

// column formats one column's numbers alike, so that they line up: with the same number
// of decimals, enough for sig significant digits of the largest; in scientific notation
// when the values span so many orders of magnitude that fixed decimals would lose the
// smallest. NaN is "-".
func column(vals []float64, sig int) []string {
	big, small := 0.0, math.Inf(1)
	for _, v := range vals {
		if a := math.Abs(v); !math.IsNaN(v) && !math.IsInf(v, 0) {
			big = max(big, a)
			if a > 0 {
				small = min(small, a)
			}
		}
	}
	decimals := 0
	if big > 0 {
		decimals = max(0, sig-1-int(math.Floor(math.Log10(big))))
	}
	// the smallest keeps at least two significant digits, within six decimals
	sci := big > 0 && (decimals > 6 || small < math.Pow(10, 1-float64(decimals)))
	out := make([]string, len(vals))
	for i, v := range vals {
		switch {
		case math.IsNaN(v):
			out[i] = "-"
		case sci:
			out[i] = strconv.FormatFloat(v, 'e', sig-1, 64)
		default:
			out[i] = strconv.FormatFloat(v, 'f', decimals, 64)
		}
	}
	return out
}

// settingsText is a JSON object of settings as "name: value" pairs, which wrap at their
// spaces where the JSON would not.
func settingsText(raw json.RawMessage) string {
	var m map[string]any
	if json.Unmarshal(raw, &m) != nil {
		return string(raw)
	}
	var kv []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		kv = append(kv, strings.ReplaceAll(k, "_", " ")+": "+settingValue(m[k]))
	}
	return strings.Join(kv, ", ")
}

// settingValue writes a setting's value as text: an object as its members, "name value"
// separated by semicolons in brackets (a run's input fingerprints: the spec, the kernel
// source, the device software), a list by commas, a string as it is, anything else as JSON.
func settingValue(v any) string {
	switch v := v.(type) {
	case map[string]any:
		var kv []string
		for _, k := range slices.Sorted(maps.Keys(v)) {
			kv = append(kv, k+" "+settingValue(v[k]))
		}
		return "(" + strings.Join(kv, "; ") + ")"
	case []any:
		parts := make([]string, len(v))
		for i, e := range v {
			parts[i] = settingValue(e)
		}
		return strings.Join(parts, ", ")
	case string:
		return v
	}
	b, _ := json.Marshal(v)
	return string(b)
}
