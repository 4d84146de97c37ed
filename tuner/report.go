package tuner

import (
	"maps"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/ktune/ktune/device"
	"github.com/ktune/ktune/efficiency"
	"github.com/ktune/ktune/result"
	"github.com/ktune/ktune/runner"
	"github.com/ktune/ktune/space"
	"github.com/ktune/ktune/spec"
	"github.com/ktune/ktune/store"
	"github.com/ktune/ktune/tuning"
)

// Report sums up a tuning run, all its evaluations included (those measured before a
// resumption too): what 'ktune tune' prints, and its --json form.
type Report struct {
	Run             int64          `json:"run"`
	Database        string         `json:"database"`
	Kernel          string         `json:"kernel"`
	Backend         string         `json:"backend"`
	Device          string         `json:"device"`
	Strategy        string         `json:"strategy"`
	StrategyOptions map[string]any `json:"strategy_options,omitempty"` // as given and from --defaults, canonically (strategy.Canonical)
	Seed            uint64         `json:"seed"`
	Objective       string         `json:"objective"`
	Maximize        bool           `json:"maximize"`
	SpaceSize       int            `json:"space_size"`
	// Evaluations is Resumed + Measured + DeviceExcluded: those the run had before this
	// command that cost budget, those this command measured, and the device_limits known
	// before compiling (the run's before and this command's), which cost none.
	Evaluations    int                `json:"evaluations"`
	Resumed        int                `json:"resumed_from_store"` // evaluations the run had before this command, that count against the budget
	Measured       int                `json:"measured"`           // evaluations this command measured
	Statuses       map[string]int     `json:"statuses"`
	DeviceExcluded int                `json:"device_excluded"` // device_limits known before compiling: not compiled, no budget spent
	Failures       []FailureSummary   `json:"failures,omitempty"`
	Best           Config             `json:"best_configuration,omitzero"`
	BestObjective  *float64           `json:"best_objective,omitempty"`
	BestMetrics    map[string]float64 `json:"best_metrics,omitempty"` // its time is BestTimeMS
	// BestNote is what the best evaluation says beside its success: the metrics that
	// could not be computed for it ("metrics left out: ..."), the timed runs left out for
	// its timeout ("timed over 5 of the spec's 32 iterations: ..."); LackingMetrics counts
	// the successful evaluations that lack metrics.
	BestNote       string `json:"best_note,omitempty"`
	LackingMetrics int    `json:"lacking_metrics,omitempty"`
	// ShortTimed counts the successful evaluations timed over fewer runs than the spec's
	// iterations, since more would have passed its timeout; Iterations and Timeout are the
	// spec's, for the summary.
	ShortTimed int           `json:"short_timed,omitempty"`
	Iterations int           `json:"-"`
	Timeout    time.Duration `json:"-"`
	BestTimeMS *float64      `json:"best_time_ms,omitempty"` // the best configuration's kernel time, whatever the objective
	// BestRuns is how many timed runs the best configuration's time is made of, BestTimeCV
	// their spread (result.Evaluation.SampleCV: 0.05 for 5%), left out with fewer than two;
	// MedianTimeCV is the median spread over the run's successful evaluations, and
	// WithinSpread counts the other successful evaluations whose objective is within the best's spread
	// of its objective (relatively): an order that a second run may not repeat.
	BestRuns     int      `json:"best_runs,omitempty"`
	BestTimeCV   *float64 `json:"best_time_cv,omitempty"`
	MedianTimeCV *float64 `json:"median_time_cv,omitempty"`
	WithinSpread int      `json:"within_spread_of_best,omitempty"`
	// BestRunsPerSample is how many runs each of the best's samples is made of, where
	// its runs went on for the spec's min_time (result.Evaluation.SampleRuns); left out at 1.
	// MinTimeBatched counts the successful evaluations whose runs went on so; MinTime is
	// the spec's, for the summary.
	BestRunsPerSample int           `json:"best_runs_per_sample,omitempty"`
	MinTimeBatched    int           `json:"min_time_batched,omitempty"`
	MinTime           time.Duration `json:"-"`
	// Verified says the successful configurations' outputs were checked against the spec's
	// verification: false where the spec has none, or no configuration succeeded.
	Verified        bool     `json:"verified"`
	MedianObjective *float64 `json:"median_objective,omitempty"`
	// SpeedupOverMed and SpeedupOverDef are how many times better the best is than the
	// median and the default (result.Speedup); left out where no ratio means anything, an
	// objective of 0 or below.
	SpeedupOverMed   *float64 `json:"speedup_over_median,omitempty"`
	DefaultObjective *float64 `json:"default_objective,omitempty"`
	DefaultStatus    string   `json:"default_status,omitempty"` // the default configuration's status when it failed
	// DefaultFoundWrong says the default configuration ran successfully but was found
	// wrong in the run (a wrong_answer evaluation of it): no reference for the best, so
	// DefaultObjective and SpeedupOverDef are left out.
	DefaultFoundWrong bool `json:"default_found_wrong,omitempty"`
	// FoundWrong counts the successful evaluations (under Statuses' ok) of configurations
	// found wrong anywhere in the run (result.Recording.FoundWrong), which count nowhere
	// as a success: not as the best, nor in the median, the spreads or WithinSpread.
	FoundWrong     int      `json:"found_wrong,omitempty"`
	SpeedupOverDef *float64 `json:"speedup_over_default,omitempty"`
	Stop           string   `json:"stop"`
	// StopCondition is Stop as a structure: which condition, what was reached and its
	// threshold; nil where the session gave no reason.
	StopCondition  *StopCondition `json:"stop_condition,omitempty"`
	WallSeconds    float64        `json:"wall_seconds"` // from Tune's call to the search's end, as Options.TimeLimit counts; 0 when nothing was searched
	WorkerRestarts int            `json:"worker_restarts"`
	// Devices says, for a run measured on several devices (Options.Device with a comma),
	// how many of this command's evaluations each measured; nil for one device.
	// DroppedAhead counts the configurations a device measured ahead of their ask that
	// the strategy never asked for: not stored, and no budget spent.
	Devices           []DeviceShare `json:"devices,omitempty"`
	DroppedAhead      int           `json:"dropped_ahead,omitempty"`
	MeanCompileMS     float64       `json:"mean_compile_ms"`   // over evaluations measured in this session
	MeanVerifyMS      float64       `json:"mean_verify_ms"`    // likewise
	MeanFrameworkMS   float64       `json:"mean_framework_ms"` // time outside compiling, verifying and running kernels, worker start-up included
	MedianFrameworkMS float64       `json:"median_framework_ms"`
	KernelMS          float64       `json:"kernel_ms"` // total time spent running kernels (the warm-up runs included)
	// CompilerWarnings are the distinct warnings the compiler printed for the run's
	// builds that succeeded (result.DistinctWarnings), most frequent first; Warned counts
	// the configurations whose build gave any, MoreWarnings the distinct warnings left out.
	CompilerWarnings []WarningSummary `json:"compiler_warnings,omitempty"`
	Warned           int              `json:"warned_configurations,omitempty"`
	MoreWarnings     int              `json:"more_compiler_warnings,omitempty"`
	// Efficiency is the best configuration's efficiency against the device's peaks (seed
	// 003, eq. 2), or why there is none; nil when the spec declares no essential_ops.
	Efficiency *efficiency.Summary `json:"efficiency,omitempty"`
	// MetricOrder is the spec's metrics in its order, which BestMetrics (a map) loses and
	// a summary keeps.
	MetricOrder []string `json:"-"`
}

// FailureSummary is what the configurations of one failing status said: the message most
// of them gave, with how many gave it and one of them.
type FailureSummary struct {
	Status  string `json:"status"`
	Count   int    `json:"count"`   // configurations with the status
	Same    int    `json:"same"`    // of those, how many gave Message
	Message string `json:"message"` // the most common message (cut at 2000 bytes)
	Example Config `json:"example"` // a configuration that gave it
}

// WarningSummary is one distinct compiler warning of a run.
type WarningSummary struct {
	Warning        string `json:"warning"`             // its text, with the source lines that belong to it (cut)
	Configurations int    `json:"configurations"`      // how many configurations' builds gave it
	First          Config `json:"first_configuration"` // the first configuration that gave it
}

// Config is a configuration by its parameters' names, in the space's parameter order; its
// JSON form is an object in that order (a map would sort the names).
type Config = space.Named

// configOf names c's values by sp's parameters.
func configOf(sp *space.Space, c space.Config) Config { return sp.Named(c) }

const maxFailureMessage = 2000

// failures sums up the failed evaluations by status, the most frequent status first.
func failures(sp *space.Space, history []tuning.Evaluated) []FailureSummary {
	type msgCount struct {
		n     int
		first space.Config
	}
	byStatus := map[result.Status]map[string]*msgCount{}
	count := map[result.Status]int{}
	for _, h := range history {
		e := h.Evaluation
		if e.Status == result.OK {
			continue
		}
		if byStatus[e.Status] == nil {
			byStatus[e.Status] = map[string]*msgCount{}
		}
		m := byStatus[e.Status][e.Message]
		if m == nil {
			m = &msgCount{first: h.Config}
			byStatus[e.Status][e.Message] = m
		}
		m.n++
		count[e.Status]++
	}
	var out []FailureSummary
	for st, msgs := range byStatus {
		var best string
		for msg, m := range msgs {
			if b := msgs[best]; b == nil || m.n > b.n || m.n == b.n && msg < best {
				best = msg
			}
		}
		m := msgs[best]
		f := FailureSummary{Status: st.String(), Count: count[st], Same: m.n, Message: best, Example: configOf(sp, m.first)}
		if len(f.Message) > maxFailureMessage {
			f.Message = f.Message[:maxFailureMessage] + " ..."
		}
		out = append(out, f)
	}
	slices.SortFunc(out, func(a, b FailureSummary) int {
		if a.Count != b.Count {
			return b.Count - a.Count
		}
		return strings.Compare(a.Status, b.Status)
	})
	return out
}

// runHistory is a run's evaluations: those stored before this command that its session
// did not ask for again (a resumed run's strategy replays its requests, answered from the
// store, but one that takes another path leaves some aside), then the session's, then the
// probes (sameFailure's draws) it did not ask for.
func runHistory(sp *space.Space, session []tuning.Evaluated, stored, probes []result.Evaluation) []tuning.Evaluated {
	asked := make(map[string]bool, len(session)+len(probes))
	for _, h := range session {
		asked[store.ConfigKey(h.Evaluation.Config)] = true
	}
	probed := unasked(sp, asked, probes)
	for _, p := range probed {
		asked[store.ConfigKey(p.Evaluation.Config)] = true
	}
	all := unasked(sp, asked, stored)
	all = append(all, session...)
	return append(all, probed...)
}

// unasked is the evaluations of evs whose configurations are not in asked (by
// store.ConfigKey) and lie in the space.
func unasked(sp *space.Space, asked map[string]bool, evs []result.Evaluation) []tuning.Evaluated {
	var out []tuning.Evaluated
	for _, e := range evs {
		if asked[store.ConfigKey(e.Config)] {
			continue
		}
		if c, err := sp.ConfigOf(e.Config); err == nil {
			out = append(out, tuning.Evaluated{Config: c, Evaluation: e})
		}
	}
	return out
}

// DeviceShare is what one of a run's several devices measured.
type DeviceShare struct {
	Device   string `json:"device"`   // as --device and the stored evaluations name it: "opencl:1"
	Index    int    `json:"index"`    // the device's index in its backend
	Measured int    `json:"measured"` // this command's evaluations it measured
	Ahead    int    `json:"ahead"`    // of those, how many before the strategy asked for them
}

// buildReport sums up the run: all its evaluations, those stored before this command
// and those measured outside the session (probes: the draws of sameFailure) included; the
// means of compile, verify and framework time are over those it measured (measured, by
// store.ConfigKey). free (nil: none) says which evaluations cost no budget.
func buildReport(sp *space.Space, s *spec.Spec, run int64, db, backend string, info device.Info, sum tuning.Summary,
	measured map[string]bool, def *result.Evaluation, stored, probes []result.Evaluation, crashes int, free func(result.Evaluation) bool) *Report {
	objective, maximize := s.Objective()
	history := runHistory(sp, sum.History, stored, probes)
	r := &Report{Run: run, Database: db, Kernel: s.Kernel.Name, Backend: backend, Device: info.Name, Strategy: sum.Strategy,
		Seed: sum.Seed, Objective: objective, Maximize: maximize, SpaceSize: sp.Len(), Evaluations: len(history),
		Resumed: counted(stored, free), Measured: len(measured), Statuses: map[string]int{}, Stop: string(sum.Stop),
		WallSeconds: sum.Wall.Seconds(), WorkerRestarts: crashes, Iterations: s.Iterations, Timeout: s.Timeout, MinTime: s.MinTime}
	var ok, fw, cvs []float64
	var best *tuning.Evaluated
	// a configuration found wrong anywhere in the run (a check after dynamic tuning, stored
	// before a resume) is never the best, nor a success of the median, the spreads or the
	// default's comparison (result.Recording.FoundWrong)
	wrong := map[string]bool{}
	for i := range history {
		if e := &history[i].Evaluation; e.Status == result.WrongAnswer {
			wrong[store.ConfigKey(e.Config)] = true
		}
	}
	for i := range history {
		h := &history[i]
		if measured[store.ConfigKey(h.Evaluation.Config)] {
			r.MeanCompileMS += h.Evaluation.CompileMS
			r.MeanVerifyMS += h.Evaluation.VerifyMS
			r.MeanFrameworkMS += h.Evaluation.FrameworkMS
			fw = append(fw, h.Evaluation.FrameworkMS)
			r.KernelMS += h.Evaluation.BenchmarkMS
		}
		r.Statuses[h.Evaluation.Status.String()]++
		if free != nil && free(h.Evaluation) {
			r.DeviceExcluded++
		}
		if e := h.Evaluation; !e.Failed() && wrong[store.ConfigKey(e.Config)] {
			r.FoundWrong++
		} else if !e.Failed() {
			ok = append(ok, e.Objective)
			if cv, has := e.SampleCV(); has {
				cvs = append(cvs, cv)
			}
			if strings.HasPrefix(e.Message, runner.MetricsLeftOut) {
				r.LackingMetrics++
			}
			if n := len(e.Samples); n > 0 && n < s.Iterations {
				r.ShortTimed++
			}
			if e.SampleRuns() > 1 {
				r.MinTimeBatched++
			}
			if best == nil || maximize && e.Objective > best.Evaluation.Objective || !maximize && e.Objective < best.Evaluation.Objective {
				best = h
			}
		}
	}
	r.Failures = failures(sp, history)
	evals := make([]result.Evaluation, len(history))
	for i, h := range history {
		evals[i] = h.Evaluation
		if h.Evaluation.Warnings != "" {
			r.Warned++
		}
	}
	ws, more := result.DistinctWarnings(evals)
	for _, w := range ws {
		r.CompilerWarnings = append(r.CompilerWarnings, WarningSummary{Warning: w.Text, Configurations: w.Count, First: configOf(sp, history[w.First].Config)})
	}
	r.MoreWarnings = more
	if len(fw) > 0 {
		r.MeanCompileMS /= float64(len(fw))
		r.MeanVerifyMS /= float64(len(fw))
		r.MeanFrameworkMS /= float64(len(fw))
		r.MedianFrameworkMS = median(fw)
	}
	if best != nil {
		r.Verified = s.Verification != nil
		r.Best = configOf(sp, best.Config)
		bestObjective := best.Evaluation.Objective
		r.BestObjective = &bestObjective
		// the time the evaluation keeps beside a metric objective is BestTimeMS
		r.BestNote = best.Evaluation.Message
		r.BestMetrics = maps.Clone(best.Evaluation.Metrics)
		delete(r.BestMetrics, "time")
		if len(r.BestMetrics) == 0 {
			r.BestMetrics = nil
		}
		for _, m := range s.Metrics {
			r.MetricOrder = append(r.MetricOrder, m.Name)
		}
		t := runner.TimeMS(s.Statistic, best.Evaluation.Samples)
		if objective == "time" {
			t = bestObjective
		}
		if !math.IsNaN(t) {
			r.BestTimeMS = &t
		}
		per := best.Evaluation.SampleRuns()
		r.BestRuns = len(best.Evaluation.Samples) * per
		if per > 1 {
			r.BestRunsPerSample = per
		}
		if cv, has := best.Evaluation.SampleCV(); has {
			r.BestTimeCV = &cv
			for _, v := range ok {
				if math.Abs(v-bestObjective) <= cv*math.Abs(bestObjective) {
					r.WithinSpread++
				}
			}
			r.WithinSpread-- // the best itself
		}
		if len(cvs) > 0 {
			m := median(cvs)
			r.MedianTimeCV = &m
		}
		speedup := func(other float64) *float64 {
			if v, ok := result.Speedup(maximize, bestObjective, other); ok {
				return &v
			}
			return nil
		}
		med := median(ok)
		r.MedianObjective = &med
		r.SpeedupOverMed = speedup(med)
		defWrong := def != nil && !def.Failed() && wrong[store.ConfigKey(def.Config)]
		r.DefaultFoundWrong = defWrong
		if def != nil && !def.Failed() && !defWrong {
			d := def.Objective
			r.DefaultObjective = &d
			r.SpeedupOverDef = speedup(d)
		}
		if def != nil && def.Failed() {
			r.DefaultStatus = def.Status.String()
		}
	}
	return r
}

// counted is how many of evals cost budget: those that are not free (nil: none is).
func counted(evals []result.Evaluation, free func(result.Evaluation) bool) int {
	n := len(evals)
	if free != nil {
		for _, e := range evals {
			if free(e) {
				n--
			}
		}
	}
	return n
}

// median is the middle of xs, or the mean of the two middle ones; it sorts xs.
func median(xs []float64) float64 {
	slices.Sort(xs)
	n := len(xs)
	if n%2 == 0 {
		return (xs[n/2-1] + xs[n/2]) / 2
	}
	return xs[n/2]
}
