package runner_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ktune/ktune/result"
	"github.com/ktune/ktune/spec"
)

// A program that builds its spec in memory and parses it (spec.Parse reads no files) runs
// it once it has read the sources it names (Spec.ReadFiles). Before that, the kernel and
// the reference kernel have no code: each configuration failed to compile with only the
// device's word for it ("opencl: empty source"), and now says what was not read and what
// to call.
func TestASpecWhoseSourcesWereNotReadSaysSo(t *testing.T) {
	dev := openHost(t)
	dir := t.TempDir()
	for name, code := range map[string]string{"scale.c": kernel, "ref.c": kernel} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(code+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s, err := spec.Parse([]byte(`
kernel: {name: scale, source: scale.c}
constants: {N: 1000}
parameters: [{name: factor, values: [1, 2]}]
problem_size: [N]
arguments:
  - {name: x, type: float32, length: N, fill: random, output: true}
  - {name: n, type: int32, value: N}
verification:
  reference: {kernel: {name: scale, source: ref.c}, config: {factor: 2}}
iterations: 1
`), filepath.Join(dir, "k.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	r, _ := runnerFor(t, s, dev)
	if err := r.Reference(ctx, nil); err == nil || !strings.Contains(err.Error(), "the kernel source "+filepath.Join(dir, "ref.c")+" was never read") {
		t.Errorf("Reference = %v, want it to say the reference kernel's source was not read", err)
	}
	e := r.Evaluate(ctx, []int{1}, nil)
	if e.Status != result.CompileError || !strings.Contains(e.Message, "the kernel source "+filepath.Join(dir, "scale.c")+" was never read") ||
		!strings.Contains(e.Message, "ReadFiles") {
		t.Errorf("Evaluate = %v %q, want a compile error saying the source was not read and what to call", e.Status, e.Message)
	}
	if err := r.Compile(ctx, []int{1}, nil); err == nil || !strings.Contains(err.Error(), "was never read") {
		t.Errorf("Compile = %v, want it to say the source was not read", err)
	}

	if err := s.ReadFiles(); err != nil {
		t.Fatal(err)
	}
	r, _ = runnerFor(t, s, dev)
	if err := r.Reference(ctx, nil); err != nil {
		t.Fatalf("Reference after ReadFiles: %v", err)
	}
	if e := r.Evaluate(ctx, []int{1}, nil); e.Status != result.OK {
		t.Errorf("Evaluate after ReadFiles = %v %q, want ok", e.Status, e.Message)
	}
}
