package stencil

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/ktune/ktune/device"
	_ "github.com/ktune/ktune/device/all"
	"github.com/ktune/ktune/result"
	"github.com/ktune/ktune/runner"
	"github.com/ktune/ktune/space"
	"github.com/ktune/ktune/spec"
)

// load writes an emitted spec to a file and loads it as a user's would be.
func load(t *testing.T, data []byte) (*spec.Spec, *space.Space) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "stencil.yaml")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := spec.Load(path)
	if err != nil {
		t.Fatalf("%v\n%s", err, data)
	}
	sp, err := s.Space()
	if err != nil {
		t.Fatal(err)
	}
	return s, sp
}

// testStencils are 2D and 3D stencils of orders 1 to 3, of every shape.
func testStencils(t *testing.T) []*Stencil {
	var out []*Stencil
	for _, o := range []Options{
		{Dim: 2, Order: 1, Shape: Star},
		{Dim: 2, Order: 2, Shape: Random, Seed: 3},
		{Dim: 2, Order: 3, Shape: Box, Seed: 4},
		{Dim: 3, Order: 1, Shape: Box, Seed: 5},
		{Dim: 3, Order: 2, Shape: Star, Seed: 6},
		{Dim: 3, Order: 3, Shape: Random, Seed: 7},
	} {
		s, err := Generate(o)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	return out
}

// Every emitted spec loads, its space is non-empty, and every valid configuration keeps
// Table 1's constraints (BM without CM, RT and PR with ST only) and the work-group limits.
func TestSpecLoadsAndKeepsTable1(t *testing.T) {
	for _, st := range testStencils(t) {
		data, err := Spec(st, SpecOptions{})
		if err != nil {
			t.Fatal(err)
		}
		s, sp := load(t, data)
		if sp.Len() == 0 {
			t.Fatalf("%s: empty space", st.Name)
		}
		streamed := 0
		for i := range sp.Len() {
			v := values(sp, sp.At(i, nil))
			n := func(name string) float64 {
				x, ok := v[name]
				if !ok {
					return 1
				}
				return x
			}
			if n("block_merge") > 1 && n("cyclic_merge") > 1 {
				t.Errorf("%s: %v merges both ways", st.Name, v)
			}
			if st.Dim == 3 && n("streaming") == 0 && (n("retiming") != 0 || n("prefetching") != 0) {
				t.Errorf("%s: %v retimes or prefetches without streaming", st.Name, v)
			}
			if st.Dim == 3 && n("streaming") == 1 {
				streamed++
			}
			if wg := n("block_size_x") * n("block_size_y") * n("block_size_z"); wg < 32 || wg > 1024 {
				t.Errorf("%s: %v has a work-group of %v", st.Name, v, wg)
			}
		}
		if st.Dim == 3 && (streamed == 0 || streamed == sp.Len()) {
			t.Errorf("%s: %d of %d configurations streaming", st.Name, streamed, sp.Len())
		}
		if s.Kernel.Name != ident(st.Name) || !s.HostReference() {
			t.Errorf("%s: kernel %q, host reference %v", st.Name, s.Kernel.Name, s.HostReference())
		}
		t.Logf("%s: %d points, %d configurations", st.Name, len(st.Points), sp.Len())
	}
}

// With several steps a 2D spec tunes temporal blocking: the divisors of the steps up to 8
// sweeps per launch, each above 1 without merging and with blocks wider and taller than
// the halos it loses; a 3D stencil is refused.
func TestSpecTemporalBlockingKeepsItsConstraints(t *testing.T) {
	for _, st := range testStencils(t) {
		data, err := Spec(st, SpecOptions{Steps: 12})
		if st.Dim == 3 {
			if err == nil || !strings.Contains(err.Error(), "2D") {
				t.Errorf("%s: 12 steps in 3D: %v", st.Name, err)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		_, sp := load(t, data)
		seen := map[float64]bool{}
		for i := range sp.Len() {
			v := values(sp, sp.At(i, nil))
			tb := v["temporal_block"]
			seen[tb] = true
			if tb > 1 && (v["block_merge"] > 1 || v["cyclic_merge"] > 1 ||
				v["block_size_x"] <= float64(2*st.Order)*tb || v["block_size_y"] <= float64(2*st.Order)*tb) {
				t.Errorf("%s: %v breaks temporal blocking's constraints", st.Name, v)
			}
		}
		for _, tb := range []float64{1, 2, 3, 4, 6} {
			if !seen[tb] && (tb == 1 || 2*float64(st.Order)*tb < 16) {
				t.Errorf("%s: no configuration with temporal_block %v", st.Name, tb)
			}
		}
		if seen[5] || seen[12] {
			t.Errorf("%s: temporal_block 5 or 12 (not a divisor up to 8)", st.Name)
		}
	}
}

// values maps a configuration's parameter names to their values.
func values(sp *space.Space, c space.Config) map[string]float64 {
	out := map[string]float64{}
	for i, v := range sp.Values(c) {
		out[sp.Params()[i].Name] = v.Float()
	}
	return out
}

// openCL opens the OpenCL device 0 (PoCL here) on a locked thread, as package device
// requires, and skips when there is none or no host C backend for the reference.
func openCL(t *testing.T) device.Device {
	t.Helper()
	runtime.LockOSThread()
	if b, ok := device.Lookup("c"); !ok {
		t.Skip("the host C backend is not registered")
	} else if _, err := b.Devices(); err != nil {
		t.Skipf("the host C backend, which runs the reference, is unavailable: %v", err)
	}
	b, ok := device.Lookup("opencl")
	if !ok {
		t.Skip("no OpenCL backend")
	}
	devs, err := b.Devices()
	if err != nil || len(devs) == 0 {
		t.Skipf("no OpenCL device: %v", err)
	}
	d, err := b.Open(context.Background(), 0)
	if err != nil {
		t.Skipf("opening %s: %v", devs[0].Name, err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

// configs are the default configuration, one of every optimisation combination the
// space has (the parameters' first valid values otherwise: for 3D, ST x RT x PR x merging),
// and n random ones.
func configs(t *testing.T, s *spec.Spec, sp *space.Space, n int, seed uint64) []space.Config {
	t.Helper()
	var out []space.Config
	seen := map[string]bool{}
	add := func(c space.Config) {
		if k := sp.Format(c); !seen[k] {
			seen[k], out = true, append(out, c)
		}
	}
	def, err := sp.ConfigOf(s.Default)
	if err != nil || !sp.Contains(def) {
		t.Fatalf("default_config is not valid: %v", err)
	}
	add(def)
	combos := map[string]bool{}
	for i := range sp.Len() { // the first configuration of each combination
		v := values(sp, sp.At(i, nil))
		key := fmt.Sprint(v["streaming"], v["retiming"], v["prefetching"], v["block_merge"] > 1, v["cyclic_merge"] > 1, v["temporal_block"])
		if !combos[key] {
			combos[key] = true
			add(sp.At(i, nil))
		}
	}
	r := rand.New(rand.NewPCG(seed, 2))
	for _, i := range sp.SampleIndices(r, n) {
		add(sp.At(i, nil))
	}
	return out
}

// evaluate runs configurations on the device; the generated code must compile without
// warnings.
func evaluate(t *testing.T, s *spec.Spec, sp *space.Space, dev device.Device, cs []space.Config) []result.Evaluation {
	t.Helper()
	r := runner.New(s, sp, dev)
	defer r.Close()
	var out []result.Evaluation
	for _, c := range cs {
		e := r.Evaluate(context.Background(), c, nil)
		if e.Warnings != "" {
			t.Errorf("%s: the compiler warns: %s", sp.Format(c), e.Warnings)
		}
		out = append(out, e)
	}
	return out
}

// A sample of every test stencil's configurations, with every optimisation combination,
// runs on PoCL and verifies against the C reference, on grids that no block or tile
// divides.
func TestSpecVerifiesOnOpenCL(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles dozens of kernels")
	}
	dev := openCL(t)
	for _, st := range testStencils(t) {
		size := []int{75, 43}
		if st.Dim == 3 {
			size = []int{37, 21, 45}
		}
		data, err := Spec(st, SpecOptions{Size: size, Iterations: 1})
		if err != nil {
			t.Fatal(err)
		}
		s, sp := load(t, data)
		cs := configs(t, s, sp, 3, uint64(st.Order))
		for i, e := range evaluate(t, s, sp, dev, cs) {
			if e.Status != result.OK {
				t.Errorf("%s %s: %v: %s", st.Name, sp.Format(cs[i]), e.Status, e.Message)
			}
		}
		t.Logf("%s: %d configurations verified", st.Name, len(cs))
		if st.Dim == 3 {
			continue
		}
		// four sweeps, one, two or four per launch (temporal blocking)
		data, err = Spec(st, SpecOptions{Size: size, Iterations: 1, Steps: 4})
		if err != nil {
			t.Fatal(err)
		}
		s, sp = load(t, data)
		cs = configs(t, s, sp, 3, uint64(st.Order))
		blocked := 0
		for i, e := range evaluate(t, s, sp, dev, cs) {
			if e.Status != result.OK {
				t.Errorf("%s, 4 steps, %s: %v: %s", st.Name, sp.Format(cs[i]), e.Status, e.Message)
			}
			if values(sp, cs[i])["temporal_block"] > 1 {
				blocked++
			}
		}
		if blocked < 1 {
			t.Errorf("%s, 4 steps: no configuration with temporal blocking was run", st.Name)
		}
		t.Logf("%s, 4 steps: %d configurations verified, %d temporally blocked", st.Name, len(cs), blocked)
	}
}

// A kernel with one coefficient wrong (in one mirror image only) fails verification in
// every variant, direct, streamed and retimed.
func TestWrongCoefficientCaught(t *testing.T) {
	dev := openCL(t)
	for _, o := range []Options{{Dim: 2, Order: 2, Shape: Star}, {Dim: 3, Order: 2, Shape: Random, Seed: 9}, {Dim: 2, Order: 1, Shape: Box}} {
		st, _ := Generate(o)
		steps := 1
		if o.Shape == Box {
			steps = 2 // and temporal blocking
		}
		bad := *st
		bad.Coefs = append([]float64(nil), st.Coefs...)
		bad.Coefs[len(bad.Coefs)-1] += 1.0 / 64
		size := []int{40, 30}
		if st.Dim == 3 {
			size = []int{20, 18, 22}
		}
		data, err := emit(&bad, st, SpecOptions{Size: size, Iterations: 1, Steps: steps})
		if err != nil {
			t.Fatal(err)
		}
		s, sp := load(t, data)
		cs := configs(t, s, sp, 0, 1)
		for i, e := range evaluate(t, s, sp, dev, cs) {
			if e.Status != result.WrongAnswer {
				t.Errorf("%s %s: %v (%s), want a verification failure", st.Name, sp.Format(cs[i]), e.Status, e.Message)
			}
		}
	}
}
