package stencil

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/ktune/ktune/result"
	"github.com/ktune/ktune/stats"
)

// Seed 002's performance prediction (Section 4.4): a regression of a stencil's run time
// on its features (Table 2) and a parameter setting. The settings of the optimisation
// combinations (OCs: which of block merging, cyclic merging, streaming, retiming and
// prefetching are on) have different parameters, so each is zero-padded to one vector of
// every optimisation's parameters (Figure 7's zero-padding format, ZPNet's input): a
// parameter that the setting's OC lacks is 0. Numeric parameters enter as their log2 and
// switches as 0 or 1, as the paper does.

// settingSlots are the zero-padded setting's entries, in order: every parameter the
// emitted specs have (emit.go), 2D and 3D alike.
var settingSlots = []string{
	"block_size_x", "block_size_y", "block_size_z",
	"block_merge", "cyclic_merge",
	"streaming", "stream_tile", "retiming", "prefetching", "temporal_block",
}

// Combination names the optimisation combination a setting (parameter name to value)
// belongs to: the optimisations it turns on, of BM (block_merge above 1), CM
// (cyclic_merge above 1), ST (streaming), RT (retiming), PR (prefetching) and TB
// (temporal_block above 1), joined
// by "+", or "none". Block sizes belong to every combination.
func Combination(setting map[string]float64) string {
	var on []string
	for _, o := range []struct {
		name, param string
		off         float64 // the parameter's value when the optimisation is off
	}{
		{"BM", "block_merge", 1}, {"CM", "cyclic_merge", 1},
		{"ST", "streaming", 0}, {"RT", "retiming", 0}, {"PR", "prefetching", 0},
		{"TB", "temporal_block", 1},
	} {
		if v, ok := setting[o.param]; ok && v != o.off {
			on = append(on, o.name)
		}
	}
	if len(on) == 0 {
		return "none"
	}
	return strings.Join(on, "+")
}

// CheckSetting reports the first parameter of a setting that the model has no place for:
// a space whose parameters are not the emitted specs' cannot be predicted.
func CheckSetting(names []string) error {
	for _, n := range names {
		if !slices.Contains(settingSlots, n) {
			return fmt.Errorf("parameter %s is not one of the stencil optimisations' (%s): the model predicts the spaces of 'ktune stencil generate'", n, strings.Join(settingSlots, ", "))
		}
	}
	return nil
}

// padSetting appends the zero-padded setting to x: log2 of a numeric parameter that its
// combination has, the switches as they are, and 0 for the parameters it lacks (a 2D
// stencil's block_size_z, stream_tile without streaming, merging factors of 1).
func padSetting(x []float64, setting map[string]float64) []float64 {
	on := setting["streaming"] != 0
	for _, name := range settingSlots {
		v, ok := setting[name]
		switch {
		case !ok:
			x = append(x, 0)
		case name == "streaming" || name == "retiming" || name == "prefetching":
			x = append(x, v)
		case name == "stream_tile" && !on:
			x = append(x, 0)
		default:
			x = append(x, math.Log2(max(v, 1)))
		}
	}
	return x
}

// Encode is the model's input for a setting of the stencil: its dimension and Table 2
// features (per order and per step counts zero-padded to 3D stencils of MaxOrder), then
// the zero-padded setting.
func Encode(s *Stencil, setting map[string]float64) []float64 {
	_, f := s.Features().Vector(3, MaxOrder)
	x := append([]float64{float64(s.Dim)}, f...)
	return padSetting(x, setting)
}

// EncodingNames names the entries of Encode's vector.
func EncodingNames() []string {
	names, _ := Features{}.Vector(3, MaxOrder)
	return slices.Concat([]string{"dim"}, names, settingSlots)
}

// Sample is one measurement: a setting of a stencil and its kernel time.
type Sample struct {
	Stencil *Stencil
	Setting map[string]float64
	TimeMS  float64
}

// Model predicts a stencil kernel's time in ms from the stencil and a setting. It fits the
// logarithm of the time per point of the stencil (time / nnz), so that its errors are
// relative, as the paper's MAPE is, and so that a stencil with more or fewer points than
// any it was trained on is still predicted in proportion to its work: the trees, which
// cannot extrapolate, learn what the setting and the stencil's shape change about the
// time of a point (on the stencils of testdata/measured the median time per point stays
// within 0.4-0.6 ms, from 9 to 23 points, while the time itself grows threefold).
type Model struct {
	// Stencils names the stencils it was trained on, and Samples counts the measurements.
	Stencils []string `json:"stencils"`
	Samples  int      `json:"samples"`
	Params   gbParams `json:"params"`
	Inputs   []string `json:"inputs"` // EncodingNames at training
	gb       gbModel
}

// TrainOptions sizes a model; zero values take ktune's defaults.
type TrainOptions struct {
	Trees int    // boosting rounds (default 150)
	Depth int    // deepest leaf (default 3)
	Seed  uint64 // the subsamples' seed
}

// Train fits a model to the samples, the same one for the same samples and seed.
func Train(samples []Sample, o TrainOptions) (*Model, error) {
	if len(samples) < 10 {
		return nil, fmt.Errorf("train a stencil model: %d measurements, want at least 10", len(samples))
	}
	p := defaultGBParams
	if o.Trees > 0 {
		p.Trees = o.Trees
	}
	if o.Depth > 0 {
		p.Depth = o.Depth
	}
	x := make([][]float64, len(samples))
	y := make([]float64, len(samples))
	var names []string
	for i, s := range samples {
		if !(s.TimeMS > 0) || math.IsInf(s.TimeMS, 0) {
			return nil, fmt.Errorf("train a stencil model: measurement %d of %s has time %v ms, want above 0", i, s.Stencil.Name, s.TimeMS)
		}
		x[i] = Encode(s.Stencil, s.Setting)
		y[i] = math.Log(s.TimeMS / float64(len(s.Stencil.Points)))
		if !slices.Contains(names, s.Stencil.Name) {
			names = append(names, s.Stencil.Name)
		}
	}
	r := rand.New(rand.NewPCG(o.Seed, 0x67627274)) // "gbrt"
	m := &Model{Stencils: names, Samples: len(samples), Params: p, Inputs: EncodingNames()}
	m.gb = *gbFit(x, y, p, r)
	return m, nil
}

// Predict returns the predicted kernel time in ms of the setting of s.
func (m *Model) Predict(s *Stencil, setting map[string]float64) float64 {
	return math.Exp(m.gb.predict(Encode(s, setting))) * float64(len(s.Points))
}

// modelFile is a model on disk.
type modelFile struct {
	Format string `json:"format"`
	*Model
	Base  float64  `json:"base"`
	Trees []gbTree `json:"trees"`
}

const modelFormat = "ktune-stencil-model/2" // 2: the log time per point

// Save writes the model as JSON.
func (m *Model) Save(w io.Writer) error {
	return json.NewEncoder(w).Encode(modelFile{Format: modelFormat, Model: m, Base: m.gb.Base, Trees: m.gb.Trees})
}

// LoadModel reads a model that Save wrote.
func LoadModel(r io.Reader, source string) (*Model, error) {
	f := modelFile{Model: &Model{}}
	if err := json.NewDecoder(r).Decode(&f); err != nil {
		return nil, fmt.Errorf("stencil model %s: %w (want a file written by 'ktune stencil train')", source, err)
	}
	if f.Format != modelFormat {
		return nil, fmt.Errorf("stencil model %s: format %q, want %q (written by 'ktune stencil train')", source, f.Format, modelFormat)
	}
	if !slices.Equal(f.Inputs, EncodingNames()) {
		return nil, fmt.Errorf("stencil model %s: its inputs are not this ktune's encoding; train it again with 'ktune stencil train'", source)
	}
	if len(f.Trees) == 0 {
		return nil, fmt.Errorf("stencil model %s: no trees", source)
	}
	n := len(f.Inputs)
	for k, t := range f.Trees {
		for _, nd := range t {
			if nd.Feat >= n {
				return nil, fmt.Errorf("stencil model %s: tree %d tests input %d of %d", source, k, nd.Feat, n)
			}
		}
		if err := t.link(); err != nil {
			return nil, fmt.Errorf("stencil model %s: tree %d: %w", source, k, err)
		}
	}
	m := f.Model
	m.gb = gbModel{Base: f.Base, Trees: f.Trees}
	return m, nil
}

var namePattern = regexp.MustCompile(`^(star|box|random)([23])d([0-9]+)r(?:_s([0-9]+))?$`)

// FromName makes the stencil that Generate names name (star3d2r, box2d1r,
// random2d3r_s14): the kernel name of a generated spec says its shape, dimension, order
// and, for a random stencil, the seed, and so its points. The coefficients of a star or
// box come from seed 1, 'ktune stencil generate”s default; the model does not use them.
func FromName(name string) (*Stencil, error) {
	m := namePattern.FindStringSubmatch(name)
	if m == nil {
		return nil, fmt.Errorf("stencil name %q: want SHAPE{2,3}dORDERr, with _sSEED for a random one (star3d2r, random2d3r_s14), as 'ktune stencil generate' names its kernels", name)
	}
	o := Options{Shape: Shape(m[1]), Seed: 1}
	o.Dim, _ = strconv.Atoi(m[2])
	o.Order, _ = strconv.Atoi(m[3])
	if o.Shape == Random {
		if m[4] == "" {
			return nil, fmt.Errorf("stencil name %q: a random stencil's name ends in _sSEED", name)
		}
		seed, err := strconv.ParseUint(m[4], 10, 64)
		if err != nil {
			return nil, fmt.Errorf("stencil name %q: seed: %w", name, err)
		}
		o.Seed = seed
	} else if m[4] != "" {
		return nil, fmt.Errorf("stencil name %q: only a random stencil has a seed", name)
	}
	return Generate(o)
}

// ErrNotStencil says a recording is not of a generated stencil's spec.
var ErrNotStencil = errors.New("not a recording of a 'ktune stencil generate' spec")

// RecordingSamples returns the successful measurements of a recording of a generated
// stencil's spec (its kernel named as Generate names it), with their kernel times.
func RecordingSamples(rec *result.Recording) ([]Sample, error) {
	s, err := FromName(rec.Kernel)
	if err != nil {
		return nil, fmt.Errorf("%s: %w: %v", rec.Source, ErrNotStencil, err)
	}
	names := make([]string, len(rec.Params))
	for i, p := range rec.Params {
		names[i] = p.Name
	}
	if err := CheckSetting(names); err != nil {
		return nil, fmt.Errorf("%s: %w", rec.Source, err)
	}
	var out []Sample
	for i := range rec.Evaluations {
		e := &rec.Evaluations[i]
		if e.Failed() {
			continue
		}
		ms, ok := e.TimeMS(rec.Objective)
		if !ok || !(ms > 0) {
			continue
		}
		set := make(map[string]float64, len(names))
		for j, v := range e.Config {
			if !v.IsNumeric() {
				return nil, fmt.Errorf("%s: parameter %s has the value %s, want a number", rec.Source, names[j], v)
			}
			set[names[j]] = v.Float()
		}
		out = append(out, Sample{Stencil: s, Setting: set, TimeMS: ms})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no successful measurement with a kernel time", rec.Source)
	}
	return out, nil
}

// MAPE is the mean absolute percentage error of predictions against measured times, in
// percent (the paper's metric, Section 5.1.4).
func MAPE(pred, meas []float64) float64 {
	sum := 0.0
	for i := range meas {
		sum += math.Abs(pred[i]-meas[i]) / meas[i]
	}
	return 100 * sum / float64(len(meas))
}

// MeanMedianTime returns the mean and the median kernel time of the samples: the
// constant predictions a model must beat.
func MeanMedianTime(samples []Sample) (mean, median float64) {
	ts := make([]float64, len(samples))
	for i, s := range samples {
		ts[i] = s.TimeMS
		mean += s.TimeMS
	}
	slices.Sort(ts)
	n := len(ts)
	if n == 0 {
		return math.NaN(), math.NaN()
	}
	median = ts[n/2]
	if n%2 == 0 {
		median = (ts[n/2-1] + ts[n/2]) / 2
	}
	return mean / float64(n), median
}

// Spearman is the rank correlation of predictions and measurements (ties ranked by
// their mean rank): how well the model orders one stencil's settings, which is what
// Algorithm 2 uses it for. It is 0 where either side is constant (stats.Spearman's NaN),
// so that it prints and encodes as a number.
func Spearman(pred, meas []float64) float64 {
	if r := stats.Spearman(pred, meas); !math.IsNaN(r) {
		return r
	}
	return 0
}
