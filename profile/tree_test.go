package profile_test

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/ktune/ktune/profile"
	"github.com/ktune/ktune/result"
)

// logErrors is, per counter of Reacted, |log(1+predicted) - log(1+measured)| over evals.
func logErrors(t *testing.T, m profile.Predictor, evals []result.Evaluation) [][]float64 {
	t.Helper()
	errs := make([][]float64, len(profile.Reacted))
	var p []float64
	for i := range evals {
		e := &evals[i]
		if e.Failed() {
			continue
		}
		c, err := profile.Read(e)
		if err != nil {
			t.Fatal(err)
		}
		p = m.PredictValues(e.Config, p)
		for j, k := range profile.Reacted {
			if !math.IsNaN(c[k]) {
				errs[j] = append(errs[j], math.Abs(math.Log1p(p[j])-math.Log1p(c[k])))
			}
		}
	}
	return errs
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}

func mean(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

// Trained on a whole recording, the trees reproduce the counters they learnt from: the
// median error of log(1+counter) is below 0.01 (1%) for every counter of the three
// recordings, and a tree grown to leaves of one configuration (depth up to 32) reproduces
// every one of them within 0.1%: where it does not exactly, no single split of a leaf's
// few configurations lowers their squared error.
func TestTreeFitsItsTrainingData(t *testing.T) {
	for _, path := range []string{convolutionPath, pnpolyPath, coulombPath} {
		rec := open(t, path)
		tr, err := profile.TrainTree(rec, profile.TreeOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for j, errs := range logErrors(t, tr, rec.Evaluations) {
			if med := median(errs); med > 0.01 {
				t.Errorf("%s: %s median |log error| on the training data %.4f, want below 0.01", path, profile.Reacted[j], med)
			}
		}
		full, err := profile.TrainTree(rec, profile.TreeOptions{Shape: profile.TreeShape{MaxDepth: 32, MinLeaf: 1}})
		if err != nil {
			t.Fatal(err)
		}
		for j, errs := range logErrors(t, full, rec.Evaluations) {
			if worst := slices.Max(errs); worst > 1e-3 {
				t.Errorf("%s: unlimited tree of %s misses a training configuration by %.3g in log(1+counter)", path, profile.Reacted[j], worst)
			}
		}
	}
}

// halves splits a recording's evaluations into a random half to train on and the rest.
func halves(rec *result.Recording, seed uint64) (train *result.Recording, test []result.Evaluation) {
	perm := rand.New(rand.NewPCG(seed, 7)).Perm(len(rec.Evaluations))
	cp := *rec
	cp.Evaluations = nil
	for k, i := range perm {
		if k < len(perm)/2 {
			cp.Evaluations = append(cp.Evaluations, rec.Evaluations[i])
		} else {
			test = append(test, rec.Evaluations[i])
		}
	}
	return &cp, test
}

// Trained on a random half of a recording, the trees predict the other half better than a
// constant does: for every counter that varies by more than 1% about its median, their
// mean error of log(1+counter) is below that of the training half's median (the best
// constant for that error), and summed over the counters it is below a fifth of it.
func TestTreePredictsHeldOutConfigurations(t *testing.T) {
	for _, path := range []string{convolutionPath, pnpolyPath, coulombPath} {
		rec := open(t, path)
		train, test := halves(rec, 3)
		tr, err := profile.TrainTree(train, profile.TreeOptions{})
		if err != nil {
			t.Fatal(err)
		}
		treeErrs := logErrors(t, tr, test)
		var sumTree, sumConst float64
		for j, k := range profile.Reacted {
			var ys []float64
			for i := range train.Evaluations {
				e := &train.Evaluations[i]
				if e.Failed() {
					continue
				}
				c, _ := profile.Read(e)
				if !math.IsNaN(c[k]) {
					ys = append(ys, math.Log1p(max(0, c[k])))
				}
			}
			med := median(ys)
			var constErrs []float64
			for i := range test {
				e := &test[i]
				if e.Failed() {
					continue
				}
				c, _ := profile.Read(e)
				if !math.IsNaN(c[k]) {
					constErrs = append(constErrs, math.Abs(med-math.Log1p(max(0, c[k]))))
				}
			}
			mt, mc := mean(treeErrs[j]), mean(constErrs)
			sumTree += mt
			sumConst += mc
			if mc > 0.01 && !(mt < mc) {
				t.Errorf("%s: %s held-out mean |log error| %.3f, a constant's %.3f", path, k, mt, mc)
			}
		}
		t.Logf("%s: held-out mean |log error| summed over counters: trees %.3f, constant %.3f", path, sumTree, sumConst)
		if !(sumTree < sumConst/5) {
			t.Errorf("%s: trees' summed held-out error %.3f is not below a fifth of a constant's %.3f", path, sumTree, sumConst)
		}
	}
}

// Training twice gives the same trees: shapes and every prediction.
func TestTreeIsDeterministic(t *testing.T) {
	rec := open(t, pnpolyPath)
	for _, sample := range []bool{false, true} {
		a, err := profile.TrainTree(rec, profile.TreeOptions{Sample: sample})
		if err != nil {
			t.Fatal(err)
		}
		b, err := profile.TrainTree(rec, profile.TreeOptions{Sample: sample})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(a.Shapes, b.Shapes) || a.Trained != b.Trained {
			t.Fatalf("sample %v: shapes %v and %v", sample, a.Shapes, b.Shapes)
		}
		for i := range rec.Evaluations {
			v := rec.Evaluations[i].Config
			if p, q := a.PredictValues(v, nil), b.PredictValues(v, nil); !slices.Equal(p, q) {
				t.Fatalf("sample %v: %v predicted %v and %v", sample, v, p, q)
			}
		}
	}
}

// A counter with one value over the recording gets a tree of one leaf, which predicts
// that value everywhere; one that is 0 everywhere is predicted 0.
func TestTreeOfAConstantCounter(t *testing.T) {
	rec := open(t, coulombPath)
	for i := range rec.Evaluations {
		m := map[string]float64{}
		for k, v := range rec.Evaluations[i].Metrics {
			m[k] = v
		}
		for _, name := range profile.Table[profile.InstF32].Metrics {
			m[name] = 1000
		}
		rec.Evaluations[i].Metrics = m
	}
	want, err := profile.Read(firstOK(t, rec))
	if err != nil {
		t.Fatal(err)
	}
	tr, err := profile.TrainTree(rec, profile.TreeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	f32 := slices.Index(profile.Reacted, profile.InstF32)
	f64 := slices.Index(profile.Reacted, profile.InstF64)
	if s := tr.Shapes[f32]; s.Leaves != 1 {
		t.Errorf("constant INST_F32: %d leaves, want 1", s.Leaves)
	}
	for i := range rec.Evaluations {
		p := tr.PredictValues(rec.Evaluations[i].Config, nil)
		if math.Abs(p[f32]-want[profile.InstF32]) > 1e-9*want[profile.InstF32] {
			t.Fatalf("INST_F32 predicted %v, want the constant %v", p[f32], want[profile.InstF32])
		}
		if p[f64] != 0 {
			t.Fatalf("INST_F64, 0 throughout coulomb_sum_3d, predicted %v", p[f64])
		}
	}
}

// A recording with a single configuration with counters trains trees of one leaf each,
// which predict that configuration's counters for every configuration.
func TestTreeOfASingleConfiguration(t *testing.T) {
	rec := open(t, convolutionPath)
	one := *firstOK(t, rec)
	want, err := profile.Read(&one)
	if err != nil {
		t.Fatal(err)
	}
	others := rec.Evaluations
	rec.Evaluations = []result.Evaluation{one}
	tr, err := profile.TrainTree(rec, profile.TreeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if tr.Trained != 1 {
		t.Fatalf("trained on %d configurations, want 1", tr.Trained)
	}
	for j, s := range tr.Shapes {
		if s.Leaves != 1 {
			t.Errorf("%s: %d leaves, want 1", profile.Reacted[j], s.Leaves)
		}
	}
	for _, e := range others[:50] {
		p := tr.PredictValues(e.Config, nil)
		for j, k := range profile.Reacted {
			w := want[k]
			if w < 0.5 {
				w = 0
			}
			if math.Abs(p[j]-w) > 1e-9*max(1, w) {
				t.Fatalf("%s predicted %v for %v, want the single configuration's %v", k, p[j], e.Config, w)
			}
		}
	}
}
