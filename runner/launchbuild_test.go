package runner_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/ktune/ktune/device"
	"github.com/ktune/ktune/result"
)

// buildCounter is a device that counts the builds it is asked for: a Compile, or a
// CompileFunctions of several functions. Everything else is the device's own.
type buildCounter struct {
	device.Device
	builds int
}

func (c *buildCounter) Compile(ctx context.Context, src device.Source) (device.Kernel, error) {
	c.builds++
	return c.Device.Compile(ctx, src)
}

func (c *buildCounter) CompileFunctions(ctx context.Context, src device.Source, fns []device.Function) ([]device.Kernel, error) {
	if _, ok := c.Device.(device.MultiCompiler); !ok {
		c.builds += len(fns) // a build per function
	} else {
		c.builds++
	}
	return device.CompileFunctions(ctx, c.Device, src, fns)
}

func (c *buildCounter) RunSequence(ctx context.Context, steps []device.Step) (time.Duration, error) {
	return device.RunSequence(ctx, c.Device, steps)
}

// buildsOf evaluates configuration v of spec src on dev after its reference, and returns
// how many builds the evaluation asked for.
func buildsOf(t *testing.T, dev device.Device, src string, v ...int64) int {
	t.Helper()
	c := &buildCounter{Device: dev}
	r, sp := runnerFor(t, parseLaunches(t, src), c)
	if err := r.Check(context.Background()); err != nil {
		t.Fatal(err)
	}
	cfg, err := sp.ConfigOf(values(v...))
	if err != nil {
		t.Fatal(err)
	}
	r.Evaluate(context.Background(), cfg, nil) // the reference, computed once
	c.builds = 0
	if e := r.Evaluate(context.Background(), cfg, nil); e.Status != result.OK {
		t.Fatalf("%v %q", e.Status, e.Message)
	}
	return c.builds
}

// The functions of a sequence that come from one source are built together, once per
// configuration; a launch with a source of its own is a build of its own.
func TestLaunchesOfOneSourceAreBuiltOncePerConfiguration(t *testing.T) {
	for _, backend := range []string{"opencl", "c"} {
		t.Run(backend, func(t *testing.T) {
			var dev device.Device
			src := pingPongCL
			own := strings.Replace(pingPongCL, "{kernel: twice,", `{kernel: twice, code: "__kernel void twice(__global const float *b, __global float *c, const int n) { const int i = get_global_id(0); if (i < n) c[i] = 2.0f * b[i]; }",`, 1)
			v := []int64{32, 3}
			if backend == "c" {
				dev = openHost(t)
				src = hostPingPong
				own = strings.Replace(hostPingPong, "{kernel: twice,", `{kernel: twice, code: "void twice(const float *b, float *c, int n) { for (int i = 0; i < n; i++) c[i] = 2.0f * b[i]; }",`, 1)
				v = []int64{3}
			} else {
				dev = openBackend(t, "opencl")
			}
			if n := buildsOf(t, dev, src, v...); n != 1 {
				t.Errorf("two functions of the kernel's source: %d builds, want 1", n)
			}
			if n := buildsOf(t, dev, own, v...); n != 2 {
				t.Errorf("a function of the kernel's source and one of its own: %d builds, want 2", n)
			}
		})
	}
}

// A function that the shared build has no kernel of (a helper, not a __kernel) names its
// launch, not the first.
func TestAFunctionMissingFromASharedBuildNamesItsLaunch(t *testing.T) {
	dev := openBackend(t, "opencl")
	src := strings.Replace(pingPongCL, "{kernel: twice,", "{kernel: twise,", 1)
	src = strings.Replace(src, "  code: &code |\n", "  code: &code |\n    float twise(float v) { return 2.0f * v; }\n", 1)
	r, sp := runnerFor(t, parseLaunches(t, src), dev)
	cfg, err := sp.ConfigOf(values(32, 3))
	if err != nil {
		t.Fatal(err)
	}
	e := r.Evaluate(context.Background(), cfg, nil)
	if e.Status != result.CompileError || !strings.Contains(e.Message, "launches[1] (twise):") || !strings.Contains(e.Message, `no kernel named "twise"`) {
		t.Errorf("%v %q, want a compile error naming launches[1] (twise)", e.Status, e.Message)
	}
}
