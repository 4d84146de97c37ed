package dynamic_test

import (
	"context"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/ktune/ktune/dynamic"
	"github.com/ktune/ktune/result"
	"github.com/ktune/ktune/spec"
)

// oddKernel is countSpec's kernel with another planted bug, one that every
// configuration but 128 1 shares, the reference configuration 32 1 included: an odd
// count's last element is left alone. Judged by the tuned kernel at the reference
// configuration, the tuned configurations agree with it on an odd count, wrong alike.
const oddKernel = `
__kernel void axpyn(__global float *y, __global const float *x, const float alpha, const int n) {
    int i = get_group_id(0) * block_size_x * tile_size_x + get_local_id(0);
#if block_size_x == 128 && tile_size_x == 1
    const int end = n;
#else
    const int end = n & ~1; /* planted: an odd count's last element is left alone */
#endif
    for (int t = 0; t < tile_size_x; t++) {
        int k = i + t * block_size_x;
        if (k < end) y[k] = alpha * x[k] + y[k];
    }
}
`

// oddRef is the reference kernel of the spec's own, right on every count.
const oddRef = `
__kernel void axpyn_ref(__global float *y, __global const float *x, const float alpha, const int n) {
    int i = get_global_id(0);
    if (i < n) y[i] = alpha * x[i] + y[i];
}
`

// oddAxpy is countSpec with oddKernel, and with oddRef as its reference kernel when
// withRef.
func oddAxpy(t testing.TB, withRef bool) *spec.Spec { return oddAxpyOf(t, withRef, oddKernel) }

// oddAxpyOf is oddAxpy with kernel instead of oddKernel.
func oddAxpyOf(t testing.TB, withRef bool, kernel string) *spec.Spec {
	t.Helper()
	if !withRef {
		return oddAxpyJudged(t, kernel, "", nil)
	}
	return oddAxpyJudged(t, kernel, "{name: axpyn_ref, source: ref.cl, block: [64]}", map[string]string{"ref.cl": oddRef})
}

// oddAxpyJudged is countSpec with kernel, and with ref (a verification.reference.kernel
// mapping, "" for none) as its reference, whose files are refFiles by name.
func oddAxpyJudged(t testing.TB, kernel, ref string, refFiles map[string]string) *spec.Spec {
	t.Helper()
	openCL(t)
	text := countSpec
	if ref != "" {
		text = strings.Replace(text, "    config: {block_size_x: 32, tile_size_x: 1}\n",
			"    config: {block_size_x: 32, tile_size_x: 1}\n    kernel: "+ref+"\n", 1)
		if text == countSpec {
			t.Fatal("countSpec no longer has the reference config this test adds a kernel after")
		}
	}
	files := map[string]string{"axpyn.yaml": text, "axpyn.cl": kernel}
	maps.Copy(files, refFiles)
	return loadSpec(t, "axpyn.yaml", files)
}

// Without a reference kernel of the spec's own, a checked call at an odd count is
// judged by the known-good configuration, which shares the planted bug: the check finds
// nothing and the call returns the wrong y. This is the gap the next test closes.
func TestACheckByTheKnownGoodConfigurationMissesABugItShares(t *testing.T) {
	tu := newTuner(t, oddAxpy(t, false), dynamic.Options{Budget: 6, Seed: 1, CheckEvery: 1})
	rng := rand.New(rand.NewPCG(11, 1))
	tuneCount(t, tu, rng)
	data, want := countData(rng, 4001)
	res, err := tu.Run(context.Background(), data)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := res.Float32s("y")
	if !res.Checked || len(res.CheckErrors) != 0 || slices.Equal(got, want) {
		t.Fatalf("checked %v, %d check errors, right y %v; want a checked call that misses the shared bug", res.Checked, len(res.CheckErrors), slices.Equal(got, want))
	}
}

// With a reference kernel of the spec's own, a checked call compares with that kernel
// run on the call's data, as offline verification does: at the odd count 4001 the best,
// 128 2, and the next two, 64 2 and 32 2, are found wrong; the reference's own outputs
// answer the call. The next call checks the next best, 128 1, right there, which answers
// it. Every call returns the right y.
func TestACheckByTheReferenceKernelCatchesABugTheReferenceConfigurationShares(t *testing.T) {
	tu := newTuner(t, oddAxpy(t, true), dynamic.Options{Budget: 6, Seed: 1, CheckEvery: 1})
	rng := rand.New(rand.NewPCG(11, 1))
	tuneCount(t, tu, rng)
	runCalls(t, tu, rng, []checkedCall{
		{n: 4096, checked: true, config: "128 2"},
		{n: 4001, checked: true, wrong: []string{"128 2", "64 2", "32 2"}},
		{n: 4001, checked: true, config: "128 1"},
		{n: 4001, checked: true, config: "128 1"},
	}, func(call int, _ dynamic.Result, ce *dynamic.CheckError) {
		if ce.Status != result.WrongAnswer || !strings.Contains(ce.Error(), "against the spec's reference kernel axpyn_ref") ||
			!strings.Contains(ce.Msg, "output y: 1 of 4096 elements differ") {
			t.Errorf("call %d: check error %q; want a wrong answer against the reference kernel axpyn_ref, one element of y", call, ce.Error())
		}
	})
	if sr := tu.Searches()[0]; fmtValues(sr.Running) != "128 1" || len(sr.Failed) != 3 {
		t.Errorf("the search runs %v with %d failed; want 128 1 after 3 failed", sr.Running, len(sr.Failed))
	}
}

// Where every configuration shares the bug, the known-good one included, the checks
// find each wrong in turn, three a call, and the reference's own outputs answer; the
// known-good configuration stays the last resort, found wrong on each call, which is
// checked, until one agrees: no call returns a wrong y.
func TestACheckByTheReferenceKernelFindsTheKnownGoodConfigurationWrong(t *testing.T) {
	kernel := strings.Replace(oddKernel, "#if block_size_x == 128 && tile_size_x == 1", "#if 0", 1)
	tu := newTuner(t, oddAxpyOf(t, true, kernel), dynamic.Options{Budget: 6, Seed: 1, CheckOnChange: []string{"n"}})
	rng := rand.New(rand.NewPCG(11, 1))
	tuneCount(t, tu, rng)
	res := runCalls(t, tu, rng, []checkedCall{
		{n: 4001, checked: true, wrong: []string{"128 2", "64 2", "32 2"}},
		{n: 4001, checked: true, wrong: []string{"128 1", "64 1", "32 1"}},
		{n: 4001, checked: true, wrong: []string{"32 1"}},
		{n: 4096, checked: true, config: "32 1"}, // an even count: the known-good configuration agrees
		{n: 4096, config: "32 1"},                // its count agreed on the call before
	}, nil)
	if !strings.Contains(res[2].Failure, "the known-good configuration still") {
		t.Errorf("call 2: failure %q; want it to say the known-good configuration runs still", res[2].Failure)
	}
}
