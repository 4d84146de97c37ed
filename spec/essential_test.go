package spec

import (
	"strings"
	"testing"
)

const essentialBase = `
kernel: {name: k, language: c, code: "void k(float *a) {}"}
constants: {N: 1000, M: 3}
parameters: [{name: B, values: [1, 2]}]
problem_size: [N]
arguments: [{name: a, type: float32, length: N}]
`

func TestEssentialOpsEvaluateAtTheConstants(t *testing.T) {
	s := mustParse(t, essentialBase+"essential_ops: {bytes: 4 * N * M, flops: 2 * N**2, precision: float64}\n")
	e := s.Essential
	if e == nil {
		t.Fatal("Essential is nil")
	}
	if e.Bytes != 12000 || e.Flops != 2e6 || e.Precision != "float64" || e.BytesExpr != "4 * N * M" || e.FlopsExpr != "2 * N**2" {
		t.Errorf("got %+v", *e)
	}
	if !e.Declared() {
		t.Error("Declared() = false")
	}
	// other constants give other counts
	s2, err := s.WithConstants(map[string]float64{"N": 10})
	if err != nil {
		t.Fatal(err)
	}
	if s2.Essential.Bytes != 120 || s2.Essential.Flops != 200 {
		t.Errorf("at N=10: bytes %v flops %v, want 120 and 200", s2.Essential.Bytes, s2.Essential.Flops)
	}
}

func TestEssentialOpsDefaultToFloat32AndMayBeAbsent(t *testing.T) {
	s := mustParse(t, essentialBase+"essential_ops: {bytes: 4 * N}\n")
	if s.Essential.Precision != "float32" || s.Essential.Flops != 0 {
		t.Errorf("got %+v", *s.Essential)
	}
	if s := mustParse(t, essentialBase); s.Essential != nil || s.Essential.Declared() {
		t.Errorf("a spec without essential_ops has %+v", s.Essential)
	}
}

func TestEssentialOpsExcludedSaysWhy(t *testing.T) {
	s := mustParse(t, essentialBase+"essential_ops: {excluded: latency-bound}\n")
	if s.Essential == nil || s.Essential.Excluded != "latency-bound" || s.Essential.Declared() {
		t.Errorf("got %+v", s.Essential)
	}
}

func TestEssentialOpsErrors(t *testing.T) {
	for _, tc := range []struct{ name, yaml, want string }{
		{"parameter", "essential_ops: {bytes: 4 * B}", "essential_ops.bytes"},
		{"unknown field", "essential_ops: {byte: 4}", `unknown field; did you mean "bytes"`},
		{"nothing", "essential_ops: {precision: float32}", "gives neither bytes nor flops"},
		{"precision", "essential_ops: {flops: N, precision: double}", `unknown precision "double"`},
		{"negative", "essential_ops: {flops: -N}", "expected a count of at least 0"},
		{"zero", "essential_ops: {flops: 0 * N}", "both 0"},
		{"excluded and ops", "essential_ops: {excluded: why, bytes: N}", "keep either excluded or the operations"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse([]byte(essentialBase+tc.yaml+"\n"), "test.yaml")
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}
