package codec

import (
	"fmt"
	"math"
	"testing"

	"github.com/ktune/ktune/space"
)

func TestValuesKeepTheirKind(t *testing.T) {
	tests := []struct {
		name string
		in   []space.Value
		want string
	}{
		{"ints", []space.Value{space.IntValue(16), space.IntValue(-3), space.IntValue(math.MaxInt64)}, `[16,-3,9223372036854775807]`},
		{"whole floats stay floats", []space.Value{space.FloatValue(2), space.FloatValue(math.Copysign(0, -1)), space.FloatValue(1e20)}, `[2.0,-0.0,1e+20]`},
		{"fractions", []space.Value{space.FloatValue(0.1), space.FloatValue(1e-5), space.FloatValue(1234567.5)}, `[0.1,1e-05,1.2345675e+06]`},
		{"bools", []space.Value{space.BoolValue(true), space.BoolValue(false)}, `[true,false]`},
		{"strings", []space.Value{space.StringValue("row"), space.StringValue("a,b"), space.StringValue("q\"\x01ü")}, `["row","a,b","q\"\u0001ü"]`},
		{"empty", nil, `[]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := Values(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if string(b) != tt.want {
				t.Errorf("Values = %s, want %s", b, tt.want)
			}
			got, err := ParseValues(b)
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprintf("%+v", got) != fmt.Sprintf("%+v", tt.in) {
				t.Errorf("round trip = %+v, want %+v", got, tt.in)
			}
		})
	}
}

func TestValuesRejectUnwritable(t *testing.T) {
	for _, vs := range [][]space.Value{{space.FloatValue(math.NaN())}, {space.FloatValue(math.Inf(1))}, {{}}} {
		if b, err := Values(vs); err == nil {
			t.Errorf("Values(%v) = %s, want an error", vs, b)
		}
	}
	for _, s := range []string{`[null]`, `[1.2.3]`, `{}`, `[99999999999999999999]`} {
		if vs, err := ParseValues([]byte(s)); err == nil {
			t.Errorf("ParseValues(%s) = %v, want an error", s, vs)
		}
	}
}

func TestParamsRoundTrip(t *testing.T) {
	ps := []space.Param{
		{Name: "block_size_x", Values: []space.Value{space.IntValue(32), space.IntValue(64)}},
		{Name: "ratio", Values: []space.Value{space.FloatValue(1), space.FloatValue(0.5)}},
		{Name: "layout", Values: []space.Value{space.StringValue("row")}},
	}
	b, err := Params(ps)
	if err != nil {
		t.Fatal(err)
	}
	got, err := ParseParams(b)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprintf("%+v", got) != fmt.Sprintf("%+v", ps) {
		t.Errorf("round trip = %+v, want %+v", got, ps)
	}
}

func TestSamplesAreExact(t *testing.T) {
	in := []float64{1.25, math.NaN(), math.Inf(-1), math.SmallestNonzeroFloat64, math.Copysign(0, -1)}
	got, err := ParseSamples(Samples(in))
	if err != nil {
		t.Fatal(err)
	}
	for i := range in {
		if math.Float64bits(got[i]) != math.Float64bits(in[i]) {
			t.Errorf("sample %d = %v, want %v", i, got[i], in[i])
		}
	}
	if Samples(nil) != nil || Samples([]float64{}) != nil {
		t.Error("empty samples should encode as nil (NULL)")
	}
	if _, err := ParseSamples([]byte{1, 2, 3}); err == nil {
		t.Error("ParseSamples of 3 bytes: want an error")
	}
}

func TestMetricsWriteNonFiniteAsStrings(t *testing.T) {
	in := map[string]float64{"gflops": 1234.5, "energy": math.NaN(), "peak": math.Inf(1), "low": math.Inf(-1), "tiny": 1e-300}
	b, err := Metrics(in)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"energy":"NaN","gflops":1234.5,"low":"-Infinity","peak":"Infinity","tiny":1e-300}`
	if string(b) != want {
		t.Errorf("Metrics = %s, want %s", b, want)
	}
	got, err := ParseMetrics(b)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(got) != fmt.Sprint(in) {
		t.Errorf("round trip = %v, want %v", got, in)
	}
	if _, err := ParseMetrics([]byte(`{"x":"fast"}`)); err == nil {
		t.Error(`ParseMetrics({"x":"fast"}): want an error`)
	}
}
