package strategy

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"path/filepath"
	"sync"

	"github.com/ktune/ktune/format"
	_ "github.com/ktune/ktune/format/all" // the model's recording may be in any format ktune reads
	"github.com/ktune/ktune/profile"
	"github.com/ktune/ktune/result"
	"github.com/ktune/ktune/space"
)

var profileFactory = Factory{
	Doc: "Seed 001's profile-based searcher (Filipovič et al., Algorithm 1): random search " +
		"biased by hardware performance counters. Each evaluation's Nsight Compute counters " +
		"(Table 1) give the bottlenecks of the best configuration of the last batch and the " +
		"changes of operation counters (PCops) that would relieve them (eqs. 6-15); a model " +
		"from tuning parameters to PCops, trained beforehand on a recording with counters " +
		"(least squares per binary subspace, or regression trees with learner=tree), scores " +
		"every configuration not yet evaluated by how it moves those counters (eqs. " +
		"16-17), and the next batch is drawn with " +
		"probabilities by score. It needs counters with every evaluation, which only a " +
		"simulation of a recording that carries them has (the KTT recordings of " +
		"convolution, pnpoly and coulomb_sum_3d on an RTX 2080 Ti): where evaluations " +
		"bring no counters (real tuning: PoCL and ktune's backends collect none), or no " +
		"model is given, it runs as random search and logs a warning once. The paper " +
		"trains on one GPU and tunes on another; ktune's recordings have counters of one " +
		"GPU only, so its figures (BENCHMARKS.md) train on the recording searched.",
	Options: []Option{
		{Name: "model", Default: "none (random search)", Doc: "recording with profiling counters (a KTT JSON file) to train the model of tuning parameters to counters on; its parameters must be the space's", Kind: fileKind()},
		{Name: "train", Default: "all", Doc: "what of the model's recording it learns from: all of it, or sample, the paper's deliberate sample (per subspace the smallest, median and largest value of every other parameter)", Kind: ChoiceKind("all", "sample")},
		{Name: "learner", Default: "least_squares", Doc: "the model of tuning parameters to counters: least_squares, the paper's polynomial per binary subspace (Section 3.4.1), or tree, its decision tree (Section 3.4.2): one regression tree per counter, its depth (1-32) and smallest leaf (1-16 configurations) chosen by error on a fixed random half of the training configurations after growing on the other half, then grown on all of them", Kind: ChoiceKind("least_squares", "tree")},
		{Name: "batch", Default: "5", Doc: "configurations drawn from one scoring before the fastest of them is profiled and the space scored again (the paper's n)", Kind: IntKind()},
		{Name: "inst_reaction", Default: "0.7", Doc: "instruction bottlenecks up to this are ignored (eq. 15); the paper takes 0.5 for instruction-bound kernels", Kind: FloatKind()},
		{Name: "cores", Default: "4352", Doc: "CUDA cores of the GPU the counters come from (eq. 14's parallelism bottleneck; 4352: the RTX 2080 Ti of the recordings); 0 leaves that bottleneck out", Kind: IntKind()},
	},
	New: newProfileSearch,
}

type profileSearch struct {
	model    profile.Predictor // nil: random search
	batch    int
	reaction float64
	cores    int
}

func newProfileSearch(o Options) (Strategy, error) {
	s := &profileSearch{}
	var err error
	if s.batch, err = o.Int("batch", 5); err != nil {
		return nil, err
	}
	if s.batch < 1 || s.batch > maxPopulation {
		return nil, fmt.Errorf("option batch: %d is outside [1, %d]", s.batch, maxPopulation)
	}
	if s.reaction, err = o.Float("inst_reaction", profile.InstReaction); err != nil {
		return nil, err
	}
	if !(s.reaction >= 0 && s.reaction < 1) {
		return nil, fmt.Errorf("option inst_reaction: %v is outside [0, 1)", s.reaction)
	}
	if s.cores, err = o.Int("cores", 4352); err != nil {
		return nil, err
	}
	if s.cores < 0 {
		return nil, fmt.Errorf("option cores: %d is below 0", s.cores)
	}
	train, err := o.Choice("train", "all", "all", "sample")
	if err != nil {
		return nil, err
	}
	learner, err := o.Choice("learner", "least_squares", "least_squares", "tree")
	if err != nil {
		return nil, err
	}
	if _, ok := o["model"]; ok {
		path, err := o.file("model")
		if err != nil {
			return nil, err
		}
		if s.model, err = loadModel(path, learner, train == "sample"); err != nil {
			return nil, fmt.Errorf("option model: %w", err)
		}
	}
	return s, nil
}

// fileKind is an option that names a file: its value is the name as given, which must be a
// non-empty string.
func fileKind() Kind {
	return Kind{func(o Options, name string) (any, error) { return o.file(name) }}
}

func (o Options) file(name string) (string, error) {
	v := o[name]
	path, ok := v.(string)
	if !ok || path == "" {
		return "", fmt.Errorf("option %s: %s is not a file name", name, valueText(v))
	}
	return path, nil
}

// models keeps the models trained in this process by file, learner and training, so that the
// thousands of runs of a benchmark read and fit the recording once.
var models struct {
	sync.Mutex
	byKey map[string]profile.Predictor
}

func loadModel(path, learner string, sample bool) (profile.Predictor, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	key := fmt.Sprintf("%s\x00%s\x00%v", abs, learner, sample)
	models.Lock()
	defer models.Unlock()
	if m, ok := models.byKey[key]; ok {
		return m, nil
	}
	rec, err := format.Open(path)
	if err != nil {
		return nil, err
	}
	var m profile.Predictor
	if learner == "tree" {
		m, err = profile.TrainTree(rec, profile.TreeOptions{Sample: sample})
	} else {
		m, err = profile.Train(rec, profile.TrainOptions{Sample: sample})
	}
	if err != nil {
		return nil, err
	}
	if models.byKey == nil {
		models.byKey = map[string]profile.Predictor{}
	}
	models.byKey[key] = m
	return m, nil
}

func (*profileSearch) Name() string { return "profile" }

// CheckSpace refuses a model trained on other parameters than the space's.
func (s *profileSearch) CheckSpace(sp *space.Space, _ int) error {
	if s.model == nil {
		return nil
	}
	if _, err := s.model.Bind(sp); err != nil {
		return fmt.Errorf("option model: %w", err)
	}
	return nil
}

// Measurements is implemented by problems that keep what each evaluation measured beside
// its fitness (its metrics: profiling counters, power; its launch), as a tuning session
// does: the profile-based searcher reads counters through it.
type Measurements interface {
	// Measured returns the evaluation of c this run made, false when it made none. Its
	// maps and slices are shared and must not be changed.
	Measured(c space.Config) (result.Evaluation, bool)
}

// measurementsOf finds the Measurements under the problems strategies wrap for one
// another.
func measurementsOf(p Problem) Measurements {
	switch w := p.(type) {
	case *stage:
		return measurementsOf(w.Problem)
	case *noiseWatch:
		return measurementsOf(w.Problem)
	}
	m, _ := p.(Measurements)
	return m
}

// warnOnce logs each warning of the profile-based searcher once per process: a benchmark
// runs it thousands of times.
var warnedProfile sync.Map

func warnOnce(msg string, args ...any) {
	if _, dup := warnedProfile.LoadOrStore(msg, true); !dup {
		slog.Warn(msg, args...)
	}
}

// errNoCounters ends the biased search: evaluations bring no counters.
var errNoCounters = errors.New("no counters")

func (s *profileSearch) Run(ctx context.Context, p Problem) error {
	meas := measurementsOf(p)
	switch {
	case s.model == nil:
		warnOnce("profile: no model (option model=FILE, a recording with profiling counters): running random search")
		return random{}.Run(ctx, p)
	case meas == nil:
		warnOnce("profile: evaluations bring no profiling counters here: running random search")
		return random{}.Run(ctx, p)
	}
	sp := p.Space()
	bound, err := s.model.Bind(sp)
	if err != nil {
		return fmt.Errorf("profile: option model: %w", err)
	}
	n := sp.Len()
	// the model's predictions of every configuration, once: scoring reads them each batch
	pred := make([]float64, n*len(profile.Reacted))
	var c space.Config
	for i := range n {
		c = sp.At(i, c)
		bound.Predict(c, pred[i*len(profile.Reacted):(i+1)*len(profile.Reacted)])
	}
	predOf := func(i int) []float64 { return pred[i*len(profile.Reacted) : (i+1)*len(profile.Reacted)] }

	r := p.Rand()
	open := make([]bool, n) // not evaluated yet
	for i := range open {
		open[i] = true
	}
	weights := make([]float64, n)
	left := n
	// evaluate draws index i, evaluates it and returns its fitness and counters (ok false
	// when it failed or brought none)
	evaluate := func(i int) (float64, profile.Counters, bool, error) {
		open[i], weights[i] = false, 0
		left--
		c = sp.At(i, c)
		f, err := p.Evaluate(ctx, c)
		if err != nil || math.IsInf(f, 1) {
			return f, profile.Counters{}, false, err
		}
		e, ok := meas.Measured(c)
		if !ok {
			return f, profile.Counters{}, false, errNoCounters
		}
		ctr, err := profile.Read(&e)
		if err != nil {
			if errors.Is(err, profile.ErrNoCounters) {
				return f, ctr, false, errNoCounters
			}
			warnOnce("profile: "+err.Error()+": such evaluations are not profiled", "configuration", sp.Format(c))
			return f, ctr, false, nil
		}
		return f, ctr, true, nil
	}
	// draw picks an open configuration with probability proportional to its weight
	draw := func() int {
		total := 0.0
		for _, w := range weights {
			total += w
		}
		if total <= 0 || math.IsInf(total, 0) {
			return -1
		}
		x := r.Float64() * total
		last := -1
		for i, w := range weights {
			if w <= 0 {
				continue
			}
			last = i
			if x < w {
				return i
			}
			x -= w
		}
		return last
	}

	// Algorithm 1, line 1: the first profiled configuration is a uniformly random one
	// (one that succeeds: a failure has no counters)
	prof := -1
	var ctr profile.Counters
	for prof < 0 && left > 0 {
		for i := range weights {
			if open[i] {
				weights[i] = 1
			}
		}
		i := draw()
		_, got, ok, err := evaluate(i)
		if errors.Is(err, errNoCounters) {
			return s.fallBack(ctx, p, open)
		}
		if err != nil {
			return stopped(err)
		}
		if ok {
			prof, ctr = i, got
		}
	}
	scores := make([]float64, n)
	for left > 0 {
		if err := ctx.Err(); err != nil {
			return err
		}
		// lines 4-14: bottlenecks, required changes, scores of the configurations left
		b := profile.Analyze(&ctr, s.cores)
		d := profile.Required(&b, s.reaction)
		pp := predOf(prof)
		for i := range n {
			if open[i] {
				scores[i] = profile.Score(&d, pp, predOf(i))
			}
		}
		copy(weights, scores)
		profile.Weights(weights, open)
		// lines 15-25: the batch; its fastest configuration is profiled next
		best, bestF := -1, math.Inf(1)
		var bestCtr profile.Counters
		for k := 0; k < s.batch && left > 0; k++ {
			i := draw()
			if i < 0 {
				return nil
			}
			f, got, ok, err := evaluate(i)
			if errors.Is(err, errNoCounters) {
				return s.fallBack(ctx, p, open)
			}
			if err != nil {
				return stopped(err)
			}
			if ok && f <= bestF {
				best, bestF, bestCtr = i, f, got
			}
		}
		if best >= 0 {
			prof, ctr = best, bestCtr
		}
	}
	return nil
}

// fallBack goes on as random search over the configurations not yet evaluated, once an
// evaluation came without counters.
func (s *profileSearch) fallBack(ctx context.Context, p Problem, open []bool) error {
	warnOnce("profile: evaluations bring " + profile.ErrNoCounters.Error() + ": going on as random search")
	var idx []int
	for i, o := range open {
		if o {
			idx = append(idx, i)
		}
	}
	r, sp := p.Rand(), p.Space()
	var c space.Config
	for len(idx) > 0 {
		j := r.IntN(len(idx))
		i := idx[j]
		idx[j] = idx[len(idx)-1]
		idx = idx[:len(idx)-1]
		c = sp.At(i, c)
		if _, err := p.Evaluate(ctx, c); err != nil {
			return stopped(err)
		}
	}
	return nil
}
