// Package analysis explains a search space: its landscape (local minima, fitness flow
// graph, PageRank centrality; seed 000 Section VII) and its parameters (significance and
// Sobol sensitivity; seed 004), for a recorded space or a run in the store, whole or
// partially explored.
//
// It ties the landscape and sensitivity packages to recordings and runs: it picks the
// objective, builds the space the simulator would search, decides what a partial run
// allows, and draws the figures. The command line and the HTML report are thin layers
// over it.
//
// A configuration found wrong anywhere in the recording (a wrong_answer evaluation, from
// a verification or a check after dynamic tuning: result.Recording.FoundWrong) is a
// failure, whatever its other evaluations measured: it computes wrong answers on some
// input, so it is no optimum (as the simulator's is not), the landscape counts it as a
// failed point (worse than every success, as a compile error is) and the significance
// and Sobol indices leave it out with the other failures. Result.Warnings says how many
// such configurations there were.
package analysis

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/ktune/ktune/expr"
	"github.com/ktune/ktune/landscape"
	"github.com/ktune/ktune/result"
	"github.com/ktune/ktune/sensitivity"
	"github.com/ktune/ktune/simulator"
	"github.com/ktune/ktune/space"
	"github.com/ktune/ktune/store"
	"github.com/ktune/ktune/strategy"
)

// Input is one thing to analyse: a recording read from a file, or a run read back from the
// store (Run set).
type Input struct {
	Name string            // short name for tables, figures and errors, e.g. "kerneltuner_gemm/RTX_3090"; "" for Rec's Source
	Rec  *result.Recording // the evaluations
	Run  *store.RunInfo    // the stored run it came from; nil for files
	// Of, when set, is the whole recording Rec was selected from by a filter (the
	// dashboard's): Rec's evaluations are some of Of's, its space is Of's, and the
	// warning of a partial analysis counts the selection against Of.
	Of *result.Recording
}

// Label is what results, figures and errors call in: its Name, or where that is empty its
// recording's Source (the file it was read from), or "recording".
func (in Input) Label() string {
	switch {
	case in.Name != "":
		return in.Name
	case in.Rec != nil && in.Rec.Source != "":
		return in.Rec.Source
	}
	return "recording"
}

// RunName names a stored run in results, figures and the errors about it: "run 12 gemm",
// or "run 12" for a run whose recording names no kernel (a T4 file imported). Figure
// files take it through FileName.
func RunName(id int64, kernel string) string {
	if kernel = strings.TrimSpace(kernel); kernel == "" {
		return fmt.Sprintf("run %d", id)
	}
	return fmt.Sprintf("run %d %s", id, kernel)
}

// Options say what to compute. The zero value computes nothing; Defaults fills it in.
type Options struct {
	Landscape     bool                // classify points, build the flow graph, PageRank, C_p
	Mode          simulator.Mode      // the space the landscape covers: recorded or cartesian (with failures)
	Neighbourhood space.Neighbourhood // adjacent (seed 000's "bounded") or Hamming
	Ps            []float64           // proportions for C_p; nil: 0, 0.01, ..., 0.15
	// PageRankTol is networkx's tolerance: iteration stops when the L1 change is below
	// N*PageRankTol; 0 for networkx's 1e-6. On large spaces that stops early (GEMM in
	// cartesian mode after 2-3 iterations), so Analyze warns when it is loose.
	PageRankTol float64

	Parameters  bool     // significance and Sobol indices
	Objective   string   // objective or metric to explain; "" for the recording's objective
	Params      []string // parameters whose Sobol indices are computed; nil for all
	SecondOrder bool     // also the second-order (pair) indices
	Bootstrap   int      // bootstrap resamples for the intervals; 0 for 200, < 0 for none
	Seed        uint64   // seeds the bootstrap

	// Maximize, when set, says whether larger values of the objective are better, over
	// what the recording says or the name suggests (Result.DirectionFrom): Kernel Tuner
	// caches do not record the direction, and a metric's name may not tell it
	// (speedup, sm__warps_active.avg.pct_of_peak_sustained_active).
	Maximize *bool

	// MaxBytes bounds the memory of a cartesian-mode landscape, which covers every
	// configuration of the full product (about LandscapeBytesPerPoint each): 0 is
	// space.DefaultMaxBytes(), a share of the memory available; a negative value is no
	// bound. A larger landscape is a *LandscapeTooLargeError.
	MaxBytes int64

	// Step, when set, is told each part of the analysis as it begins ("the landscape
	// (flow graph, PageRank, C_p)", "parameter sensitivity"), for progress.
	Step func(part string)
}

// Defaults returns options that compute everything as the papers do: the landscape in
// recorded mode under the adjacent neighbourhood, significance, first-, second- and
// total-order indices with 200 bootstrap resamples.
func Defaults() Options {
	return Options{Landscape: true, Mode: simulator.Recorded, Neighbourhood: space.Adjacent,
		Parameters: true, SecondOrder: true, Seed: 1}
}

// Result is the analysis of one input.
type Result struct {
	Name      string `json:"name"`
	Source    string `json:"source"`
	Kernel    string `json:"kernel"`
	Device    string `json:"device"`
	Objective string `json:"objective"`
	Maximize  bool   `json:"maximize"`
	// DirectionFrom says where Maximize comes from: DirectionRecorded, DirectionName or
	// DirectionOption.
	DirectionFrom  string      `json:"direction_from"`
	Configurations int         `json:"configurations"` // in the space the recording or run covers
	Evaluated      int         `json:"evaluated"`      // configurations with an evaluation
	Valid          int         `json:"valid"`          // of those, successful with the objective
	Partial        bool        `json:"partial"`        // a run that explored part of its space
	Optimum        float64     `json:"optimum"`
	OptimumConfig  space.Named `json:"optimum_configuration,omitzero"` // by the parameters' names, in their order

	LandscapeMode string              `json:"landscape_mode,omitempty"`
	Landscape     *landscape.Analysis `json:"landscape,omitempty"`

	Significance []sensitivity.Correlation `json:"significance,omitempty"`
	Sobol        *sensitivity.Sobol        `json:"sobol,omitempty"`
	// Saltelli holds the indices of a run that evaluated a Saltelli design (strategy
	// saltelli), estimated from the design; Sobol then holds the empirical ones.
	Saltelli *sensitivity.Sobol `json:"saltelli,omitempty"`
	// SobolWarning, when set, says why the empirical indices in Sobol cannot be read as
	// shares of the variance (they sum above 1, totals fall below first orders): a small
	// sample of dependent parameters. Warnings holds it too.
	SobolWarning string `json:"sobol_warning,omitempty"`

	Warnings []string           `json:"warnings,omitempty"`
	Millis   map[string]float64 `json:"ms"` // time per part of the analysis

	land *landscape.Landscape // for the figures
	nb   space.Neighbourhood  // the landscape's
}

// ReleaseFigureData lets go of what only WriteFigures reads (the landscape's space and
// fitness): a program that analyses many inputs without drawing them calls it after
// each. WriteFigures then draws no flow graph of r.
func (r *Result) ReleaseFigureData() { r.land = nil }

// Analyze analyses one input.
func Analyze(ctx context.Context, in Input, o Options) (*Result, error) {
	rec := in.Rec
	if rec == nil {
		return nil, errors.New("analysis: no recording to analyse (Input.Rec is nil)")
	}
	in.Name = in.Label()
	if len(rec.Params) == 0 {
		return nil, fmt.Errorf("%s: nothing to analyse (no parameters)", in.Name)
	}
	res := &Result{Name: in.Name, Source: rec.Source, Kernel: rec.Kernel, Device: rec.Device,
		Millis: map[string]float64{}, Optimum: math.NaN()}
	name, maximize, from, err := objectiveOf(rec, o.Objective)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", in.Name, err)
	}
	if o.Maximize != nil {
		if from == DirectionRecorded && *o.Maximize != maximize {
			res.Warnings = append(res.Warnings, fmt.Sprintf("the recording says %s is better %s; the option given makes it %s",
				name, higherLower(maximize), higherLower(*o.Maximize)))
		}
		maximize, from = *o.Maximize, DirectionOption
	}
	res.Objective, res.Maximize, res.DirectionFrom = name, maximize, from
	// found wrong anywhere in the run or recording, a selection's whole included: a filter
	// that hides the wrong answers does not make their configurations right
	wrong := in.whole().FoundWrong()
	value := valueOf(rec, name, wrong)

	partial := isPartial(in)
	sim, err := simulatorOf(rec, simulator.Recorded, partial)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", in.Name, err)
	}
	res.Partial = partial
	res.Warnings = append(res.Warnings, rec.Warnings...)
	res.Warnings = append(res.Warnings, sim.Warnings()...)
	res.Configurations = sim.Space().Len()
	if partial {
		res.Configurations = spaceSize(in.whole(), in.Run)
		if in.Of != nil {
			covers := ""
			if o.Landscape {
				covers = "the landscape covers those only, "
			}
			res.Warnings = append(res.Warnings, fmt.Sprintf("%d of the %s %d evaluations match the filters, %d distinct configurations of the %d in its space: %sthe indices are estimated from them",
				len(rec.Evaluations), wholeWhat(in), len(in.Of.Evaluations), sim.Space().Len(), res.Configurations, covers))
		} else {
			res.Warnings = append(res.Warnings, fmt.Sprintf("%s %d of the %d configurations of its space: the landscape covers the explored ones only, the indices are estimated from them",
				partialWhat(in), sim.Space().Len(), res.Configurations))
		}
	}

	// The valid table: every successful configuration of the recorded space, once. The
	// values per space index are the recorded mode's landscape as well.
	sp := sim.Space()
	values, err := valuesOf(ctx, sim, value)
	if err != nil {
		return nil, err
	}
	var cfgs []space.Config
	var ys []float64
	for i, v := range values {
		res.Evaluated++
		if c := sp.At(i, nil); !math.IsNaN(v) && !math.IsInf(v, 0) {
			cfgs = append(cfgs, c)
			ys = append(ys, v)
			if math.IsNaN(res.Optimum) || maximize && v > res.Optimum || !maximize && v < res.Optimum {
				res.Optimum, res.OptimumConfig = v, sp.Named(c)
			}
		}
	}
	res.Valid = len(ys)
	if res.Valid == 0 {
		if res.Evaluated == 1 {
			return nil, fmt.Errorf("%s: its one configuration has no value for %s (it failed or lacks it): nothing to analyse", in.Name, name)
		}
		return nil, fmt.Errorf("%s: none of the %d configurations has a value for %s (all failed or lack it): nothing to analyse", in.Name, res.Evaluated, name)
	}
	// Successful configurations without a value of the metric (not measured for them) are
	// not failures: their value is unknown, not bad. They are left out, as a partial run's
	// unexplored configurations are, except from a cartesian landscape, which counts
	// every configuration it lacks a value for as failed.
	lacking := lackingValue(rec, value, wrong)
	if len(lacking) > 0 {
		land := "left out of the landscape too (as unexplored configurations are)"
		if o.Landscape && o.Mode == simulator.Cartesian && !partial {
			land = "the cartesian landscape counts them as failed points, as it does every configuration of the product the recording lacks"
		}
		res.Warnings = append(res.Warnings, fmt.Sprintf("%s of the successful configurations %s %s (the first: %s): their %s is unknown, not bad, so they are left out of the significance and Sobol indices; %s",
			plural(len(lacking), "one", strconv.Itoa(len(lacking))), plural(len(lacking), "lacks", "lack"), name, formatValues(rec.Params, rec.Evaluations[lacking[0]].Config), name, land))
	}

	if n, first := foundWrong(rec, wrong); n > 0 {
		res.Warnings = append(res.Warnings, fmt.Sprintf("%s that ran successfully %s a wrong_answer evaluation in the recording as well (the first: %s): %s wrong answers on some input, so the analysis counts %s as failed: never the optimum, a failed point of the landscape, left out of the significance and Sobol indices",
			plural(n, "one configuration", strconv.Itoa(n)+" configurations"), plural(n, "has", "have"), formatValues(rec.Params, rec.Evaluations[first].Config),
			plural(n, "it computes", "they compute"), plural(n, "it", "them")))
	}

	if o.Landscape {
		if o.Step != nil {
			o.Step("the landscape (flow graph, PageRank, C_p)")
		}
		start := time.Now()
		mode := o.Mode
		if partial && mode == simulator.Cartesian {
			mode = simulator.Recorded
			res.Warnings = append(res.Warnings, "cartesian mode needs the whole space recorded; the landscape of the partial run uses the explored configurations")
		}
		l := &landscape.Landscape{Space: sp, Objective: values, Maximize: maximize}
		if mode == simulator.Recorded && len(lacking) > 0 {
			// the recorded configurations with a value or a failure
			kept := *rec
			kept.Evaluations = make([]result.Evaluation, 0, len(rec.Evaluations)-len(lacking))
			for i, k := 0, 0; i < len(rec.Evaluations); i++ {
				if k < len(lacking) && lacking[k] == i {
					k++
					continue
				}
				kept.Evaluations = append(kept.Evaluations, rec.Evaluations[i])
			}
			ksim, err := simulatorOf(&kept, simulator.Recorded, true)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", in.Name, err)
			}
			if l.Objective, err = valuesOf(ctx, ksim, value); err != nil {
				return nil, err
			}
			l.Space = ksim.Space()
		}
		if mode != simulator.Recorded {
			csim, err := simulatorOf(rec, mode, false)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", in.Name, err)
			}
			if err := checkLandscapeSize(csim.Space().Len(), res.Evaluated, o.MaxBytes); err != nil {
				return nil, fmt.Errorf("%s: %w", in.Name, err)
			}
			if l.Objective, err = valuesOf(ctx, csim, value); err != nil {
				return nil, err
			}
			l.Space = csim.Space()
		}
		a, err := landscape.Analyze(ctx, l, landscape.Options{Neighbourhood: o.Neighbourhood, Ps: o.Ps,
			PageRank: landscape.PageRankOptions{Tol: o.PageRankTol}})
		if err != nil {
			return nil, fmt.Errorf("%s: landscape: %w", in.Name, err)
		}
		tol := o.PageRankTol
		if tol == 0 {
			tol = 1e-6
		}
		if n := float64(len(l.Objective)); n*tol > 0.05 {
			res.Warnings = append(res.Warnings, fmt.Sprintf("PageRank stopped by networkx's rule (L1 change below %d x %g = %.2g) after %d %s: on a space this large the centralities are approximate; --pagerank-tol 1e-10 converges them",
				len(l.Objective), tol, n*tol, a.PageRankIterations, plural(a.PageRankIterations, "iteration", "iterations")))
		}
		res.LandscapeMode, res.Landscape, res.land, res.nb = mode.String(), a, l, o.Neighbourhood
		res.Millis["landscape"] = ms(time.Since(start))
	}

	if o.Parameters {
		if o.Step != nil {
			o.Step("parameter sensitivity (significance, Sobol indices and their bootstrap)")
		}
		start := time.Now()
		res.Significance = sensitivity.Significance(rec.Params, cfgs, ys)
		res.Millis["significance"] = ms(time.Since(start))
		subset, err := sensitivity.ParamIndices(rec.Params, o.Params)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", in.Name, err)
		}
		so := sensitivity.Options{Subset: subset, SecondOrder: o.SecondOrder, Bootstrap: o.Bootstrap, Seed: o.Seed}
		start = time.Now()
		if res.Valid < 2 {
			res.Warnings = append(res.Warnings, "fewer than two valid configurations: no Sobol indices")
		} else if res.Sobol, err = sensitivity.SobolTable(ctx, rec.Params, cfgs, ys, so); errors.Is(err, sensitivity.ErrConstant) {
			// the landscape and the significance (undefined too, null) still stand
			res.Warnings = append(res.Warnings, fmt.Sprintf("%s is constant (%g) over the %d valid configurations: the Sobol indices (shares of its variance) and the correlations are undefined",
				name, ys[0], res.Valid))
		} else if err != nil {
			return nil, fmt.Errorf("%s: Sobol indices: %w", in.Name, err)
		} else if need, terms := empiricalSobolMinimum(rec.Params, subset, cfgs); res.Sobol.Method == sensitivity.Empirical && res.Valid < need {
			// Conditional means over a handful of configurations are mostly noise:
			// indices below zero, totals below first orders.
			res.Sobol = nil
			why := ""
			if need > minEmpiricalSobol {
				why = fmt.Sprintf(", twice the %d terms of a model of the parameters' main effects, so that each value's mean rests on several configurations", terms)
			}
			res.Warnings = append(res.Warnings, fmt.Sprintf("only %d valid configurations, not a full product of the values: too few for empirical Sobol indices (%d or more%s); the significance still holds",
				res.Valid, need, why))
		} else if res.Sobol.Method == sensitivity.Empirical {
			res.SobolWarning = empiricalCaveat(res.Sobol, rec.Params, subset, cfgs)
			if res.SobolWarning != "" {
				res.Warnings = append(res.Warnings, res.SobolWarning)
			}
		}
		res.Millis["sobol"] = ms(time.Since(start))
		if in.Run != nil && in.Run.Strategy == "saltelli" {
			start = time.Now()
			s, err := saltelliOf(ctx, in.Run, rec, value, so)
			if ctx.Err() != nil {
				return nil, ctx.Err() // cancelled, not a design that cannot be estimated
			}
			if err != nil {
				res.Warnings = append(res.Warnings, "the run's Saltelli design could not be estimated: "+err.Error())
			}
			if s != nil && s.Samples < minSaltelliSamples {
				res.Warnings = append(res.Warnings, fmt.Sprintf("the run's Saltelli design has %d base %s (fewer than %d): its estimates are noise and may leave [0, 1]; run saltelli with a larger budget",
					s.Samples, plural(s.Samples, "sample", "samples"), minSaltelliSamples))
			}
			res.Saltelli = s
			res.Millis["saltelli"] = ms(time.Since(start))
		}
	}
	return res, nil
}

// LandscapeBytesPerPoint is about what a landscape takes per configuration at its peak:
// the objective, the classification, the flow graph's offsets and edges under the Hamming
// neighbourhood and PageRank's vectors (GEMM's 82,944-configuration product allocates
// about 1,070 bytes per configuration in all).
const LandscapeBytesPerPoint = 1 << 10

// A LandscapeTooLargeError is the error of a cartesian-mode landscape whose full product
// has more configurations than Options.MaxBytes lets it hold.
type LandscapeTooLargeError struct {
	Points   int   // the full product's configurations
	Recorded int   // the configurations the recording holds
	MaxBytes int64 // the bound
}

// Error says how large the landscape would be, the bound it passes and what to do instead.
func (e *LandscapeTooLargeError) Error() string {
	return fmt.Sprintf("the cartesian product of the parameters has %d configurations (%d recorded): its landscape would need about %s, more than the %s allowed; analyse the recorded configurations (--mode recorded)",
		e.Points, e.Recorded, space.FormatBytes(int64(min(e.Points, math.MaxInt64/LandscapeBytesPerPoint))*LandscapeBytesPerPoint), space.FormatBytes(e.MaxBytes))
}

// checkLandscapeSize refuses a landscape of points configurations (recorded of them
// recorded) that needs more than maxBytes (0: space.DefaultMaxBytes(); negative: no bound).
func checkLandscapeSize(points, recorded int, maxBytes int64) error {
	if maxBytes == 0 {
		maxBytes = space.DefaultMaxBytes()
	}
	if maxBytes > 0 && int64(points) > maxBytes/LandscapeBytesPerPoint {
		return &LandscapeTooLargeError{Points: points, Recorded: recorded, MaxBytes: maxBytes}
	}
	return nil
}

// valuesOf returns value of every configuration of sim's space, by space index; NaN where
// the evaluation failed or the recording lacks the configuration.
func valuesOf(ctx context.Context, sim *simulator.Simulator, value func(*result.Evaluation) float64) ([]float64, error) {
	sp := sim.Space()
	out := make([]float64, sp.Len())
	c := make(space.Config, len(sp.Params()))
	for i := range out {
		e, err := sim.Evaluate(ctx, sp.At(i, c))
		if err != nil {
			return nil, err
		}
		out[i] = value(&e)
	}
	return out, nil
}

// lackingValue returns the indices of the recording's successful evaluations that value
// gives no finite value: a metric not measured for them. Those of configurations found
// wrong are failures, not lacking.
func lackingValue(rec *result.Recording, value func(*result.Evaluation) float64, wrong func(*result.Evaluation) bool) []int {
	var out []int
	for i := range rec.Evaluations {
		e := &rec.Evaluations[i]
		if v := value(e); !e.Failed() && !wrong(e) && (math.IsNaN(v) || math.IsInf(v, 0)) {
			out = append(out, i)
		}
	}
	return out
}

// foundWrong counts the configurations with a successful evaluation in rec that were found
// wrong (wrong, result.Recording.FoundWrong), and gives the index of the first such
// evaluation.
func foundWrong(rec *result.Recording, wrong func(*result.Evaluation) bool) (n, first int) {
	seen := map[string]bool{}
	for i := range rec.Evaluations {
		e := &rec.Evaluations[i]
		if e.Failed() || !wrong(e) {
			continue
		}
		if k := result.ConfigKey(e.Config); !seen[k] {
			if seen[k] = true; len(seen) == 1 {
				first = i
			}
		}
	}
	return len(seen), first
}

// formatValues writes a recorded configuration as name=value pairs.
func formatValues(params []space.Param, vs []space.Value) string {
	parts := make([]string, len(vs))
	for i, v := range vs {
		parts[i] = v.String()
		if i < len(params) {
			parts[i] = params[i].Name + "=" + parts[i]
		}
	}
	return strings.Join(parts, ", ")
}

// plural is one when n is 1 and many otherwise.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1e3 }

func objectiveName(rec *result.Recording) string {
	if rec.Objective == "" {
		return "time"
	}
	return rec.Objective
}

// Where a Result's direction comes from (Result.DirectionFrom).
const (
	// DirectionRecorded: the recording says it (a ktune run's spec, a T4 file), or the
	// objective is the time, which is always better lower.
	DirectionRecorded = "recording"
	// DirectionName: the objective's name suggests it (result.HigherIsBetter): a metric
	// beside the recording's objective, or the objective of a Kernel Tuner cache, which
	// does not record the direction. Time is always lower-is-better, and so not a guess.
	DirectionName = "name"
	// DirectionOption: Options.Maximize says it.
	DirectionOption = "option"
)

// NamedDirection reports whether rec's direction may be no more than its objective's name
// suggests: a Kernel Tuner cache records none, so its reader guesses it from the name
// (result.HigherIsBetter) unless ktune wrote the cache and recorded another. The time is
// always better lower, and so no guess.
func NamedDirection(rec *result.Recording) bool {
	own := objectiveName(rec)
	return rec.Format == "kerneltuner" && own != "time" && rec.Maximize == result.HigherIsBetter(own)
}

func higherLower(maximize bool) string {
	if maximize {
		return "higher"
	}
	return "lower"
}

// objectiveOf resolves the objective to explain: the recording's own, or a metric its
// evaluations carry, with the direction the recording gives or its name suggests, and
// which of the two (DirectionRecorded, DirectionName). The time is one wherever it was
// measured: a stored run of another objective keeps it as the time metric or, stored
// before ktune kept that, as timing samples (result.Evaluation.TimeMS).
func objectiveOf(rec *result.Recording, want string) (string, bool, string, error) {
	own := objectiveName(rec)
	if want == "" || want == own {
		from := DirectionRecorded
		if NamedDirection(rec) {
			from = DirectionName
		}
		return own, rec.Maximize, from, nil
	}
	names := map[string]bool{}
	for i := range rec.Evaluations {
		for k := range rec.Evaluations[i].Metrics {
			names[k] = true
		}
		if _, ok := rec.Evaluations[i].TimeMS(own); ok {
			names["time"] = true
		}
	}
	if names[want] {
		from := DirectionName
		if want == "time" {
			from = DirectionRecorded
		}
		return want, result.HigherIsBetter(want), from, nil
	}
	have := []string{own}
	for k := range names {
		if k != own { // a run's objective is among its metrics too
			have = append(have, k)
		}
	}
	sort.Strings(have[1:])
	return "", false, "", fmt.Errorf("no objective or metric named %q (have %s)", want, strings.Join(have, ", "))
}

// Objective is an objective resolved on a recording as Analyze resolves it.
type Objective struct {
	Name     string // the recording's objective, a metric its evaluations carry, or time
	Maximize bool   // larger values are better
	From     string // where Maximize comes from: DirectionRecorded, DirectionName or DirectionOption
}

// ResolveObjective resolves want on rec as Analyze does (the recording's own objective for
// "", else a metric, or the time beside another objective), with maximize, when set, over
// the direction the recording gives or the name suggests. value gives an evaluation's
// value: NaN for a failed one, one whose configuration was found wrong anywhere in rec
// (result.Recording.FoundWrong), or one that lacks it.
func ResolveObjective(rec *result.Recording, want string, maximize *bool) (o Objective, value func(*result.Evaluation) float64, err error) {
	o.Name, o.Maximize, o.From, err = objectiveOf(rec, want)
	if err != nil {
		return Objective{}, nil, err
	}
	if maximize != nil {
		o.Maximize, o.From = *maximize, DirectionOption
	}
	return o, valueOf(rec, o.Name, rec.FoundWrong()), nil
}

// valueOf gives an evaluation's value of the objective or metric name: NaN for a failed
// evaluation, one whose configuration was found wrong (wrong, a failure too:
// result.Recording.FoundWrong), or one that lacks it.
func valueOf(rec *result.Recording, name string, wrong func(*result.Evaluation) bool) func(*result.Evaluation) float64 {
	own := objectiveName(rec)
	return func(e *result.Evaluation) float64 {
		if e.Failed() || wrong(e) {
			return math.NaN()
		}
		if name == own {
			return e.Objective
		}
		v, ok := e.Metrics[name]
		if !ok && name == "time" {
			v, ok = e.TimeMS(own)
		}
		if !ok {
			return math.NaN()
		}
		return v
	}
}

// isPartial reports whether the input evaluated fewer configurations than its space holds:
// a run stopped by its budget, or a recording (a file, an import) whose restrictions allow
// configurations it lacks, such as ktune's own export of such a run. A recording without
// restrictions is its own space.
// A selection (Input.Of) is partial when it holds fewer configurations than the space of
// the whole it was selected from.
func isPartial(in Input) bool {
	return distinctConfigs(in.Rec) < spaceSize(in.whole(), in.Run)
}

// whole is the recording whose space the input's evaluations are of: Of for a selection,
// else Rec.
func (in Input) whole() *result.Recording {
	if in.Of != nil {
		return in.Of
	}
	return in.Rec
}

// spaceSize is the number of configurations in the space of rec, of the stored run run
// (nil for a file): those its restrictions allow, at least those it holds; a recording
// without restrictions from a file or an import is its own space.
func spaceSize(rec *result.Recording, run *store.RunInfo) int {
	n := distinctConfigs(rec)
	if (run == nil || run.Kind == store.KindImport) && len(rec.Restrictions) == 0 {
		return n
	}
	return max(n, fullSize(rec))
}

// distinctConfigs is the number of distinct configurations rec evaluated.
func distinctConfigs(rec *result.Recording) int {
	seen := map[string]bool{}
	for i := range rec.Evaluations {
		seen[store.ConfigKey(rec.Evaluations[i].Config)] = true
	}
	return len(seen)
}

// partialWhat is how a partial input's warning names what it holds.
func partialWhat(in Input) string {
	if in.Run != nil && in.Run.Kind != store.KindImport {
		return "the run evaluated"
	}
	return "the recording holds"
}

// wholeWhat is how a selection's warning names the whole it was selected from, with a
// possessive: "the run's", "the recording's".
func wholeWhat(in Input) string {
	if in.Run != nil && in.Run.Kind != store.KindImport {
		return "run's"
	}
	return "recording's"
}

// simulatorOf builds the simulator over the recording's space in mode; for a partial run,
// over the configurations it explored.
func simulatorOf(rec *result.Recording, mode simulator.Mode, partial bool) (*simulator.Simulator, error) {
	if partial {
		explored := *rec
		explored.Restrictions = nil
		rec = &explored
	}
	return simulator.New(rec, simulator.Options{Mode: mode})
}

// fullSize is the number of configurations the recording's restrictions allow; 0 when
// they cannot be compiled.
func fullSize(rec *result.Recording) int {
	sp, err := expr.NewSpace(rec.Params, rec.Restrictions)
	if err != nil {
		return 0
	}
	return sp.Len()
}

// minSaltelliSamples is the fewest base samples of a Saltelli design whose estimates are
// given without a warning.
const minSaltelliSamples = 32

// minEmpiricalSobol is the fewest valid configurations empirical Sobol indices are computed
// from; empiricalSobolMinimum asks more of many parameters with many values.
const minEmpiricalSobol = 30

// distinctValues counts the values of parameter p the configurations take.
func distinctValues(cfgs []space.Config, p int) int {
	seen := map[int]bool{}
	for _, c := range cfgs {
		seen[c[p]] = true
	}
	return len(seen)
}

// empiricalSobolMinimum is the fewest valid configurations empirical Sobol indices of the
// parameters subset (nil: all) are computed from, and the number of terms of a model of
// their main effects (1 plus, per parameter, its values taken less one). A first-order
// index is a correlation ratio, the variance of the conditional means over the variance:
// a parameter with k values that does not matter at all gets (k-1)/(N-1) of N
// configurations from noise alone, and the first orders of the main-effect model's terms
// sum to 1 from noise alone when N is no more than its terms. So the sample must be at
// least minEmpiricalSobol and twice the terms: each value's mean over several
// configurations.
func empiricalSobolMinimum(params []space.Param, subset []int, cfgs []space.Config) (need, terms int) {
	terms = 1
	for _, p := range subsetOrAll(params, subset) {
		terms += max(distinctValues(cfgs, p)-1, 0)
	}
	return max(minEmpiricalSobol, 2*terms), terms
}

func subsetOrAll(params []space.Param, subset []int) []int {
	if subset != nil {
		return subset
	}
	all := make([]int, len(params))
	for i := range all {
		all[i] = i
	}
	return all
}

// empiricalCaveat says, when empirical indices cannot be read as shares of the variance,
// why and how to read them; "" when they can. They cannot when the first orders sum above
// 1 beyond rounding (parameters dependent in the sample share variance, which each first
// order counts), or when most total orders fall below their first orders in a sample small
// enough for noise to matter (the noise floors of the first orders, (k-1)/(N-1) per
// parameter of k values, sum to 0.1 or more).
func empiricalCaveat(s *sensitivity.Sobol, params []space.Param, subset []int, cfgs []space.Config) string {
	sum, below := 0.0, 0
	for i := range s.First {
		f, t := s.First[i].Value, s.Total[i].Value
		if !math.IsNaN(f) {
			sum += f
		}
		if !math.IsNaN(f) && !math.IsNaN(t) && t < f-0.0005 {
			below++
		}
	}
	n, analysed := s.Samples, subsetOrAll(params, subset)
	noise, ks := 0.0, map[int]bool{}
	for _, p := range analysed {
		k := distinctValues(cfgs, p)
		ks[k] = true
		noise += float64(k-1) / float64(max(n-1, 1))
	}
	over, noisy := sum > 1.005, noise >= 0.1
	if !over && !(noisy && 2*below > len(s.Total)) {
		return ""
	}
	var what []string
	if over {
		what = append(what, fmt.Sprintf("the first-order indices sum to %.2f, more than the whole variance", sum))
	}
	if below > 0 {
		what = append(what, fmt.Sprintf("%d of the %d total-order indices %s below %s first order", below, len(s.Total),
			plural(below, "falls", "fall"), plural(below, "its", "their")))
	}
	floor := ""
	if noisy {
		var floors []string
		for _, k := range slices.Sorted(maps.Keys(ks)) {
			if k > 1 && len(floors) < 3 {
				floors = append(floors, fmt.Sprintf("%.3f for %d values", float64(k-1)/float64(max(n-1, 1)), k))
			}
		}
		floor = fmt.Sprintf(" With %d configurations for %d parameters the conditional means rest on few configurations each and carry much noise: "+
			"a parameter that does not matter at all gets (k-1)/%d from noise alone, k its values (%s), %.2f summed over the parameters.",
			n, len(analysed), max(n-1, 1), strings.Join(floors, ", "), noise)
	}
	return fmt.Sprintf("the empirical Sobol indices are not shares of the variance here: %s.%s "+
		"The parameters are dependent in the sample (restrictions, failures or a strategy's choices keep it from the full product), so their first orders overlap, "+
		"and the total orders, lower bounds from the configurations that share all other values, say little. "+
		"Read the indices as a rough ranking at best, beside the significance; more configurations, or a Saltelli design (strategy saltelli), give indices worth reading",
		strings.Join(what, " and "), floor)
}

// saltelliOf rebuilds the Saltelli design a run of strategy saltelli evaluated, from the
// run's seed, budget and options, and estimates the indices from its evaluations. Its
// intervals take their resamples and seed from so (the analysis's --bootstrap and --seed),
// as the empirical indices do.
func saltelliOf(ctx context.Context, run *store.RunInfo, rec *result.Recording, value func(*result.Evaluation) float64, so sensitivity.Options) (*sensitivity.Sobol, error) {
	sp, err := expr.NewSpace(rec.Params, rec.Restrictions)
	if err != nil {
		return nil, err
	}
	var settings struct {
		Budget int `json:"budget"`
	}
	if len(run.Settings) > 0 {
		if err := json.Unmarshal(run.Settings, &settings); err != nil {
			return nil, fmt.Errorf("run settings: %w", err)
		}
	}
	opts := map[string]any{}
	if len(run.StrategyOptions) > 0 {
		if err := json.Unmarshal(run.StrategyOptions, &opts); err != nil {
			return nil, fmt.Errorf("run's strategy options: %w", err)
		}
	}
	ro, err := strategy.SaltelliOptions(opts)
	if err != nil {
		return nil, err
	}
	d, err := sensitivity.RunDesign(sp, run.Seed, settings.Budget, ro)
	if err != nil {
		return nil, err
	}
	d.Bootstrap, d.Seed = so.Resamples(), so.Seed
	byIndex := map[int]float64{}
	for i := range rec.Evaluations {
		e := &rec.Evaluations[i]
		c, err := sp.ConfigOf(e.Config)
		if err != nil {
			continue
		}
		idx, ok := sp.Index(c)
		if !ok {
			continue
		}
		if _, seen := byIndex[idx]; !seen {
			byIndex[idx] = value(e)
		}
	}
	y := make([]float64, len(d.Points))
	for i, c := range d.Points {
		y[i] = math.NaN()
		if idx, ok := sp.Index(c); ok {
			if v, ok := byIndex[idx]; ok {
				y[i] = v
			}
		}
	}
	return d.Estimate(ctx, y)
}
