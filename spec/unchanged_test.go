package spec

import (
	"reflect"
	"strings"
	"testing"
)

// withInputs is launchesSpec with an input of its second launch, w, and an array no
// launch takes.
var withInputs = strings.NewReplacer(
	"arguments: [b, sum, n]", "arguments: [b, sum, n, w]",
	"__global float *sum, int n)", "__global float *sum, int n, __global const float *w)",
	"  - {name: n, type: int32, value: N}\n", "  - {name: n, type: int32, value: N}\n  - {name: w, type: float32, length: N}\n  - {name: only, type: float32, length: N}\n",
).Replace(launchesSpec)

// UnchangedInputs are the arrays the kernel takes that are neither outputs nor scratch.
func TestUnchangedInputsAreTheKernelsArraysThatAreNeitherOutputNorScratch(t *testing.T) {
	for _, c := range []struct {
		name, src string
		want      []int
	}{
		{"inputs, an output, scratch, a scalar", base + `arguments:
  - {name: c, type: float32, length: N, output: true}
  - {name: a, type: float32, length: N}
  - {name: tmp, type: float32, length: N, scratch: true}
  - {name: b, type: int32, length: N, scratch: false}
  - {name: n, type: int32, value: N}
`, []int{1, 3}},
		{"local memory is no input", strings.Replace(base, "__global float *c, int n", "__global float *c, __local float *l, int n", 1) + `arguments:
  - {name: c, type: float32, length: N, output: true}
  - {name: l, kind: local, type: float32, length: block_size_x}
  - {name: n, type: int32, value: N}
`, nil},
		// a and b are swapped (ping-pong), sum an output, w an input of the second launch;
		// only is the reference's alone
		{"launches: swapped arrays and those no launch takes are left out", withInputs, []int{4}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := mustParse(t, c.src).UnchangedInputs(); !reflect.DeepEqual(got, c.want) {
				t.Errorf("UnchangedInputs() = %v, want %v", got, c.want)
			}
		})
	}
}

func TestScratchIsRefusedWhereItHasNoMeaning(t *testing.T) {
	for _, c := range []struct {
		name, arg, want string
	}{
		{"an output", "{name: c, type: float32, length: N, output: true, scratch: true}",
			"arguments[0].scratch: c is output: true as well"},
		{"a scalar", "{name: c, type: float32, value: 1, scratch: true}",
			"arguments[0].scratch: does not apply to a scalar argument"},
		{"not a boolean", "{name: c, type: float32, length: N, scratch: maybe}",
			"arguments[0].scratch"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse([]byte(base+"arguments:\n  - "+c.arg+"\n  - {name: n, type: int32, value: N}\n"), "test.yaml")
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("Parse: %v, want an error with %q", err, c.want)
			}
		})
	}
}
