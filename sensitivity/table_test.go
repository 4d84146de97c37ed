package sensitivity

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/ktune/ktune/space"
)

// ishigami is the classic test function of sensitivity analysis with a = 7, b = 0.1.
func ishigami(x1, x2, x3 float64) float64 {
	return math.Sin(x1) + 7*math.Pow(math.Sin(x2), 2) + 0.1*math.Pow(x3, 4)*math.Sin(x1)
}

// Analytic Sobol indices of the Ishigami function for uniform inputs on [-pi, pi]^3,
// derived from its variance terms (a = 7, b = 0.1).
var ishigamiIndices = func() (r struct{ S1, S2, S3, ST1, ST2, ST3, S12, S13, S23 float64 }) {
	a, b, pi := 7.0, 0.1, math.Pi
	V1 := 0.5 * math.Pow(1+b*math.Pow(pi, 4)/5, 2)
	V2 := a * a / 8
	V13 := b * b * math.Pow(pi, 8) * (1.0/18 - 1.0/50)
	V := V1 + V2 + V13
	r.S1, r.S2, r.S3 = V1/V, V2/V, 0
	r.ST1, r.ST2, r.ST3 = (V1+V13)/V, V2/V, V13/V
	r.S13 = V13 / V
	return r
}()

// grid returns m equally spaced midpoints of [-pi, pi] as a float parameter.
func grid(name string, m int) space.Param {
	p := space.Param{Name: name}
	for i := range m {
		p.Values = append(p.Values, space.FloatValue(-math.Pi+(float64(i)+0.5)*2*math.Pi/float64(m)))
	}
	return p
}

// ishigamiTable returns the full product table of the Ishigami function on an m^3 grid.
func ishigamiTable(m int) ([]space.Param, []space.Config, []float64) {
	params := []space.Param{grid("x1", m), grid("x2", m), grid("x3", m)}
	var cfgs []space.Config
	var y []float64
	for i := range m {
		for j := range m {
			for k := range m {
				cfgs = append(cfgs, space.Config{i, j, k})
				y = append(y, ishigami(params[0].Values[i].Float(), params[1].Values[j].Float(), params[2].Values[k].Float()))
			}
		}
	}
	return params, cfgs, y
}

func TestIshigamiLiteratureValuesAreRight(t *testing.T) {
	// The analytic values as the literature rounds them, so a slip in the formulas above
	// cannot pass unnoticed.
	r := ishigamiIndices
	for _, c := range []struct{ got, want float64 }{
		{r.S1, 0.3139}, {r.S2, 0.4424}, {r.ST1, 0.5576}, {r.ST2, 0.4424}, {r.ST3, 0.2437}, {r.S13, 0.2437},
	} {
		if math.Abs(c.got-c.want) > 1e-4 {
			t.Errorf("analytic index %v, literature %v", c.got, c.want)
		}
	}
}

func TestExactIshigamiOnAFineGridMatchesTheAnalyticIndices(t *testing.T) {
	params, cfgs, y := ishigamiTable(64)
	s, err := SobolTable(context.Background(), params, cfgs, y, Options{SecondOrder: true, Bootstrap: -1})
	if err != nil {
		t.Fatal(err)
	}
	if s.Method != Exact || s.Samples != len(y) || s.Bootstrap != 0 {
		t.Fatalf("method %s, samples %d, bootstrap %d; want exact over %d, no bootstrap", s.Method, s.Samples, s.Bootstrap, len(y))
	}
	r := ishigamiIndices
	checks := []struct {
		name      string
		got, want float64
	}{
		{"S1", s.First[0].Value, r.S1}, {"S2", s.First[1].Value, r.S2}, {"S3", s.First[2].Value, r.S3},
		{"ST1", s.Total[0].Value, r.ST1}, {"ST2", s.Total[1].Value, r.ST2}, {"ST3", s.Total[2].Value, r.ST3},
		{"S12", s.Second[0].Index.Value, r.S12}, {"S13", s.Second[1].Index.Value, r.S13}, {"S23", s.Second[2].Index.Value, r.S23},
	}
	for _, c := range checks {
		if math.Abs(c.got-c.want) > 0.002 {
			t.Errorf("%s = %.4f, analytic %.4f", c.name, c.got, c.want)
		}
	}
	if p := s.Second[1]; p.I != 0 || p.J != 2 {
		t.Errorf("second pair = (%d, %d), want (0, 2)", p.I, p.J)
	}
	if !math.IsNaN(s.First[0].Low) {
		t.Errorf("interval without bootstrap = %+v, want NaN bounds", s.First[0])
	}
}

// TestAdditiveFunctionHasNoInteractions checks y = sum c_i g_i(x_i) on a full product:
// S_i = ST_i = c_i^2 Var(g_i) / sum_j c_j^2 Var(g_j) and S_ij = 0, to rounding.
func TestAdditiveFunctionHasNoInteractions(t *testing.T) {
	g := [][]float64{{0, 1, 5, 2}, {3, -1, 0, 0, 7}, {1, 2}}
	c := []float64{1, 0.5, 3}
	params := make([]space.Param, len(g))
	for i, gi := range g {
		params[i].Name = string(rune('a' + i))
		for v := range gi {
			params[i].Values = append(params[i].Values, space.IntValue(int64(v)))
		}
	}
	var cfgs []space.Config
	var y []float64
	for a := range g[0] {
		for b := range g[1] {
			for d := range g[2] {
				cfgs = append(cfgs, space.Config{a, b, d})
				y = append(y, c[0]*g[0][a]+c[1]*g[1][b]+c[2]*g[2][d])
			}
		}
	}
	popVar := func(x []float64) float64 {
		var m, v float64
		for _, e := range x {
			m += e
		}
		m /= float64(len(x))
		for _, e := range x {
			v += (e - m) * (e - m)
		}
		return v / float64(len(x))
	}
	var parts []float64
	var sum float64
	for i := range g {
		parts = append(parts, c[i]*c[i]*popVar(g[i]))
		sum += parts[i]
	}
	s, err := SobolTable(context.Background(), params, cfgs, y, Options{SecondOrder: true, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if s.Method != Exact {
		t.Fatalf("method %s, want exact", s.Method)
	}
	for i := range g {
		want := parts[i] / sum
		if math.Abs(s.First[i].Value-want) > 1e-12 || math.Abs(s.Total[i].Value-want) > 1e-12 {
			t.Errorf("%s: S = %v, ST = %v, want both %v", s.Params[i], s.First[i].Value, s.Total[i].Value, want)
		}
	}
	for _, p := range s.Second {
		if math.Abs(p.Index.Value) > 1e-12 {
			t.Errorf("S_%s%s = %v, want 0", s.Params[p.I], s.Params[p.J], p.Index.Value)
		}
	}
	// Exact indices describe the whole product, measured: resampling it has nothing to say.
	if s.Bootstrap != 0 {
		t.Errorf("bootstrap = %d for exact indices, want none", s.Bootstrap)
	}
	for i := range s.First {
		for _, iv := range []Interval{s.First[i], s.Total[i]} {
			if !math.IsNaN(iv.Low) || !math.IsNaN(iv.High) {
				t.Errorf("%s: exact index has the interval %+v, want none", s.Params[i], iv)
			}
		}
	}
	if !strings.Contains(s.Note, "no bootstrap intervals") {
		t.Errorf("the exact note does not say why there are no intervals: %q", s.Note)
	}
}

// TestEmpiricalByHand works a four-row table with two binary parameters by hand.
//
//	a b | y
//	0 0 | 1
//	0 1 | 2
//	1 0 | 3
//	1 0 | 6   (a duplicate combination: the table is not a product)
//
// Var(Y): mean 3, deviations -2 -1 0 3 -> (4+1+0+9)/4 = 3.5.
// E[Y|a=0] = 1.5 (w 2), E[Y|a=1] = 4.5 (w 2): V_a = (2*1.5^2 + 2*1.5^2)/4 = 2.25.
// E[Y|b=0] = 10/3 (w 3), E[Y|b=1] = 2 (w 1): V_b = (3*(1/3)^2 + 1*1)/4 = 1/3.
// Groups of X_~a = b are the b groups, so ST_a = 1 - V_b/V; likewise ST_b = 1 - V_a/V.
// The pair (a, b) has groups {00}, {01}, {10 10}: means 1, 2, 4.5:
// V_ab = (4 + 1 + 2*2.25)/4 = 2.375; S_ab = (2.375 - 2.25 - 1/3)/3.5.
func TestEmpiricalByHand(t *testing.T) {
	params := []space.Param{
		{Name: "a", Values: []space.Value{space.IntValue(0), space.IntValue(1)}},
		{Name: "b", Values: []space.Value{space.IntValue(0), space.IntValue(1)}},
	}
	cfgs := []space.Config{{0, 0}, {0, 1}, {1, 0}, {1, 0}, {1, 1}}
	y := []float64{1, 2, 3, 6, math.NaN()} // the failed row is dropped
	s, err := SobolTable(context.Background(), params, cfgs, y, Options{SecondOrder: true, Bootstrap: -1})
	if err != nil {
		t.Fatal(err)
	}
	V, Va, Vb, Vab := 3.5, 2.25, 1.0/3, 2.375
	want := []float64{Va / V, Vb / V, 1 - Vb/V, 1 - Va/V, (Vab - Va - Vb) / V}
	got := []float64{s.First[0].Value, s.First[1].Value, s.Total[0].Value, s.Total[1].Value, s.Second[0].Index.Value}
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-12 {
			t.Errorf("index %d = %v, want %v", i, got[i], want[i])
		}
	}
	if s.Method != Empirical || s.Samples != 4 || !strings.Contains(s.Note, "lower bounds") {
		t.Errorf("method %s, samples %d, note %q; want empirical over 4 rows with a note on totals", s.Method, s.Samples, s.Note)
	}
}

func TestDuplicatedProductIsEmpiricalWithTheSameIndices(t *testing.T) {
	params, cfgs, y := ishigamiTable(8)
	exact, err := SobolTable(context.Background(), params, cfgs, y, Options{SecondOrder: true, Bootstrap: -1})
	if err != nil {
		t.Fatal(err)
	}
	twice, err := SobolTable(context.Background(), params, append(cfgs, cfgs...), append(y, y...), Options{SecondOrder: true, Bootstrap: -1})
	if err != nil {
		t.Fatal(err)
	}
	if exact.Method != Exact || twice.Method != Empirical {
		t.Fatalf("methods %s, %s; want exact then empirical", exact.Method, twice.Method)
	}
	for i := range exact.First {
		if math.Abs(exact.First[i].Value-twice.First[i].Value) > 1e-12 || math.Abs(exact.Total[i].Value-twice.Total[i].Value) > 1e-12 {
			t.Errorf("param %d: exact %v/%v, duplicated %v/%v", i, exact.First[i].Value, exact.Total[i].Value, twice.First[i].Value, twice.Total[i].Value)
		}
	}
	// Dropping one configuration breaks the product.
	part, err := SobolTable(context.Background(), params, cfgs[1:], y[1:], Options{Bootstrap: -1})
	if err != nil || part.Method != Empirical {
		t.Errorf("partial table: method %v, err %v; want empirical", part, err)
	}
}

func TestSubsetLimitsTheIndicesNotTheModel(t *testing.T) {
	params, cfgs, y := ishigamiTable(16)
	all, err := SobolTable(context.Background(), params, cfgs, y, Options{SecondOrder: true, Bootstrap: -1})
	if err != nil {
		t.Fatal(err)
	}
	sub, err := SobolTable(context.Background(), params, cfgs, y, Options{Subset: []int{2, 0}, SecondOrder: true, Bootstrap: -1})
	if err != nil {
		t.Fatal(err)
	}
	if len(sub.First) != 2 || sub.Params[0] != "x3" || sub.Params[1] != "x1" || len(sub.Second) != 1 {
		t.Fatalf("subset result: params %v, %d firsts, %d pairs", sub.Params, len(sub.First), len(sub.Second))
	}
	if sub.Total[0].Value != all.Total[2].Value || sub.First[1].Value != all.First[0].Value {
		t.Errorf("subset indices differ from the full analysis: %v vs %v", sub.Total[0].Value, all.Total[2].Value)
	}
	if got, want := sub.Second[0].Index.Value, all.Second[1].Index.Value; math.Abs(got-want) > 1e-12 {
		t.Errorf("S_31 = %v, S_13 = %v", got, want)
	}
	for _, bad := range [][]int{{}, {3}, {0, 0}, {-1}} {
		if _, err := SobolTable(context.Background(), params, cfgs, y, Options{Subset: bad}); err == nil {
			t.Errorf("subset %v accepted", bad)
		}
	}
	// a parameter named twice is named, not numbered (QA: "subset names parameter 2 twice")
	if _, err := SobolTable(context.Background(), params, cfgs, y, Options{Subset: []int{2, 2}}); err == nil || !strings.Contains(err.Error(), "name x3 twice") {
		t.Errorf("subset {2, 2}: %v, want the error to name x3", err)
	}
	if _, err := ParamIndices(params, []string{"x1", "x3", "x1"}); err == nil || err.Error() != `parameter "x1" is named twice` {
		t.Errorf("x1, x3, x1: %v, want x1 named twice", err)
	}
}

func TestSobolTableRejectsUnusableTables(t *testing.T) {
	params := []space.Param{{Name: "a", Values: []space.Value{space.IntValue(0), space.IntValue(1)}}}
	if _, err := SobolTable(context.Background(), params, []space.Config{{0}, {1}}, []float64{2, 2}, Options{}); !errors.Is(err, ErrConstant) {
		t.Errorf("constant objective: %v, want ErrConstant", err)
	}
	if _, err := SobolTable(context.Background(), params, []space.Config{{0}, {1}}, []float64{2}, Options{}); err == nil {
		t.Error("mismatched lengths accepted")
	}
	if _, err := SobolTable(context.Background(), params, []space.Config{{0}, {2}}, []float64{1, 2}, Options{}); err == nil {
		t.Error("value index out of range accepted")
	}
}

func TestSobolJSONWritesNaNAsNull(t *testing.T) {
	params, cfgs, y := ishigamiTable(6)
	s, err := SobolTable(context.Background(), params, cfgs, y, Options{SecondOrder: true, Bootstrap: -1})
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"low":null`) || !strings.Contains(string(b), `"method":"exact"`) {
		t.Errorf("JSON %s lacks null bounds or the method", b)
	}
	var back Sobol
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if back.First[1].Value != s.First[1].Value || !math.IsNaN(back.First[1].Low) || back.Second[2].J != 2 {
		t.Errorf("round trip changed the result: %+v", back.First[1])
	}
}
