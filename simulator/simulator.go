// Package simulator replays a recorded space: it answers evaluations from the
// measurements of an exhaustive (or partial) earlier run instead of a device, so that
// strategies can be benchmarked over thousands of runs in seconds (seed 000's setting).
//
// A Simulator implements tuning.Evaluator and, through Cost, the session's simulated
// clock: each evaluation costs the time it cost when it was recorded.
package simulator

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/ktune/ktune/expr"
	"github.com/ktune/ktune/result"
	"github.com/ktune/ktune/space"
)

// Mode says which configurations form the space a simulation searches.
type Mode uint8

// Modes.
const (
	// Recorded: the configurations the recording holds that were not restricted (or the
	// space of the recording's restrictions when it has them, which must all be recorded).
	Recorded Mode = iota
	// Cartesian: the full product of the parameter values, as seed 000 searches it;
	// configurations missing from the recording, restricted or failed have the fail
	// fitness and still cost an evaluation.
	Cartesian
)

// String returns the mode's name as ParseMode accepts it.
func (m Mode) String() string {
	switch m {
	case Recorded:
		return "recorded"
	case Cartesian:
		return "cartesian"
	}
	return fmt.Sprintf("mode(%d)", m)
}

// ParseMode is the inverse of Mode.String.
func ParseMode(s string) (Mode, error) {
	switch s {
	case "recorded":
		return Recorded, nil
	case "cartesian":
		return Cartesian, nil
	}
	return 0, fmt.Errorf("unknown simulation mode %q (want recorded or cartesian)", s)
}

// Fitness says what a simulated evaluation reports as the objective.
type Fitness uint8

// Fitness kinds (seed 000, Section V).
const (
	// Deterministic: the recorded objective, i.e. the mean of the recorded runs.
	Deterministic Fitness = iota
	// Stochastic: one recorded timing sample, drawn anew for every evaluation, as if the
	// kernel had been run once; the objective when there are no samples.
	Stochastic
)

// String returns the fitness's name as ParseFitness accepts it.
func (f Fitness) String() string {
	switch f {
	case Deterministic:
		return "deterministic"
	case Stochastic:
		return "stochastic"
	}
	return fmt.Sprintf("fitness(%d)", f)
}

// ParseFitness is the inverse of Fitness.String.
func ParseFitness(s string) (Fitness, error) {
	switch s {
	case "deterministic":
		return Deterministic, nil
	case "stochastic":
		return Stochastic, nil
	}
	return 0, fmt.Errorf("unknown fitness %q (want deterministic or stochastic)", s)
}

// Options configure a Simulator; the zero value is recorded mode, deterministic fitness.
type Options struct {
	Mode    Mode    // which configurations form the space
	Fitness Fitness // what an evaluation reports as the objective
	Seed    uint64  // seeds the draws of stochastic fitness
}

// Simulator answers evaluations of a recorded space. Its recorded data is read-only after
// New, so copies made with WithSeed share it; one Simulator with stochastic fitness must
// not be used by two goroutines at once, because its draws share one generator.
type Simulator struct {
	rec      *result.Recording
	opts     Options
	sp       *space.Space
	dense    []int32           // space index -> index into rec.Evaluations, -1 when not recorded
	sparse   map[int]int32     // the same, for cartesian spaces much larger than the recording
	optimum  float64           // best successful objective in the space; NaN when none
	best     space.Config      // its configuration
	warnings []string          // recorded configurations left out, duplicates
	clock    []string          // what the simulated clock cannot know
	rng      *rand.Rand        // stochastic draws
	missing  result.Evaluation // template for configurations the recording lacks
	// the objective is a time (its recorded value is what one run took)
	timeObjective bool
	// foundWrong says, by evaluation, that its configuration was found wrong in the
	// recording (result.Recording.FoundWrong); nil when none was
	foundWrong []bool
}

// New builds a simulator of rec. The recording is shared, not copied: it must not change
// while the simulator is in use.
func New(rec *result.Recording, opts Options) (*Simulator, error) {
	switch {
	case rec == nil:
		return nil, fmt.Errorf("simulator: no recording (nil)")
	case opts.Mode != Recorded && opts.Mode != Cartesian:
		return nil, fmt.Errorf("simulator: %v is not a mode", opts.Mode)
	case opts.Fitness != Deterministic && opts.Fitness != Stochastic:
		return nil, fmt.Errorf("simulator: %v is not a fitness", opts.Fitness)
	case opts.Fitness == Stochastic && rec.Objective != "" && rec.Objective != "time":
		// Samples are timings; drawing one stands in for the objective only when the
		// objective is the time.
		return nil, fmt.Errorf("simulator: stochastic fitness needs time as the objective; the recording's objective is %q", rec.Objective)
	case len(rec.Params) == 0:
		return nil, fmt.Errorf("simulator: the recording has no parameters")
	}
	s := &Simulator{rec: rec, opts: opts, optimum: math.NaN(), rng: newRand(opts.Seed)}
	configs := make([]space.Config, len(rec.Evaluations))
	var kept []space.Config
	for i := range rec.Evaluations {
		e := &rec.Evaluations[i]
		c, err := configOf(rec.Params, e.Config)
		if err != nil {
			return nil, fmt.Errorf("simulator: recorded evaluation %d: %w", i, err)
		}
		configs[i] = c
		if e.Status != result.Restricted {
			kept = append(kept, c)
		}
	}
	var err error
	switch {
	case opts.Mode == Cartesian:
		s.sp, err = space.NewCompiled(rec.Params, nil)
	case len(rec.Restrictions) > 0:
		s.sp, err = expr.NewSpace(rec.Params, rec.Restrictions)
	default:
		s.sp, err = space.FromConfigs(rec.Params, kept)
	}
	if opts.Mode == Cartesian && errors.Is(err, space.ErrTooLarge) {
		product := 1.0
		for _, p := range rec.Params {
			product *= float64(len(p.Values))
		}
		return nil, fmt.Errorf("simulator: cartesian space of %.3g configurations (the product of the %d parameters' value lists): %w; recorded mode covers the recorded configurations alone",
			product, len(rec.Params), err)
	}
	if err != nil {
		return nil, fmt.Errorf("simulator: %s space: %w", opts.Mode, err)
	}
	if err := s.index(configs); err != nil {
		return nil, err
	}
	s.missing = result.Evaluation{Status: result.Restricted, Objective: math.NaN(), Message: "not in the recording"}
	s.timeObjective = !rec.Maximize && (rec.Objective == "" || rec.Objective == "time")
	nUntimed, noSamples := 0, 0
	for i := range rec.Evaluations {
		e := &rec.Evaluations[i]
		if e.Status != result.OK {
			continue
		}
		if len(e.Samples) == 0 {
			noSamples++
			if untimed(e) {
				nUntimed++
			}
		}
	}
	if nUntimed > 0 {
		what := "counts each of them as one run of its recorded time"
		if !s.timeObjective {
			what = "does not advance for them"
		}
		s.clock = append(s.clock, fmt.Sprintf("%d successful configurations have neither timing fields nor timing samples: the simulated clock %s (time limits are then optimistic)", nUntimed, what))
	}
	s.clock = append(s.clock, overheadWarnings(rec)...)
	if opts.Fitness == Stochastic && noSamples > 0 {
		s.warnings = append(s.warnings, fmt.Sprintf("%d successful configurations have no timing samples: under stochastic fitness they answer with their recorded mean, as under deterministic fitness", noSamples))
	}
	return s, nil
}

func newRand(seed uint64) *rand.Rand {
	return rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
}

// index maps each configuration of the space to its recorded evaluation and finds the
// optimum.
func (s *Simulator) index(configs []space.Config) error {
	n := s.sp.Len()
	// A dense table costs 4 bytes per configuration of the space; past a few million
	// configurations that the recording mostly lacks, a map is smaller.
	if n <= max(1<<22, 8*len(configs)) {
		s.dense = make([]int32, n)
		for i := range s.dense {
			s.dense[i] = -1
		}
	} else {
		s.sparse = make(map[int]int32, len(configs))
	}
	var outside, dups int
	at := make([]int, len(configs)) // each configuration's index in the space; -1: left out
	for i, c := range configs {
		at[i] = -1
		e := &s.rec.Evaluations[i]
		if s.opts.Mode == Recorded && e.Status == result.Restricted {
			continue
		}
		idx, ok := s.sp.Index(c)
		if !ok {
			outside++
			if outside == 1 {
				s.warnings = append(s.warnings, fmt.Sprintf("recorded configuration %s violates the restrictions and is left out", s.sp.Format(c)))
			}
			continue
		}
		if _, seen := s.lookup(idx); seen {
			dups++
			if dups == 1 {
				s.warnings = append(s.warnings, fmt.Sprintf("configuration %s is recorded more than once; the last is used", s.sp.Format(c)))
			}
		}
		s.set(idx, int32(i))
		at[i] = idx
	}
	// the optimum, over the evaluations each configuration kept, of the configurations
	// found wrong nowhere in the recording (result.Recording.FoundWrong)
	wrong := s.rec.FoundWrong()
	for i, c := range configs {
		if at[i] < 0 {
			continue
		}
		if kept, _ := s.lookup(at[i]); kept != int32(i) {
			continue
		}
		e := &s.rec.Evaluations[i]
		if wrong(e) {
			if s.foundWrong == nil {
				s.foundWrong = make([]bool, len(s.rec.Evaluations))
			}
			s.foundWrong[i] = true
			continue
		}
		if !e.Failed() && (math.IsNaN(s.optimum) || s.better(e.Objective, s.optimum)) {
			s.optimum, s.best = e.Objective, c
		}
	}
	if outside > 1 {
		s.warnings = append(s.warnings, fmt.Sprintf("%d recorded configurations violate the restrictions and are left out", outside))
	}
	if dups > 1 {
		s.warnings = append(s.warnings, fmt.Sprintf("%d configurations are recorded more than once", dups))
	}
	if s.opts.Mode == Recorded {
		lacking, first := 0, -1
		for i := range n {
			if _, ok := s.lookup(i); !ok {
				if lacking++; first < 0 {
					first = i
				}
			}
		}
		if lacking > 0 {
			return fmt.Errorf("simulator: the recording lacks %d of the %d configurations its restrictions allow, e.g. %s; use cartesian mode to treat them as failed",
				lacking, n, s.sp.Format(s.sp.At(first, nil)))
		}
	}
	return nil
}

func (s *Simulator) lookup(idx int) (int32, bool) {
	if s.dense != nil {
		i := s.dense[idx]
		return i, i >= 0
	}
	i, ok := s.sparse[idx]
	return i, ok
}

func (s *Simulator) set(idx int, i int32) {
	if s.dense != nil {
		s.dense[idx] = i
	} else {
		s.sparse[idx] = i
	}
}

func (s *Simulator) better(a, b float64) bool {
	if s.rec.Maximize {
		return a > b
	}
	return a < b
}

func configOf(params []space.Param, vals []space.Value) (space.Config, error) {
	if len(vals) != len(params) {
		return nil, fmt.Errorf("%d values for %d parameters", len(vals), len(params))
	}
	c := make(space.Config, len(vals))
	for p, v := range vals {
		k := params[p].Index(v)
		if k < 0 {
			return nil, fmt.Errorf("parameter %s has no value %v", params[p].Name, v)
		}
		c[p] = k
	}
	return c, nil
}

// WithSeed returns a simulator that shares s's recorded data but draws stochastic fitness
// from its own generator seeded with seed: one per run of a benchmark, so that runs are
// independent and reproducible whatever order they run in.
func (s *Simulator) WithSeed(seed uint64) *Simulator {
	c := *s
	c.opts.Seed = seed
	c.rng = newRand(seed)
	return &c
}

// Space returns the space strategies search.
func (s *Simulator) Space() *space.Space { return s.sp }

// Recording returns the recording the simulator replays.
func (s *Simulator) Recording() *result.Recording { return s.rec }

// Options returns the options the simulator was built with (the seed as of WithSeed).
func (s *Simulator) Options() Options { return s.opts }

// Maximize reports whether the recording's objective is to be maximised.
func (s *Simulator) Maximize() bool { return s.rec.Maximize }

// Warnings returns what New noticed and left out: recorded configurations outside the
// recording's restrictions, configurations recorded twice, configurations without the
// samples that stochastic fitness draws from.
func (s *Simulator) Warnings() []string { return s.warnings }

// ClockWarnings returns what the simulated clock cannot know: successful configurations
// recorded without any timing, which then cost only their recorded time (or nothing, for
// another objective), and configurations recorded without a compile time or with less
// than their recorded total overhead, whose missing part costs nothing. Only figures of simulated time and time limits depend on it, so a
// caller that reports neither (a benchmark of evaluation budgets) need not show it.
func (s *Simulator) ClockWarnings() []string { return s.clock }

// Evaluate returns the recorded evaluation of c. In recorded mode c must be in the space;
// in cartesian mode a configuration the recording lacks comes back Restricted, with a NaN
// objective. With stochastic fitness a successful evaluation's Objective is one sample drawn
// at random and Samples holds just that sample. When the recording has no benchmark time
// (no timing fields at all, or no benchmark field), BenchmarkMS is the sum of all recorded
// samples: the time measuring them took.
//
// The returned Config, Samples and Metrics share the recording's memory: read them, do not
// modify them.
func (s *Simulator) Evaluate(_ context.Context, c space.Config) (result.Evaluation, error) {
	idx, ok := s.sp.Index(c)
	if !ok {
		return result.Evaluation{}, fmt.Errorf("simulator: configuration %v is not in the %s space", c, s.opts.Mode)
	}
	i, ok := s.lookup(idx)
	if !ok {
		// Only cartesian mode gets here: recorded mode checked every configuration in New.
		e := s.missing
		e.Config = s.sp.Values(c)
		return e, nil
	}
	e := s.rec.Evaluations[i]
	if none := untimed(&e); none || math.IsNaN(e.BenchmarkMS) {
		// Without a benchmark time (a recording with no timing fields, or a T4 file that
		// has compilation and framework times but no "benchmark", as Kernel Tuner's
		// exports write), measuring the recorded samples took at least their sum.
		bench := 0.0
		for _, t := range e.Samples {
			bench += t
		}
		if len(e.Samples) == 0 && e.Status == result.OK && s.timeObjective && e.Objective > 0 {
			bench = e.Objective // one run, the least it can have cost
		}
		if none || bench > 0 {
			e.BenchmarkMS = bench
		}
	}
	if s.opts.Fitness == Stochastic && e.Status == result.OK && len(e.Samples) > 0 {
		j := s.rng.IntN(len(e.Samples))
		e.Objective = e.Samples[j]
		e.Samples = e.Samples[j : j+1 : j+1]
	}
	return e, nil
}

// Cost returns the time an evaluation cost when it was recorded: compilation,
// verification, benchmarking and framework overhead. The tuning session advances its
// simulated clock by it, so time budgets can be simulated. A timing that is not a number
// (NaN: not recorded) or infinite costs nothing; a cost past what a time.Duration holds
// (some 292 years) is the largest one.
func (s *Simulator) Cost(e result.Evaluation) time.Duration {
	ms := 0.0
	for _, t := range []float64{e.CompileMS, e.VerifyMS, e.BenchmarkMS, e.FrameworkMS} {
		if !math.IsNaN(t) && !math.IsInf(t, 0) { // a timing the recording does not have costs nothing
			ms += t
		}
	}
	switch ns := ms * float64(time.Millisecond); {
	case ns <= 0:
		return 0
	case ns >= math.MaxInt64: // converted, it would wrap to a negative duration
		return math.MaxInt64
	default:
		return time.Duration(ns)
	}
}

// Objective returns the recorded objective of c (the mean, whatever the fitness mode), and
// false when c failed or is not recorded: a benchmark scores the configuration a run found
// with it, not with the sample the run happened to draw. A configuration found wrong in
// the recording (result.Recording.FoundWrong) is failed too, whatever the evaluation kept
// of it measured (Evaluate still answers that, as recorded): a run that ends on it found
// no configuration that computes right answers, and scores as one that found nothing
// successful, not above the optimum, which passes over it.
func (s *Simulator) Objective(c space.Config) (float64, bool) {
	idx, ok := s.sp.Index(c)
	if !ok {
		return math.NaN(), false
	}
	i, ok := s.lookup(idx)
	if !ok || s.rec.Evaluations[i].Failed() || s.foundWrong != nil && s.foundWrong[i] {
		return math.NaN(), false
	}
	return s.rec.Evaluations[i].Objective, true
}

// Optimum returns the best recorded objective in the space under the recording's
// direction, and its configuration; NaN and nil when no configuration succeeded.
func (s *Simulator) Optimum() (float64, space.Config) { return s.optimum, s.best }

// FractionOfOptimum scores an objective as seed 000 does: optimum/best when minimising,
// best/optimum when maximising, so 1 is the optimum and smaller is worse. A failed result
// (NaN or infinite best) scores 0.
func (s *Simulator) FractionOfOptimum(best float64) float64 {
	return FractionOfOptimum(best, s.optimum, s.rec.Maximize)
}

// FractionOfOptimum is Simulator.FractionOfOptimum for a known optimum.
func FractionOfOptimum(best, optimum float64, maximize bool) float64 {
	if math.IsNaN(best) || math.IsInf(best, 0) || math.IsNaN(optimum) {
		return 0
	}
	if maximize {
		if optimum == 0 {
			return 0
		}
		return best / optimum
	}
	if best == 0 {
		return 0
	}
	return optimum / best
}

// totalOverhead is the metric of KTT's TotalOverhead (format/ktt): the whole of what its
// tuner spent on a result beside the kernel runs, compile time included, which a KTT file
// does not always write apart.
const totalOverhead = "total_overhead"

// overheadWarnings says what of the recorded evaluations' cost the clock leaves out: the
// compile time of evaluations timed otherwise but recorded without one (and without a
// total that holds it), and the part of a recorded total overhead that the timings fall
// short of (KTT results read by a ktune that took the total apart member by member, and
// stored so).
func overheadWarnings(rec *result.Recording) []string {
	var noCompile, short int
	shortMS := 0.0
	for i := range rec.Evaluations {
		e := &rec.Evaluations[i]
		if e.Status == result.Restricted || untimed(e) {
			continue
		}
		total, hasTotal := e.Metrics[totalOverhead]
		if !hasTotal || math.IsNaN(total) {
			if math.IsNaN(e.CompileMS) {
				noCompile++
			}
			continue
		}
		parts := 0.0
		for _, t := range []float64{e.CompileMS, e.VerifyMS, e.FrameworkMS, e.StrategyMS} {
			if !math.IsNaN(t) {
				parts += t
			}
		}
		if d := total - parts; d > 1e-9*total {
			short++
			shortMS += d
		}
	}
	var w []string
	if noCompile > 0 {
		w = append(w, fmt.Sprintf("%d configurations were recorded with other timings but no compile time: the simulated clock leaves their compilation out (time limits are then optimistic)", noCompile))
	}
	if short > 0 {
		w = append(w, fmt.Sprintf("%d configurations have timings that add up to %.1f s less than the total overhead recorded with them (KTT results imported by an older ktune): the simulated clock leaves it out (time limits are then optimistic); import the file again to count it", short, shortMS/1000))
	}
	return w
}

// untimed reports whether an evaluation has no timing fields: each is 0 or unknown (NaN,
// a field its recording lacks).
func untimed(e *result.Evaluation) bool {
	for _, t := range []float64{e.CompileMS, e.VerifyMS, e.BenchmarkMS, e.FrameworkMS} {
		if t != 0 && !math.IsNaN(t) {
			return false
		}
	}
	return true
}

// scorable returns an error when the recording's successes hold an objective of 0 or below
// (a negative score, a time of 0): the fraction of the optimum (optimum / best, or best /
// optimum when maximising) is no fraction of anything then, a negative score over a
// negative optimum reading as above 1. A maximised objective of 0 is a fraction of 0.
// Landscape analysis, which needs no fraction, takes such recordings.
func (s *Simulator) scorable() error {
	rec := s.rec
	for i := range rec.Evaluations {
		e := &rec.Evaluations[i]
		if e.Status == result.OK && (e.Objective < 0 || e.Objective == 0 && !rec.Maximize) {
			name := rec.Objective
			if name == "" {
				name = "time"
			}
			return fmt.Errorf("recorded evaluation %d (%s) has %s %g: the fraction of the optimum (optimum / best, or best / optimum when maximising, as seed 000 scores) needs objectives above 0",
				i, describeConfig(rec.Params, e.Config), name, e.Objective)
		}
	}
	return nil
}

// describeConfig writes a recorded configuration as name=value pairs.
func describeConfig(params []space.Param, values []space.Value) string {
	parts := make([]string, 0, len(values))
	for j, v := range values {
		if j < len(params) {
			parts = append(parts, params[j].Name+"="+v.String())
		}
	}
	return strings.Join(parts, ", ")
}
