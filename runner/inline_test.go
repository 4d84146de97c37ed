package runner_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ktune/ktune/result"
	"github.com/ktune/ktune/spec"
)

// inlineSpec has a tuned and a reference kernel written in the spec itself, each of which
// reads a name it never declares on the line that the comment at its end names.
const inlineSpec = `# kernels written in the spec, as code: blocks
kernel:
  name: k
  language: %[1]s
  code: |
    %[2]s k(%[3]s *x) {
      x[0] = undeclared_in_k; // line 7
    }
parameters: {block_size_x: [1]}
problem_size: [1]
arguments:
  - {name: x, type: float32, length: 1, output: true}
verification:
  reference:
    kernel:
      name: ref
      code: |
        %[2]s ref(%[3]s *x) {

          x[0] = undeclared_in_ref; // line 20
        }
`

// TestCompileErrorsOfInlineCodeNameTheirLineOfTheSpec compiles, with every backend
// present, kernels written in the spec whose code does not compile: the compiler's message
// names the spec file and the line of the spec where the fault is, for the tuned kernel
// and the reference kernel. Host C named the spec's first line, PoCL a temporary file
// (and both the line within the code), NVRTC the spec's base name and the line within
// the code.
func TestCompileErrorsOfInlineCodeNameTheirLineOfTheSpec(t *testing.T) {
	for _, b := range []struct{ name, lang, qualifier, pointer string }{
		{"c", "c", "void", "float"},
		{"opencl", "opencl", "__kernel void", "__global float"},
		{"cuda", "cuda", `extern "C" __global__ void`, "float"},
	} {
		t.Run(b.name, func(t *testing.T) {
			dev := openBackend(t, b.name)
			path := filepath.Join(t.TempDir(), "inline.yaml")
			text := fmt.Sprintf(inlineSpec, b.lang, b.qualifier, b.pointer)
			if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
			s, err := spec.Load(path)
			if err != nil {
				t.Fatal(err)
			}
			r, sp := runnerFor(t, s, dev)
			// GCC and Clang write file:line:column, NVRTC file(line); an OpenCL runtime
			// that ignores #line (on the H100's machine) gets ktune's note "<kernel>:3:10
			// is file:line:column".
			at := func(line int) *regexp.Regexp {
				return regexp.MustCompile(`(?m)` + regexp.QuoteMeta(path) + fmt.Sprintf(`(:%d:\d+(:|;|$)|\(%d\): )`, line, line))
			}
			e := r.Evaluate(context.Background(), sp.At(0, nil), nil)
			if want := at(lineOf(t, text, "undeclared_in_k")); e.Status != result.CompileError || !want.MatchString(e.Message) {
				t.Errorf("the tuned kernel: %v, want a compile error at %s:\n%s", e.Status, want, e.Message)
			}
			err = r.Reference(context.Background(), nil)
			if want := at(lineOf(t, text, "undeclared_in_ref")); err == nil || !want.MatchString(err.Error()) {
				t.Errorf("the reference kernel: want a compile error at %s:\n%v", want, err)
			}
			// GCC shows the line it names: the spec's line of the code.
			if b.name == "c" && !strings.Contains(e.Message, "x[0] = undeclared_in_k; // line 7") {
				t.Errorf("the compiler does not show the line of the spec:\n%s", e.Message)
			}
		})
	}
}

// lineOf is the 1-based number of the first line of text holding sub.
func lineOf(t *testing.T, text, sub string) int {
	t.Helper()
	for i, l := range strings.Split(text, "\n") {
		if strings.Contains(l, sub) {
			return i + 1
		}
	}
	t.Fatalf("%q not in the text", sub)
	return 0
}
