package runner_test

import (
	"context"
	"encoding/binary"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ktune/ktune/internal/float16"
	"github.com/ktune/ktune/result"
	"github.com/ktune/ktune/space"
	"github.com/ktune/ktune/spec"
)

// TestHalfOutputsVerifyAgainstAHalfNPYReference runs a host C _Float16 kernel, y = x *
// factor, whose float16 output is checked against a reference saved as a <f2 .npy file:
// the right factor verifies, with half's default tolerance, and a kernel off by one unit
// in the last place passes it (not atol 0, rtol 0) while one off by more fails.
func TestHalfOutputsVerifyAgainstAHalfNPYReference(t *testing.T) {
	dev := openHost(t)
	dir := t.TempDir()
	const n = 4096
	x := make([]uint16, n)
	want := make([]uint16, n)
	for i := range x {
		x[i] = float16.FromFloat64(float64(i%200-100) / 8)
		want[i] = float16.FromFloat64(3 * float16.Float64(x[i]))
	}
	write := func(name string, v []uint16) string {
		b, _ := binary.Append(nil, binary.LittleEndian, v)
		path := filepath.Join(dir, name)
		if err := spec.WriteNPYFile(path, &spec.Array{Type: "float16", Shape: []int{n}, Data: b}); err != nil {
			t.Fatal(err)
		}
		return path
	}
	xPath, yPath := write("x.npy", x), write("y.npy", want)
	for _, tt := range []struct {
		name, body, tolerance string
		status                result.Status
		message               string
	}{
		{"exact", "(_Float16)(factor * (float)x[i])", "", result.OK, ""},
		// one unit in the last place up (at most 2^-10 relative) for most elements
		{"one ulp off", "(_Float16)(factor * (float)x[i] * (1.0f + 1.0f / 2048))", "", result.OK, ""},
		{"one ulp off, compared exactly", "(_Float16)(factor * (float)x[i] * (1.0f + 1.0f / 2048))", "atol: 0\n  rtol: 0", result.WrongAnswer, "output y: "},
		{"a percent off", "(_Float16)(factor * (float)x[i] * 1.01f)", "", result.WrongAnswer, "output y: "},
	} {
		t.Run(tt.name, func(t *testing.T) {
			src := `
kernel: {name: scale_half, language: c, code: "void scale_half(_Float16 *y, const _Float16 *x, int n) { for (int i = 0; i < n; i++) y[i] = ` + tt.body + `; }"}
parameters: [{name: factor, values: [3]}]
problem_size: [` + "4096" + `]
arguments:
  - {name: y, type: half, length: 4096, output: true}
  - {name: x, type: float16, length: 4096, fill: {npy: ` + xPath + `}}
  - {name: n, type: int32, value: 4096}
verification:
  reference: {npy: {y: ` + yPath + `}}
  ` + tt.tolerance + `
iterations: 1
`
			s, err := spec.Parse([]byte(src), filepath.Join(dir, "half.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			r, sp := runnerFor(t, s, dev)
			if err := r.Check(context.Background()); err != nil {
				t.Fatal(err)
			}
			cfg, err := sp.ConfigOf([]space.Value{space.IntValue(3)})
			if err != nil {
				t.Fatal(err)
			}
			e := r.Evaluate(context.Background(), cfg, nil)
			if e.Status != tt.status || !strings.Contains(e.Message, tt.message) {
				t.Errorf("status %v (%s), want %v saying %q", e.Status, e.Message, tt.status, tt.message)
			}
		})
	}
}
