package examples_test

// Tests of the examples of seed 003's KTT benchmark set (bicg, coulomb_sum_3d, transpose,
// nbody, reduction, hotspot, gemm_batched, fourier_reconstruction): each samples its space on the real device
// against its reference, at the spec's size or a smaller variant, and checks that a
// deliberately broken kernel is reported as a wrong answer.

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ktune/ktune/format"
	_ "github.com/ktune/ktune/format/all"
	"github.com/ktune/ktune/result"
	"github.com/ktune/ktune/runner"
	"github.com/ktune/ktune/space"
	"github.com/ktune/ktune/spec"
)

// mutation is a deliberate bug: the first occurrence of old in the kernel's source
// replaced by new.
type mutation struct{ name, old, new string }

// caught checks that each mutation of the spec's kernel source (kernel, relative to the
// examples' directory) fails verification in n sampled configurations of the spec changed
// by e: status wrong_answer, not ok, and not a compile or runtime error either, which
// would mean the mutation broke something other than the answer.
func caught(t *testing.T, specPath, kernel string, e edits, n int, ms ...mutation) {
	t.Helper()
	dev := openDevice(t, "opencl")
	code, err := os.ReadFile(example(kernel))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range ms {
		t.Run(m.name, func(t *testing.T) {
			if !strings.Contains(string(code), m.old) {
				t.Fatalf("%s no longer contains %q: update the mutation", kernel, m.old)
			}
			broken := filepath.Join(t.TempDir(), filepath.Base(kernel))
			if err := os.WriteFile(broken, []byte(strings.Replace(string(code), m.old, m.new, 1)), 0o644); err != nil {
				t.Fatal(err)
			}
			v := e
			v.source = broken
			s, sp := load(t, variant(t, example(specPath), v), 1)
			r := runner.New(s, sp, dev)
			defer r.Close()
			for _, c := range sample(t, s, sp, n, 7) {
				ev := r.Evaluate(context.Background(), c, nil)
				if ev.Status != result.WrongAnswer {
					t.Errorf("%s: status %v (%s), want wrong_answer", sp.Format(c), ev.Status, ev.Message)
				}
			}
		})
	}
}

// TestReduction samples the reduction's space, bounded and unbounded groups and every
// vector width among them, and runs it on a length that no vector width divides, so that
// the floats past the last whole vector are added too.
func TestReduction(t *testing.T) {
	dev := openDevice(t, "opencl")
	s, sp := load(t, example("reduction/reduction.yaml"), 2)
	evaluate(t, s, sp, dev, sample(t, s, sp, 6, 1))

	s, sp = load(t, variant(t, example("reduction/reduction.yaml"), edits{
		constants: map[string]string{"N": "100003"},
		values:    map[string]string{"VECTOR_SIZE": "[4, 16]"},
	}), 1)
	evaluate(t, s, sp, dev, sample(t, s, sp, 4, 2))
}

// TestReductionWrongKernelCaught: a local tree that drops a partial sum at every level,
// and a strided loop that skips every other stride (32 groups of at most 64 work-items, so
// that every work-item strides).
func TestReductionWrongKernelCaught(t *testing.T) {
	caught(t, "reduction/reduction.yaml", "reduction/reduction.cl",
		edits{constants: map[string]string{"N": "65536"}, values: map[string]string{
			"UNBOUNDED_WG": "[0]", "WG_NUM": "[0, 32]", "WORK_GROUP_SIZE_X": "[32, 64]"}}, 2,
		mutation{"tree drops a partial", "if (lid < step)", "if (lid + 1 < step)"},
		mutation{"strided loop skips", "i += get_global_size(0)", "i += 2 * get_global_size(0)"},
	)
}

// TestTranspose samples the transpose's space at its size, and on a non-square matrix,
// where rows and columns mixed up would show.
func TestTranspose(t *testing.T) {
	dev := openDevice(t, "opencl")
	s, sp := load(t, example("transpose/transpose.yaml"), 1)
	evaluate(t, s, sp, dev, sample(t, s, sp, 4, 1))

	s, sp = load(t, variant(t, example("transpose/transpose.yaml"), edits{
		constants: map[string]string{"W": "256", "H": "192"},
	}), 1)
	evaluate(t, s, sp, dev, sample(t, s, sp, 8, 2))
}

// TestTransposeWrongKernelCaught: a padded local tile written unpadded, and input rows
// read with the output's row length.
func TestTransposeWrongKernelCaught(t *testing.T) {
	small := map[string]string{"W": "256", "H": "192"}
	caught(t, "transpose/transpose.yaml", "transpose/transpose.cl",
		edits{constants: small, values: map[string]string{"PADD_LOCAL": "[1]"}}, 2,
		mutation{"padding ignored on store", "VSTORE(v, 0, tile + r * STRIDE + c);", "VSTORE(v, 0, tile + r * TILE_SIZE_X + c);"})
	caught(t, "transpose/transpose.yaml", "transpose/transpose.cl",
		edits{constants: small, values: map[string]string{"LOCAL_MEM": "[0]", "CR": "[1]"}}, 2,
		mutation{"input row length", "column[k] = in[(y0 + r + k) * W + x0 + c];", "column[k] = in[(y0 + r + k) * H + x0 + c];"})
}

// TestBiCG samples BiCG's space at its size and on a matrix with fewer columns than rows,
// so that q and s differ in length.
func TestBiCG(t *testing.T) {
	dev := openDevice(t, "opencl")
	s, sp := load(t, example("bicg/bicg.yaml"), 1)
	evaluate(t, s, sp, dev, sample(t, s, sp, 4, 1))

	s, sp = load(t, variant(t, example("bicg/bicg.yaml"), edits{
		constants: map[string]string{"M": "1024", "N": "256"},
	}), 1)
	evaluate(t, s, sp, dev, sample(t, s, sp, 8, 2))
}

// TestBiCGWrongKernelCaught: the fused pass multiplying A^T by p instead of r, the local
// sum of q's shares missing a work-item's, and the second tile of a work-group starting
// in the wrong row.
func TestBiCGWrongKernelCaught(t *testing.T) {
	small := map[string]string{"M": "1024", "N": "256"}
	for _, c := range []struct {
		values map[string]string
		m      mutation
	}{
		{map[string]string{"FUSED": "[1]"}, mutation{"s from p", "sacc[j] += a * rrow;", "sacc[j] += a * pcol[j];"}},
		{map[string]string{"REDUCE_LOCAL": "[1]"}, mutation{"local sum short", "for (int x = 0; x < WORK_GROUP_SIZE_X; x++)", "for (int x = 1; x < WORK_GROUP_SIZE_X; x++)"}},
		{map[string]string{"ROW_TILES": "[2]", "ROWS_PER_ITEM": "[2]"}, mutation{"tile row", "const int rowt = row0 + t * TM;", "const int rowt = row0 + t * WORK_GROUP_SIZE_Y;"}},
	} {
		caught(t, "bicg/bicg.yaml", "bicg/bicg.cl", edits{constants: small, values: c.values}, 2, c.m)
	}
}

// TestCoulombSum3D samples the Coulomb sum's space, with fewer atoms than the spec's.
func TestCoulombSum3D(t *testing.T) {
	dev := openDevice(t, "opencl")
	s, sp := load(t, variant(t, example("coulomb_sum_3d/coulomb_sum_3d.yaml"), edits{
		constants: map[string]string{"ATOMS": "8"},
	}), 1)
	evaluate(t, s, sp, dev, sample(t, s, sp, 8, 1))
}

// TestCoulombSum3DLayoutsHoldTheSameAtoms runs configurations of both atom layouts
// (USE_SOA 0: atom_info's float4s; 1: the four arrays taken from it) against the
// reference, which reads atom_info; and with atom_charge taken from the wrong field of
// atom_info (z), the four arrays no longer hold the atoms: every structure-of-arrays
// configuration is a wrong answer, and the array-of-structures ones still pass.
func TestCoulombSum3DLayoutsHoldTheSameAtoms(t *testing.T) {
	dev := openDevice(t, "opencl")
	few := map[string]string{"ATOMS": "8"}
	for _, soa := range []string{"0", "1"} {
		t.Run("USE_SOA="+soa, func(t *testing.T) {
			s, sp := load(t, variant(t, example("coulomb_sum_3d/coulomb_sum_3d.yaml"), edits{
				constants: few, values: map[string]string{"USE_SOA": "[" + soa + "]"},
			}), 1)
			evaluate(t, s, sp, dev, sample(t, s, sp, 4, 3))
		})
	}
	path := variant(t, example("coulomb_sum_3d/coulomb_sum_3d.yaml"), edits{constants: few})
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	const right = "fill: {from: atom_info, start: 3, stride: 4}"
	if !strings.Contains(string(data), right) {
		t.Fatalf("the spec no longer takes atom_charge with %q", right)
	}
	if err := os.WriteFile(path, []byte(strings.Replace(string(data), right, "fill: {from: atom_info, start: 2, stride: 4}", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	s, sp := load(t, path, 1)
	r := runner.New(s, sp, dev)
	defer r.Close()
	layouts := map[int64]int{}
	for _, c := range sample(t, s, sp, 6, 4) {
		want := result.OK
		n := sp.Named(c)
		soa := n.Values[slices.Index(n.Names, "USE_SOA")].Int()
		if layouts[soa]++; soa == 1 {
			want = result.WrongAnswer
		}
		if ev := r.Evaluate(context.Background(), c, nil); ev.Status != want {
			t.Errorf("charges from z: %s: status %v (%s), want %v", sp.Format(c), ev.Status, ev.Message, want)
		}
	}
	if layouts[0] == 0 || layouts[1] == 0 {
		t.Errorf("the sample has %d configurations of each layout (USE_SOA 0, 1), want both", layouts)
	}
}

// TestCoulombSum3DRecordedSpace checks that the spec's space holds KTT's recorded one:
// every configuration measured on the RTX 2080 Ti (testdata/ktt/coulomb_sum_3d) is valid,
// and the spec's configurations at the recorded values of USE_CONSTANT_MEMORY and
// VECTOR_SIZE are exactly as many as the recording's.
func TestCoulombSum3DRecordedSpace(t *testing.T) {
	_, sp := load(t, example("coulomb_sum_3d/coulomb_sum_3d.yaml"), 0)
	rec, err := format.Open(filepath.Join("..", "testdata", "ktt", "coulomb_sum_3d", "RTX_2080_Ti.json.gz"))
	if err != nil {
		t.Fatal(err)
	}
	names := sp.Named(sp.At(0, nil)).Names
	seen := map[string]bool{}
	for _, e := range rec.Evaluations {
		byName := map[string]space.Value{}
		for i, p := range rec.Params {
			byName[p.Name] = e.Config[i]
		}
		values := make([]space.Value, len(names))
		for i, n := range names {
			v, ok := byName[n]
			if !ok {
				t.Fatalf("the recording has no parameter %s", n)
			}
			values[i] = space.IntValue(v.Int())
		}
		c, err := sp.ConfigOf(values)
		if err != nil || !sp.Contains(c) {
			t.Errorf("recorded configuration %v is not in the spec's space (%v)", values, err)
			continue
		}
		seen[sp.Format(c)] = true
	}
	inRecorded := 0
	for _, c := range all(sp) {
		n := sp.Named(c)
		v := map[string]int64{}
		for i, name := range n.Names {
			v[name] = n.Values[i].Int()
		}
		if v["USE_CONSTANT_MEMORY"] == 0 && v["VECTOR_SIZE"] == 1 {
			inRecorded++
		}
	}
	if len(seen) == 0 || inRecorded != len(seen) {
		t.Errorf("%d configurations of the spec at the recorded values, %d distinct recorded ones", inRecorded, len(seen))
	}
	if sp.Len() != 1260 {
		t.Errorf("the space has %d configurations, want KTT's 1,260", sp.Len())
	}
}

// TestCoulombSum3DWrongKernelCaught: the z coordinate of the wrong point, the
// structure-of-arrays atoms with y and z exchanged, and the array-of-structures atoms'
// charge read from their z (random atoms: a wrong field is a wrong answer).
func TestCoulombSum3DWrongKernelCaught(t *testing.T) {
	few := map[string]string{"ATOMS": "8"}
	caught(t, "coulomb_sum_3d/coulomb_sum_3d.yaml", "coulomb_sum_3d/coulomb_sum_3d.cl",
		edits{constants: few, values: map[string]string{"Z_ITERATIONS": "[4, 8]"}}, 2,
		mutation{"z of the next point", "const float dz = (zi + k) * spacing - az;", "const float dz = (zi + k + 1) * spacing - az;"})
	caught(t, "coulomb_sum_3d/coulomb_sum_3d.yaml", "coulomb_sum_3d/coulomb_sum_3d.cl",
		edits{constants: few, values: map[string]string{"USE_SOA": "[1]"}}, 2,
		mutation{"y and z exchanged", "ay = atom_y[a], az = atom_z[a]", "ay = atom_z[a], az = atom_y[a]"})
	caught(t, "coulomb_sum_3d/coulomb_sum_3d.yaml", "coulomb_sum_3d/coulomb_sum_3d.cl",
		edits{constants: few, values: map[string]string{"USE_SOA": "[0]"}}, 2,
		mutation{"charge read from z", "q = atom.w;", "q = atom.z;"})
}

// TestNBody samples the N-body space on 1,024 bodies.
func TestNBody(t *testing.T) {
	dev := openDevice(t, "opencl")
	s, sp := load(t, variant(t, example("nbody/nbody.yaml"), edits{
		constants: map[string]string{"N": "1024"},
	}), 1)
	evaluate(t, s, sp, dev, sample(t, s, sp, 8, 1))
}

// TestNBodyLayoutsVerify runs configurations of both body layouts (USE_SOA 0: bodies'
// structures; 1: the four arrays taken from them), every vector width among them,
// against the reference, which reads bodies.
func TestNBodyLayoutsVerify(t *testing.T) {
	dev := openDevice(t, "opencl")
	for _, soa := range []string{"0", "1"} {
		t.Run("USE_SOA="+soa, func(t *testing.T) {
			for _, vt := range []string{"1", "2", "4"} {
				s, sp := load(t, variant(t, example("nbody/nbody.yaml"), edits{
					constants: map[string]string{"N": "1024"},
					values:    map[string]string{"USE_SOA": "[" + soa + "]", "VECTOR_TYPE": "[" + vt + "]"},
				}), 1)
				evaluate(t, s, sp, dev, sample(t, s, sp, 2, 2))
			}
		})
	}
}

// TestNBodyWrongKernelCaught: half the local tiles skipped, a work-item's bodies taken
// next to each other instead of a work-group apart, one body of a float16 load pulling
// twice in place of another, and of the structure of arrays, y and z exchanged and one
// mass of four taken for another.
func TestNBodyWrongKernelCaught(t *testing.T) {
	small := map[string]string{"N": "1024"}
	for _, c := range []struct {
		values map[string]string
		m      mutation
	}{
		{map[string]string{"LOCAL_MEM": "[1]"}, mutation{"tiles skipped", "t += WORK_GROUP_SIZE_X)", "t += 2 * WORK_GROUP_SIZE_X)"}},
		{map[string]string{"OUTER_UNROLL_FACTOR": "[2, 4]"}, mutation{"bodies adjacent", "POSITION(first + k * WORK_GROUP_SIZE_X)", "POSITION(first + k)"}},
		{map[string]string{"VECTOR_TYPE": "[4]"}, mutation{"vector body twice", "PULL((v).lo.lo); PULL((v).lo.hi);", "PULL((v).lo.lo); PULL((v).lo.lo);"}},
		{map[string]string{"VECTOR_TYPE": "[1]", "USE_SOA": "[1]"}, mutation{"y and z exchanged", "body_y[j], body_z[j]", "body_z[j], body_y[j]"}},
		{map[string]string{"VECTOR_TYPE": "[4]", "USE_SOA": "[1]"}, mutation{"a mass for another", "x.s2, y.s2, z.s2, m.s2", "x.s2, y.s2, z.s2, m.s3"}},
	} {
		caught(t, "nbody/nbody.yaml", "nbody/nbody.cl", edits{constants: small, values: c.values}, 2, c.m)
	}
}

// TestGEMMBatched samples the batched GEMM's space at its size and on rectangular
// matrices (8 x 12 times 12 x 32).
func TestGEMMBatched(t *testing.T) {
	dev := openDevice(t, "opencl")
	s, sp := load(t, example("gemm_batched/gemm_batched.yaml"), 1)
	evaluate(t, s, sp, dev, sample(t, s, sp, 4, 1))

	s, sp = load(t, variant(t, example("gemm_batched/gemm_batched.yaml"), edits{
		constants: map[string]string{"BATCH": "256", "M": "8", "N": "32", "K": "12"},
	}), 1)
	evaluate(t, s, sp, dev, sample(t, s, sp, 8, 2))
}

// TestGEMMBatchedWrongKernelCaught: padded local rows of A written unpadded, a group's
// gathered results written one element off, and rows skipped by coarsened work-items.
func TestGEMMBatchedWrongKernelCaught(t *testing.T) {
	rect := map[string]string{"BATCH": "256", "M": "8", "N": "32", "K": "12"}
	for _, c := range []struct {
		values map[string]string
		m      mutation
	}{
		{map[string]string{"PAD_A": "[1]"}, mutation{"padding ignored", "la[row * A_STRIDE + i % SIZE_K]", "la[row * SIZE_K + i % SIZE_K]"}},
		{map[string]string{"CACHE_C": "[1]"}, mutation{"gathered C shifted", "C[first * SIZE_M * SIZE_N + i] = lc[i];", "C[first * SIZE_M * SIZE_N + i] = lc[(i + 1) % (GROUP_SIZE_Z * SIZE_M * SIZE_N)];"}},
		{map[string]string{"GROUP_SIZE_Y": "[1, 2]"}, mutation{"rows skipped", "r += GROUP_SIZE_Y)", "r += 2 * GROUP_SIZE_Y)"}},
	} {
		caught(t, "gemm_batched/gemm_batched.yaml", "gemm_batched/gemm_batched.cl", edits{constants: rect, values: c.values}, 2, c.m)
	}
}

// TestReductionTwoPass samples the two-launch reduction, partial sums then their sum, on
// a length that no vector width divides.
func TestReductionTwoPass(t *testing.T) {
	dev := openDevice(t, "opencl")
	s, sp := load(t, variant(t, example("reduction/reduction_two_pass.yaml"), edits{
		constants: map[string]string{"N": "100003"},
	}), 1)
	evaluate(t, s, sp, dev, sample(t, s, sp, 5, 3))
}

// TestReductionTwoPassWrongKernelCaught: a second launch that drops the last partial sum,
// and a first launch whose groups overwrite each other's partial sum (few enough groups
// that the last has data to drop).
func TestReductionTwoPassWrongKernelCaught(t *testing.T) {
	caught(t, "reduction/reduction_two_pass.yaml", "reduction/reduction_two_pass.cl",
		edits{constants: map[string]string{"N": "65536"}, values: map[string]string{"WG_NUM": "[32, 64]"}}, 2,
		mutation{"final drops a partial", "i < groups; i += FINAL_WG_SIZE", "i < groups - 1; i += FINAL_WG_SIZE"},
		mutation{"partials overwrite", "partial[get_group_id(0)] = sum;", "partial[get_group_id(0) / 2] = sum;"},
	)
}

// TestHotspot samples the Hotspot-style stencil, whose launches (STEPS / STEPS_PER_LAUNCH
// of them, odd and even numbers) swap their buffers, on a chip no tile divides.
func TestHotspot(t *testing.T) {
	dev := openDevice(t, "opencl")
	s, sp := load(t, variant(t, example("hotspot/hotspot.yaml"), edits{
		constants: map[string]string{"W": "100", "H": "75"},
	}), 1)
	evaluate(t, s, sp, dev, sample(t, s, sp, 6, 4))
}

// TestHotspotWrongKernelCaught: a tile written one step too early (its overlap's cells
// still wrong), and a chip edge that takes the wrong neighbour.
func TestHotspotWrongKernelCaught(t *testing.T) {
	caught(t, "hotspot/hotspot.yaml", "hotspot/hotspot.cl",
		edits{constants: map[string]string{"W": "100", "H": "75"}, values: map[string]string{"STEPS_PER_LAUNCH": "[2, 3, 4]"}}, 2,
		mutation{"overlap too thin", "lx >= S && lx < BLOCK_X - S", "lx >= S - 1 && lx < BLOCK_X - S + 1"},
		mutation{"edge neighbour", "gx > 0 ? tile[cur][ly][lx - 1] : t", "tile[cur][ly][lx - 1]"},
	)
}

// TestFourierReconstruction samples the 3D Fourier reconstruction's space, both
// formulations (atomic scatter and gather), at its size and on a smaller volume than its
// images (N 24 of S 32, 16 images), whose samples past the volume's edge are left out.
func TestFourierReconstruction(t *testing.T) {
	dev := openDevice(t, "opencl")
	s, sp := load(t, example("fourier_reconstruction/fourier_reconstruction.yaml"), 1)
	evaluate(t, s, sp, dev, sample(t, s, sp, 2, 1))

	small := map[string]string{"N": "24", "S": "32", "P": "16"}
	for _, atomics := range []string{"0", "1"} {
		t.Run("USE_ATOMICS="+atomics, func(t *testing.T) {
			s, sp := load(t, variant(t, example("fourier_reconstruction/fourier_reconstruction.yaml"), edits{
				constants: small, values: map[string]string{"USE_ATOMICS": "[" + atomics + "]"},
			}), 1)
			evaluate(t, s, sp, dev, sample(t, s, sp, 5, 2))
		})
	}
}

// TestFourierReconstructionWrongKernelCaught: every weight taken one table entry too far
// (the precomputed table and the computed blob alike), voxels rotated by R^T instead of R
// (both formulations), a gather that misses the samples at the far edge of the radius,
// and a scatter whose box misses the voxels at its far edge in z.
func TestFourierReconstructionWrongKernelCaught(t *testing.T) {
	small := map[string]string{"N": "24", "S": "32", "P": "16"}
	const src = "fourier_reconstruction/fourier_reconstruction.cl"
	for _, c := range []struct {
		values map[string]string
		m      mutation
	}{
		{map[string]string{"PRECOMPUTE_BLOB_VAL": "[1]"}, mutation{"table entry off by one", "min((int)(d2 * inv_step), table_size - 1)", "min((int)(d2 * inv_step) + 1, table_size - 1)"}},
		{map[string]string{"PRECOMPUTE_BLOB_VAL": "[0]"}, mutation{"computed entry off by one", "min((int)(d2 * inv_step), table_size - 1)", "min((int)(d2 * inv_step) + 1, table_size - 1)"}},
		{nil, mutation{"rotation transposed", "*xp = r[0] * fx + r[1] * fy + r[2] * fz;\n    *yp = r[3] * fx + r[4] * fy + r[5] * fz;\n    *zp = r[6] * fx + r[7] * fy + r[8] * fz;", "*xp = r[0] * fx + r[3] * fy + r[6] * fz;\n    *yp = r[1] * fx + r[4] * fy + r[7] * fz;\n    *zp = r[2] * fx + r[5] * fy + r[8] * fz;"}},
		{map[string]string{"USE_ATOMICS": "[0]"}, mutation{"gather misses the radius' edge", "for (int i = i0; i <= i1; i++)", "for (int i = i0; i < i1; i++)"}},
		{map[string]string{"USE_ATOMICS": "[1]"}, mutation{"scatter misses the radius' edge", "for (int z = z0; z <= z1; z++)", "for (int z = z0; z < z1; z++)"}},
	} {
		caught(t, "fourier_reconstruction/fourier_reconstruction.yaml", src, edits{constants: small, values: c.values}, 2, c.m)
	}
}

// TestFourierReconstructionInputs checks make_inputs.py's files against the spec: 256
// orientations that are rotations (orthonormal rows, determinant 1), and a blob table of
// BLOB_TABLE_SIZE entries whose entry k is the Kaiser-Bessel blob of order 0 with
// BLOB_ALPHA at the table's k-th squared distance, to float precision.
func TestFourierReconstructionInputs(t *testing.T) {
	read := func(name string) []float64 {
		a, err := spec.ReadNPYFile(example(filepath.Join("fourier_reconstruction", name)))
		if err != nil {
			t.Fatal(err)
		}
		if a.Type != "float32" {
			t.Fatalf("%s holds %s, want float32", name, a.Type)
		}
		v, err := a.Float64s()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	s, _ := load(t, example("fourier_reconstruction/fourier_reconstruction.yaml"), 0)
	constant := func(name string) float64 {
		for _, c := range s.Constants {
			if c.Name == name {
				return c.Value
			}
		}
		t.Fatalf("the spec has no constant %s", name)
		return 0
	}
	rot := read("orientations.npy")
	if len(rot) != 256*9 {
		t.Fatalf("orientations.npy holds %d floats, want 256 rotations", len(rot))
	}
	for q := 0; q < 256; q++ {
		r := rot[9*q : 9*q+9]
		for a := 0; a < 3; a++ {
			for b := 0; b < 3; b++ {
				dot := r[3*a]*r[3*b] + r[3*a+1]*r[3*b+1] + r[3*a+2]*r[3*b+2]
				want := 0.0
				if a == b {
					want = 1
				}
				if math.Abs(dot-want) > 1e-6 {
					t.Errorf("orientation %d: rows %d and %d have dot product %g, want %g", q, a, b, dot, want)
				}
			}
		}
		det := r[0]*(r[4]*r[8]-r[5]*r[7]) - r[1]*(r[3]*r[8]-r[5]*r[6]) + r[2]*(r[3]*r[7]-r[4]*r[6])
		if math.Abs(det-1) > 1e-6 {
			t.Errorf("orientation %d: determinant %g, want 1", q, det)
		}
	}
	table := read("blob_table.npy")
	size, alpha := int(constant("BLOB_TABLE_SIZE")), constant("BLOB_ALPHA")
	if len(table) != size {
		t.Fatalf("blob_table.npy holds %d entries, want BLOB_TABLE_SIZE %d", len(table), size)
	}
	i0 := func(x float64) float64 { // the series, to double precision
		term, sum := 1.0, 1.0
		for k := 1.0; term > 1e-17*sum; k++ {
			term *= x * x / 4 / (k * k)
			sum += term
		}
		return sum
	}
	for k, got := range table {
		want := i0(alpha*math.Sqrt(1-float64(k)/float64(size-1))) / i0(alpha)
		if math.Abs(got-want) > 1e-7*want {
			t.Errorf("blob_table.npy[%d] = %g, want %g", k, got, want)
		}
	}
}
