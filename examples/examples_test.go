package examples_test

import (
	"context"
	"crypto/sha256"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/ktune/ktune/device"
	_ "github.com/ktune/ktune/device/all"
	"github.com/ktune/ktune/result"
	"github.com/ktune/ktune/runner"
	"github.com/ktune/ktune/space"
	"github.com/ktune/ktune/spec"
)

// openDevice opens device 0 of a backend on the calling goroutine, which it locks to its
// OS thread for the rest of the test (as package device requires); it skips the test when
// the backend is unavailable.
func openDevice(t *testing.T, backend string) device.Device {
	t.Helper()
	runtime.LockOSThread() // undone when the test's goroutine ends
	b, ok := device.Lookup(backend)
	if !ok {
		t.Skipf("backend %q is not registered", backend)
	}
	devs, err := b.Devices()
	if err != nil {
		t.Skipf("backend %q is unavailable: %v", backend, err)
	}
	if len(devs) == 0 {
		t.Skipf("backend %q has no devices", backend)
	}
	d, err := b.Open(context.Background(), 0)
	if err != nil {
		t.Skipf("opening %s device 0 (%s): %v", backend, devs[0].Name, err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

// load reads a spec and builds its space; iterations > 0 replaces the spec's timed runs
// (the tests check correctness, a timing or two is enough).
func load(t *testing.T, path string, iterations int) (*spec.Spec, *space.Space) {
	t.Helper()
	s, err := spec.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	sp, err := s.Space()
	if err != nil {
		t.Fatal(err)
	}
	if iterations > 0 {
		s.Iterations = iterations
	}
	return s, sp
}

// sample returns n distinct valid configurations drawn with a fixed seed, with the spec's
// default_config first when it has one.
func sample(t *testing.T, s *spec.Spec, sp *space.Space, n int, seed uint64) []space.Config {
	t.Helper()
	var out []space.Config
	if s.Default != nil {
		c, err := sp.ConfigOf(s.Default)
		if err != nil || !sp.Contains(c) {
			t.Fatalf("default_config is not a valid configuration: %v", err)
		}
		out = append(out, c)
	}
	r := rand.New(rand.NewPCG(seed, 0x6b74756e65))
	for _, i := range sp.SampleIndices(r, n) {
		out = append(out, sp.At(i, nil))
	}
	return out
}

// all returns every valid configuration of sp.
func all(sp *space.Space) []space.Config {
	out := make([]space.Config, sp.Len())
	for i := range out {
		out[i] = sp.At(i, nil)
	}
	return out
}

// evaluate measures configurations and checks each one: status OK (compiled, ran and
// verified against the reference), a positive finite objective and every metric present.
// A configuration the device refuses is no failure when its block is larger than the limit
// the refusal names (NVIDIA's OpenCL driver allows these kernels 256 work-items per group,
// not the device's 1,024), but at least one configuration must run.
func evaluate(t *testing.T, s *spec.Spec, sp *space.Space, dev device.Device, configs []space.Config) {
	t.Helper()
	r := runner.New(s, sp, dev)
	defer r.Close()
	ctx := context.Background()
	start := time.Now()
	var compile, verify, bench float64
	refused := 0
	for _, c := range configs {
		e := r.Evaluate(ctx, c, nil)
		compile += e.CompileMS
		verify += e.VerifyMS
		bench += e.BenchmarkMS
		if e.Status == result.DeviceLimit && blockBeyondLimit(t, s, sp, c, e.Message) {
			refused++
			t.Logf("%s: refused by the device: %s", sp.Format(c), e.Message)
			continue
		}
		if e.Status != result.OK {
			t.Errorf("%s: status %v: %s", sp.Format(c), e.Status, e.Message)
			continue
		}
		if !(e.Objective > 0) || math.IsInf(e.Objective, 0) {
			t.Errorf("%s: objective %v, want a positive number", sp.Format(c), e.Objective)
		}
		for _, m := range s.Metrics {
			v, ok := e.Metrics[m.Name]
			if !ok || math.IsNaN(v) || math.IsInf(v, 0) || v <= 0 {
				t.Errorf("%s: metric %s = %v (present: %v), want a positive number", sp.Format(c), m.Name, v, ok)
			}
		}
	}
	if refused == len(configs) {
		t.Errorf("the device refused all %d configurations", refused)
	}
	t.Logf("%d configurations in %.1f s (compile %.1f s, verify %.1f s, timed runs %.1f s), %d refused by the device",
		len(configs), time.Since(start).Seconds(), compile/1e3, verify/1e3, bench/1e3, refused)
}

// threadLimit finds the limit on threads per block that a device_limit message names.
var threadLimit = regexp.MustCompile(`(?:maximum work-group size|maximum of|at most) (\d+)`)

// blockBeyondLimit reports whether msg refuses c for a block size limit that c's block
// really exceeds.
func blockBeyondLimit(t *testing.T, s *spec.Spec, sp *space.Space, c space.Config, msg string) bool {
	m := threadLimit.FindStringSubmatch(msg)
	if m == nil {
		return false
	}
	limit, _ := strconv.Atoi(m[1])
	inst, err := s.Instance(sp.Values(c))
	if err != nil {
		t.Fatal(err)
	}
	b := inst.Launch.Block
	return max(b[0], 1)*max(b[1], 1)*max(b[2], 1) > limit
}

// edits describes a test-only variant of an example spec.
type edits struct {
	constants    map[string]string // constant name -> new value (YAML)
	values       map[string]string // parameter name -> new value list (YAML)
	restrictions []string          // appended to the spec's restrictions
	options      []string          // appended to kernel.compiler_options
	source       string            // replaces kernel.source (the tuned kernel's code)
}

// variant writes a copy of the spec at path, changed by e, into a temporary directory and
// returns its path. Kernel and reference sources and .npy fills are made absolute; default_config is
// dropped (its values may be gone). Everything else (restrictions, arguments,
// verification, metrics) is kept, so the variant checks the example's own spec.
func variant(t *testing.T, path string, e edits) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	abs, err := filepath.Abs(filepath.Dir(path))
	if err != nil {
		t.Fatal(err)
	}
	root := doc.Content[0]
	get := func(m *yaml.Node, key string) *yaml.Node {
		for i := 0; i+1 < len(m.Content); i += 2 {
			if m.Content[i].Value == key {
				return m.Content[i+1]
			}
		}
		return nil
	}
	parse := func(src string) *yaml.Node {
		var v yaml.Node
		if err := yaml.Unmarshal([]byte(src), &v); err != nil {
			t.Fatal(err)
		}
		return v.Content[0]
	}
	put := func(m *yaml.Node, key, src string) { // set or add key in mapping m
		if n := get(m, key); n != nil {
			*n = *parse(src)
			return
		}
		m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: key}, parse(src))
	}
	quote := func(s string) string {
		b, err := yaml.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(string(b))
	}
	absolute := func(k *yaml.Node) {
		if k == nil {
			return
		}
		if src := get(k, "source"); src != nil {
			src.Value = filepath.Join(abs, src.Value)
		}
	}
	kernel := get(root, "kernel")
	absolute(kernel)
	if v := get(root, "verification"); v != nil {
		if ref := get(v, "reference"); ref != nil {
			absolute(get(ref, "kernel"))
		}
	}
	if args := get(root, "arguments"); args != nil { // .npy fills, relative to the spec too
		for _, a := range args.Content {
			if fill := get(a, "fill"); fill != nil && fill.Kind == yaml.MappingNode {
				if npy := get(fill, "npy"); npy != nil && npy.Kind == yaml.ScalarNode {
					npy.Value = filepath.Join(abs, npy.Value)
				}
			}
		}
	}
	if e.source != "" {
		put(kernel, "source", quote(e.source))
	}
	if len(e.options) > 0 {
		opts := get(kernel, "compiler_options")
		if opts == nil {
			put(kernel, "compiler_options", "[]")
			opts = get(kernel, "compiler_options")
		}
		for _, o := range e.options {
			opts.Content = append(opts.Content, parse(quote(o)))
		}
	}
	for i := 0; i+1 < len(root.Content); i += 2 {
		if root.Content[i].Value == "default_config" {
			root.Content = append(root.Content[:i], root.Content[i+2:]...)
			break
		}
	}
	for name, src := range e.constants {
		c := get(get(root, "constants"), name)
		if c == nil {
			t.Fatalf("%s has no constant %s", path, name)
		}
		*c = *parse(src)
	}
	for name, src := range e.values {
		found := false
		for _, p := range get(root, "parameters").Content {
			if get(p, "name").Value == name {
				*get(p, "values") = *parse(src)
				found = true
			}
		}
		if !found {
			t.Fatalf("%s has no parameter %s", path, name)
		}
	}
	if len(e.restrictions) > 0 {
		r := get(root, "restrictions")
		if r == nil {
			put(root, "restrictions", "[]")
			r = get(root, "restrictions")
		}
		for _, x := range e.restrictions {
			r.Content = append(r.Content, parse(quote(x)))
		}
	}
	out, err := yaml.Marshal(&doc)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), strings.TrimSuffix(filepath.Base(path), ".yaml")+"_variant.yaml")
	if err := os.WriteFile(file, out, 0o644); err != nil {
		t.Fatal(err)
	}
	return file
}

// The examples' directory, for spec paths.
func example(name string) string { return filepath.Join(".", name) }

func TestVectorAddOpenCL(t *testing.T) {
	dev := openDevice(t, "opencl")
	s, sp := load(t, example("vector_add/vector_add_opencl.yaml"), 2)
	evaluate(t, s, sp, dev, all(sp))
}

// TestVectorAddHalf runs every configuration of the half-precision vector addition,
// whose float16 arrays the kernel reads with vload_half and writes with vstore_half.
func TestVectorAddHalf(t *testing.T) {
	dev := openDevice(t, "opencl")
	s, sp := load(t, example("vector_add/vector_add_half.yaml"), 2)
	evaluate(t, s, sp, dev, all(sp))
}

// TestVectorAddHalfWrongKernelCaught checks that verification of float16 outputs catches
// a wrong sum, and that a kernel declaring a float16 argument float * is refused naming
// the argument before anything runs.
func TestVectorAddHalfWrongKernelCaught(t *testing.T) {
	dev := openDevice(t, "opencl")
	code, err := os.ReadFile(example("vector_add/vector_add_half.cl"))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []struct {
		name     string
		old, new []string
		status   result.Status
		message  string
	}{
		{"a difference for the sum", []string{"vload_half(k, a) + vload_half(k, b)"}, []string{"vload_half(k, a) - vload_half(k, b)"},
			result.WrongAnswer, "output c: "},
		{"the sum of the first elements only", []string{"vload_half(k, a) + vload_half(k, b)"}, []string{"vload_half(k % 1000, a) + vload_half(k, b)"},
			result.WrongAnswer, "output c: "},
		{"a float pointer for a half array", []string{"__global const half *a", "vload_half(k, a)"}, []string{"__global const float *a", "a[k]"},
			result.RuntimeError, "arguments[1]: a is an array of float16 in the spec, but kernel vector_add_half takes __global float* a: a float16 array goes to a half pointer"},
	} {
		t.Run(m.name, func(t *testing.T) {
			src := string(code)
			for i, old := range m.old {
				if !strings.Contains(src, old) {
					t.Fatalf("vector_add_half.cl no longer contains %q: update the mutation", old)
				}
				src = strings.Replace(src, old, m.new[i], 1)
			}
			broken := filepath.Join(t.TempDir(), "vector_add_half_broken.cl")
			if err := os.WriteFile(broken, []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
			s, sp := load(t, variant(t, example("vector_add/vector_add_half.yaml"), edits{
				constants: map[string]string{"N": "5000"},
				source:    broken,
			}), 1)
			r := runner.New(s, sp, dev)
			defer r.Close()
			for _, c := range sample(t, s, sp, 3, 5) {
				ev := r.Evaluate(context.Background(), c, nil)
				if ev.Status != m.status || !strings.Contains(ev.Message, m.message) {
					t.Errorf("%s: status %v (%s), want %v saying %q", sp.Format(c), ev.Status, ev.Message, m.status, m.message)
				}
			}
		})
	}
}

func TestVectorAddC(t *testing.T) {
	dev := openDevice(t, "c")
	s, sp := load(t, example("vector_add/vector_add_c.yaml"), 2)
	evaluate(t, s, sp, dev, all(sp))
}

// TestVectorAddCXX runs the C++ template, instantiated by the spec's kernel name, checked
// against the C kernel: it skips where the host has no C++ compiler.
func TestVectorAddCXX(t *testing.T) {
	dev := openDevice(t, "c")
	if why := dev.Info().Extra["cxx_unavailable"]; why != "" {
		t.Skipf("no C++ kernels: %s", why)
	}
	s, sp := load(t, example("vector_add/vector_add_cpp.yaml"), 2)
	evaluate(t, s, sp, dev, all(sp))
}

func TestMatmulC(t *testing.T) {
	dev := openDevice(t, "c")
	s, sp := load(t, example("matmul_c/matmul.yaml"), 1)
	evaluate(t, s, sp, dev, sample(t, s, sp, 30, 1))
}

// TestMatmulCOddSize runs the matmul on a size that no tile and no unroll factor divides,
// so that the tiles cut at the edges and the k steps left over by the unrolled passes are
// exercised.
func TestMatmulCOddSize(t *testing.T) {
	dev := openDevice(t, "c")
	path := variant(t, example("matmul_c/matmul.yaml"), edits{constants: map[string]string{"N": "203"}})
	s, sp := load(t, path, 1)
	evaluate(t, s, sp, dev, sample(t, s, sp, 12, 6))
}

// TestCUnrollChangesCode checks that every value of the host C examples' unroll_factor
// gives the compiler different code: a `#pragma GCC unroll` that the compiler ignores (GCC
// does on any loop that is not innermost) would leave a parameter that only multiplies the
// space with duplicates.
func TestCUnrollChangesCode(t *testing.T) {
	cc, err := exec.LookPath("cc")
	if err != nil {
		t.Skip("no cc on PATH")
	}
	for _, k := range []struct {
		spec, source string
		others       []string // -D definitions of the other parameters
	}{
		{"vector_add/vector_add_c.yaml", "vector_add/vector_add.c", []string{"-Dthreads=2"}},
		{"matmul_c/matmul.yaml", "matmul_c/matmul.c", []string{"-Dtile_i=16", "-Dtile_j=64", "-Dtile_k=32", "-Dthreads=2"}},
	} {
		s, _ := load(t, example(k.spec), 0)
		var values []string
		for _, p := range s.Parameters {
			if p.Name == "unroll_factor" {
				for _, v := range p.Values {
					values = append(values, v.String())
				}
			}
		}
		if len(values) < 2 {
			t.Fatalf("%s: unroll_factor has values %v", k.source, values)
		}
		seen := map[string]string{}
		for _, u := range values {
			args := append([]string{"-O3", "-march=native", "-fopenmp", "-S", "-o", "-", "-Dunroll_factor=" + u}, k.others...)
			out, err := exec.Command(cc, append(args, example(k.source))...).Output()
			if err != nil {
				t.Skipf("%s: cc: %v", k.source, err)
			}
			sum := fmt.Sprintf("%x", sha256.Sum256(out))
			if prev, ok := seen[sum]; ok {
				t.Errorf("%s: unroll_factor=%s compiles to the same code as unroll_factor=%s", k.source, u, prev)
				continue
			}
			seen[sum] = u
		}
	}
}

func TestConvolution(t *testing.T) {
	dev := openDevice(t, "opencl")
	s, sp := load(t, example("convolution/convolution.yaml"), 1)
	evaluate(t, s, sp, dev, sample(t, s, sp, 24, 1))
}

// TestStencil samples the stencil's space, staged and not, against its reference kernel
// launched at its own geometry.
func TestStencil(t *testing.T) {
	dev := openDevice(t, "opencl")
	s, sp := load(t, example("stencil/stencil.yaml"), 1)
	evaluate(t, s, sp, dev, sample(t, s, sp, 24, 1))
}

// TestStencilHostReference samples the stencil's space against its plain C reference,
// run once on the host, on a grid that no tile divides.
func TestStencilHostReference(t *testing.T) {
	dev := openDevice(t, "opencl")
	if b, ok := device.Lookup("c"); !ok {
		t.Skip("the host C backend is not registered")
	} else if _, err := b.Devices(); err != nil {
		t.Skipf("the host C backend, which runs the reference, is unavailable: %v", err)
	}
	for _, path := range []string{
		example("stencil/stencil_host_reference.yaml"),
		variant(t, example("stencil/stencil_host_reference.yaml"), edits{constants: map[string]string{"NX": "203", "NY": "77"}}),
	} {
		s, sp := load(t, path, 1)
		if !s.HostReference() {
			t.Fatalf("%s: the reference does not run on the host", path)
		}
		evaluate(t, s, sp, dev, sample(t, s, sp, 8, 3))
	}
}

// TestStencilOddSize runs the stencil on a grid that no tile divides, so that partial
// work-groups and tiles, and the staged tile's clipped border, are exercised everywhere.
func TestStencilOddSize(t *testing.T) {
	dev := openDevice(t, "opencl")
	path := variant(t, example("stencil/stencil.yaml"), edits{
		constants: map[string]string{"NX": "203", "NY": "77"},
	})
	s, sp := load(t, path, 1)
	evaluate(t, s, sp, dev, sample(t, s, sp, 16, 5))
}

// TestGEMM samples the tuned space at its real size.
func TestGEMM(t *testing.T) {
	dev := openDevice(t, "opencl")
	s, sp := load(t, example("gemm/gemm.yaml"), 1)
	evaluate(t, s, sp, dev, sample(t, s, sp, 16, 1))
}

// TestGEMMExhaustive proves every combination of the parameters that select the kernel's
// code paths (KWI, VWM, VWN, STRM, STRN, SA, SB: 512 kernels) correct on a small problem
// of several work-groups and k-slices with M != N. The geometry is chosen so that every
// one of them matters: each work-item owns two vectors of C in m and n (MWG = 2*MDIMC*VWM,
// NWG = 2*NDIMC*VWN), so STRM and STRN change which; the loaders are re-shaped (MDIMA,
// NDIMB = 2 of a 4 x 4 work-group) and each loads several vectors and rows.
//
// The 512 builds use -cl-opt-disable: PoCL spends ~0.8 s optimising each and ~0.2 s
// without, which keeps this test near 90 s on a cold kernel cache. A sample of the
// same space built with full optimisation, and TestGEMM, check the optimised code.
// With -short only a sample of the 512 is built.
func TestGEMMExhaustive(t *testing.T) {
	dev := openDevice(t, "opencl")
	reduced := edits{
		constants: map[string]string{"M": "128", "N": "192", "K": "48"},
		values: map[string]string{"MWG": "[8, 16, 32, 64]", "NWG": "[8, 16, 32, 64]", "KWG": "[16]",
			"MDIMC": "[4]", "NDIMC": "[4]", "MDIMA": "[2]", "NDIMB": "[2]"},
		restrictions: []string{"MWG == 2 * MDIMC * VWM", "NWG == 2 * NDIMC * VWN"},
	}
	s, sp := load(t, variant(t, example("gemm/gemm.yaml"), reduced), 1)
	if sp.Len() != 512 {
		t.Fatalf("the reduced space has %d configurations, want all 512 combinations", sp.Len())
	}
	evaluate(t, s, sp, dev, sample(t, s, sp, 8, 2))

	reduced.options = []string{"-cl-opt-disable"}
	s, sp = load(t, variant(t, example("gemm/gemm.yaml"), reduced), 1)
	configs := all(sp)
	if testing.Short() {
		configs = sample(t, s, sp, 48, 3)
	}
	evaluate(t, s, sp, dev, configs)
}

// TestGEMMWrongKernelCaught checks that verification catches broken kernels: one that
// skips the first k-slice and one that scrambles the components of B's vectors when
// storing C (wrong only when VWN > 1).
func TestGEMMWrongKernelCaught(t *testing.T) {
	dev := openDevice(t, "opencl")
	code, err := os.ReadFile(example("gemm/gemm.cl"))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []struct{ name, old, new, only string }{
		{"first k-slice skipped", "for (int k0 = 0; k0 < K; k0 += KWG)", "for (int k0 = KWG; k0 < K; k0 += KWG)", ""},
		{"B vector components permuted", "* VWN + n % VWN;", "* VWN + (n + 1) % VWN;", "VWN > 1"},
	} {
		t.Run(m.name, func(t *testing.T) {
			if !strings.Contains(string(code), m.old) {
				t.Fatalf("gemm.cl no longer contains %q: update the mutation", m.old)
			}
			broken := filepath.Join(t.TempDir(), "gemm_broken.cl")
			if err := os.WriteFile(broken, []byte(strings.Replace(string(code), m.old, m.new, 1)), 0o644); err != nil {
				t.Fatal(err)
			}
			e := edits{
				constants: map[string]string{"M": "128", "N": "128", "K": "64"},
				values:    map[string]string{"MWG": "[32, 64]", "NWG": "[32, 64]", "MDIMC": "[8]", "NDIMC": "[8]"},
				source:    broken,
			}
			if m.only != "" {
				e.restrictions = []string{m.only}
			}
			s, sp := load(t, variant(t, example("gemm/gemm.yaml"), e), 1)
			r := runner.New(s, sp, dev)
			defer r.Close()
			for i, c := range sample(t, s, sp, 4, 4) {
				ev := r.Evaluate(context.Background(), c, nil)
				if ev.Status != result.WrongAnswer {
					hint := ""
					if i == 0 {
						hint = " (the runner's first evaluation: was the reference computed into the same output buffer?)"
					}
					t.Errorf("%s: status %v (%s), want wrong_answer%s", sp.Format(c), ev.Status, ev.Message, hint)
				}
			}
		})
	}
}

// TestConvolutionLocalTileFits checks the local-memory restriction of both convolution
// specs against the kernels' own arithmetic: every valid configuration that stages its
// input tile has a tile, padded rows included (SH_STRIDE of convolution.cl and .cu),
// within 48 KiB.
func TestConvolutionLocalTileFits(t *testing.T) {
	for _, path := range []string{"convolution/convolution.yaml", "convolution/convolution_cuda.yaml"} {
		_, sp := load(t, example(path), 0)
		staged := 0
		for _, c := range all(sp) {
			v := map[string]int{}
			n := sp.Named(c)
			for i, name := range n.Names {
				v[name] = int(n.Values[i].Int())
			}
			if v["use_shmem"] == 0 {
				continue
			}
			staged++
			w := v["block_size_x"]*v["tile_size_x"] + v["filter_width"] - 1
			h := v["block_size_y"]*v["tile_size_y"] + v["filter_height"] - 1
			stride := w
			if v["use_padding"] != 0 {
				stride = w + ((16-w%32)+32)%32
			}
			if bytes := stride * h * 4; bytes > 48*1024 {
				t.Errorf("%s: %s: the local tile takes %d bytes, over 48 KiB", path, sp.Format(c), bytes)
			}
		}
		if staged == 0 {
			t.Errorf("%s: no valid configuration uses local memory", path)
		}
	}
}

// TestConvolutionOddSize runs the convolution on an image that no tile divides, so that
// partial work-groups and the clamped and zero-filled edges are exercised everywhere.
func TestConvolutionOddSize(t *testing.T) {
	dev := openDevice(t, "opencl")
	path := variant(t, example("convolution/convolution.yaml"), edits{
		constants: map[string]string{"W": "203", "H": "77"},
	})
	s, sp := load(t, path, 1)
	evaluate(t, s, sp, dev, sample(t, s, sp, 16, 5))
}
