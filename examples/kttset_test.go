package examples_test

// Tests of the examples of seed 003's KTT benchmark set (bicg, coulomb_sum_3d, transpose,
// nbody, reduction, hotspot, gemm_batched): each samples its space on the real device
// against its reference, at the spec's size or a smaller variant, and checks that a
// deliberately broken kernel is reported as a wrong answer.

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ktune/ktune/result"
	"github.com/ktune/ktune/runner"
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
