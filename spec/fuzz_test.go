package spec

import (
	"slices"
	"testing"
)

// The seeds are small on purpose: the fuzzer minimises every new interesting input, and
// minimising a multi-kilobyte spec takes longer than a short fuzzing run. Between them
// they reach every field.
const fuzzSeedYAML = `kernel: {name: k, source: [a.cu, b.cu], compiler_options: [--use_fast_math]}
constants: {N: 64, F: "2*N"}
parameters: [{name: block_size_x, values: [16, 32]}, {name: t, values: "[2**i for i in range(3)]"}, {name: p, values: [f, d]}]
restrictions: ["block_size_x * t <= 64"]
problem_size: [N, "N // t"]
grid_div_x: [block_size_x, t]
shared_memory_bytes: "block_size_x * 4"
arguments:
  - {name: c, type: float32, length: "N*N", output: true}
  - {name: a, type: int8, length: N, fill: {random: {distribution: normal, low: -3, high: 3, seed: 1}}}
  - {name: r, type: uint16, length: 8, fill: {range: {start: 1, step: 2}}}
  - {name: n, type: int32, value: "N + t"}
  - {name: l, kind: constant, type: float64, length: block_size_x, fill: random}
  - {name: g, type: float64, length: "N // 2", fill: {from: a, start: 1, stride: 2}}
verification: {reference: {kernel: {name: ref, code: "void ref() {}"}, config: {block_size_x: 16, t: 1, p: f}}, atol: 0.1}
metrics: [{name: gf, expr: "F / time", maximize: true}, {name: x, expr: "gf * 2"}]
objective: gf
iterations: 3
statistic: median
timeout: 2s
default_config: {block_size_x: 32, t: 2, p: d}
seed: 5
`

const fuzzSeedJSON = `{"kernel": {"name": "k", "code": "x", "language": "c", "openmp": true}, "parameters": {"x": [1, 2.5]}, "grid": ["x", 2], "block": [1], "metrics": {"m": "x / time"}}`

// fuzzSeedOpenCL has what only OpenCL kernels take: local memory arguments.
const fuzzSeedOpenCL = `kernel: {name: k, source: k.cl}
parameters: {block_size_x: [8, 16]}
problem_size: 64
arguments: [{name: out, type: int32, length: 64, output: true}, {name: l, kind: local, type: float64, length: "block_size_x * 2"}]
`

func TestFuzzSeedsAreValidSpecs(t *testing.T) {
	for _, src := range []string{fuzzSeedYAML, fuzzSeedJSON, fuzzSeedOpenCL} {
		s := mustParse(t, src)
		sp, err := s.Space()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.Instance(sp.Values(sp.At(0, nil))); err != nil {
			t.Fatal(err)
		}
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(fuzzSeedYAML))
	f.Add([]byte(fuzzSeedJSON))
	f.Add([]byte(fuzzSeedOpenCL))
	f.Add([]byte(base))
	f.Add([]byte(base + "grid: [\"N // 7\", 2]\nblock: [block_size_x]\nmetrics: {rate: \"N / time\"}\nobjective: rate\n"))
	f.Add([]byte("a: &x [1, 2]\nb: *x\n"))
	f.Add([]byte("{\"kernel\": {\"name\": \"k\"}, \"parameters\": [{\"name\": \"x\", \"values\": \"[1, 2]\"}]}"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Parse(data, "fuzz.yaml")
		if err != nil {
			if err.Error() == "" {
				t.Fatal("empty error message")
			}
			return
		}
		if s.Kernel.Name == "" || len(s.Parameters) == 0 || s.Iterations < 1 {
			t.Fatalf("accepted an incomplete spec: %+v", s)
		}
		product := 1.0
		for _, p := range s.Parameters {
			product *= float64(len(p.Values))
		}
		if product > 1e4 {
			return
		}
		sp, err := s.Space()
		if err != nil {
			return
		}
		for i := range min(sp.Len(), 3) {
			vals := sp.Values(sp.At(i, nil))
			in, err := s.Instance(vals)
			if err != nil {
				continue
			}
			_, _ = s.MetricValues(vals, 1.5, nil)
			for k, a := range in.Args {
				// a from fill's data are its source's: a file, or a range that may overflow
				origin := s.Arguments[k].Fill
				if origin.Kind == FillFrom {
					if j := slices.IndexFunc(s.Arguments, func(b Argument) bool { return b.Name == origin.From }); j >= 0 {
						origin = s.Arguments[j].Fill
					}
				}
				if a.Kind == ArgArray && origin.Kind != FillNPY {
					if _, err := s.Generate(k, min(a.Length, 64)); err != nil && origin.Kind != FillRange {
						t.Fatalf("generate %s: %v", a.Name, err)
					}
				}
			}
		}
		if s.Default != nil {
			_, _ = s.Instance(s.Default)
		}
	})
}
