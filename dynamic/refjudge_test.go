package dynamic_test

import (
	"bytes"
	"context"
	"log/slog"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ktune/ktune/dynamic"
	"github.com/ktune/ktune/result"
	"github.com/ktune/ktune/spec"
)

// hostRef is oddRef as a C function, the reference a spec of an OpenCL kernel may give
// on the host (runner's host reference): right on every count.
const hostRef = `
void axpyn_ref(float *y, const float *x, const float alpha, const int n) {
    for (int i = 0; i < n; i++) y[i] = alpha * x[i] + y[i];
}
`

// hostRefMapping is the verification.reference.kernel mapping of hostRef.
const hostRefMapping = "{name: axpyn_ref, source: ref.c, language: c}"

// oddAxpyHost is oddAxpy judged by hostRef instead of a reference kernel on the device.
func oddAxpyHost(t testing.TB, kernel string) *spec.Spec {
	t.Helper()
	return oddAxpyJudged(t, kernel, hostRefMapping, map[string]string{"ref.c": hostRef})
}

// warnings is a logger that keeps the warnings a tuner logs, and what it kept.
func warnings() (*slog.Logger, *bytes.Buffer) {
	var b bytes.Buffer
	return slog.New(slog.NewTextHandler(&b, &slog.HandlerOptions{Level: slog.LevelWarn})), &b
}

// A C reference on the host judges a checked call as a reference kernel of the spec's
// own does: on the call's data, so that at the odd count 4001 the best, 128 2, and the
// next two, all sharing the bug of the known-good configuration 32 1, are found wrong,
// and the reference's outputs answer; the next call checks 128 1, which is right.
// Judged by the known-good configuration, as before, the call found nothing wrong.
func TestACheckByAHostReferenceCatchesABugTheReferenceConfigurationShares(t *testing.T) {
	tu := newTuner(t, oddAxpyHost(t, oddKernel), dynamic.Options{Budget: 6, Seed: 1, CheckEvery: 1})
	rng := rand.New(rand.NewPCG(11, 1))
	tuneCount(t, tu, rng)
	const judge = "the spec's C reference axpyn_ref"
	runCalls(t, tu, rng, []checkedCall{
		{n: 4096, checked: true, config: "128 2", judge: judge},
		{n: 4001, checked: true, wrong: []string{"128 2", "64 2", "32 2"}, judge: judge},
		{n: 4001, checked: true, config: "128 1", judge: judge},
	}, func(call int, _ dynamic.Result, ce *dynamic.CheckError) {
		if ce.Status != result.WrongAnswer || !strings.Contains(ce.Error(), "against "+judge) {
			t.Errorf("call %d: check error %q; want a wrong answer against %s", call, ce.Error(), judge)
		}
	})
}

// Tuning steps are judged by the spec's reference too, a kernel of its own or a C one
// on the host, where it has one: tuned on odd counts alone, every configuration sharing
// the known-good configuration's bug is told to the session as a wrong answer, so that
// tuning ends on 128 1, the one right configuration, though the rank prefers the tiles
// of 2; and no step returns a wrong y (where the tried configuration and the known-good
// one are both wrong, the reference's outputs answer). Judged by the known-good
// configuration, tuning ended on 128 2, wrong on every odd count.
func TestTuningStepsAreJudgedByTheSpecsReference(t *testing.T) {
	for _, tc := range []struct {
		name, judge, ref string
		files            map[string]string
	}{
		{"kernel", "the spec's reference kernel axpyn_ref", "{name: axpyn_ref, source: ref.cl, block: [64]}", map[string]string{"ref.cl": oddRef}},
		{"host C", "the spec's C reference axpyn_ref", hostRefMapping, map[string]string{"ref.c": hostRef}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tu := newTuner(t, oddAxpyJudged(t, oddKernel, tc.ref, tc.files), dynamic.Options{Budget: 6, Seed: 1})
			rng := rand.New(rand.NewPCG(11, 1))
			ctx := context.Background()
			wrongTold := 0
			for call := 0; tu.Tuning(); call++ {
				if call == 8 {
					t.Fatal("still tuning after 8 calls with a budget of 6")
				}
				data, want := countData(rng, 4001)
				res, err := tu.Run(ctx, data)
				if err != nil {
					t.Fatalf("call %d: %v", call, err)
				}
				checkY(t, call, res, want)
				if !res.Tuning || res.Judge != tc.judge {
					t.Errorf("call %d: tuning %v, judged by %q; want a tuning step judged by %s", call, res.Tuning, res.Judge, tc.judge)
				}
				tried := fmtValues(res.Tried)
				switch {
				case tried == "128 1":
					if res.Failure != "" || fmtValues(res.Config) != "128 1" {
						t.Errorf("call %d: 128 1, right on odd counts, failed: %q", call, res.Failure)
					}
				case !strings.Contains(res.Failure, "wrong_answer: against "+tc.judge) || !res.Reference:
					t.Errorf("call %d: %s, wrong on odd counts, gave failure %q, reference's outputs %v; want a wrong answer against %s, answered by the reference",
						call, tried, res.Failure, res.Reference, tc.judge)
				default:
					wrongTold++
				}
			}
			if got := fmtValues(tu.Searches()[0].Running); got != "128 1" {
				t.Errorf("tuning ended on %s; want 128 1, the one configuration right on odd counts", got)
			}
			if wrongTold == 0 {
				t.Error("no tuning step tried a configuration wrong on odd counts")
			}
		})
	}
}

// A reference kernel that does not compile at a call's sizes (its #error at N 8192)
// judges nothing there: the known-good configuration judges the tuning steps and the
// checked calls of that size instead, each call's Result names the judge and the
// reference's failure, one warning names it (it is not compiled again), and every call
// returns its outputs, right. At the spec's own size the reference judges still.
func TestAReferenceThatDoesNotCompileAtASizeFallsBackToTheKnownGoodConfiguration(t *testing.T) {
	ref := strings.Replace(oddRef, "__kernel", "#if grid_size_x > 64\n#error planted: too large for the reference\n#endif\n__kernel", 1)
	s := oddAxpyJudged(t, oddKernel, "{name: axpyn_ref, source: ref.cl, block: [64]}", map[string]string{"ref.cl": ref})
	logger, logged := warnings()
	tu := newTuner(t, s, dynamic.Options{Budget: 6, Seed: 1, CheckEvery: 1, Logger: logger})
	rng := rand.New(rand.NewPCG(11, 1))
	ctx := context.Background()
	const good = "the known-good configuration block_size_x=32, tile_size_x=1"
	for call := range 8 {
		data, want := countDataN(rng, 8192, 8192) // an even count: every configuration is right
		res, err := tu.RunSized(ctx, sizes(8192), data)
		if err != nil {
			t.Fatalf("call %d at N 8192: %v", call, err)
		}
		checkY(t, call, res, want)
		if (!res.Tuning && !res.Checked) || res.Judge != good || !strings.Contains(res.ReferenceFailure, "the reference kernel axpyn_ref does not compile") ||
			!strings.Contains(res.ReferenceFailure, "planted: too large for the reference") || len(res.CheckErrors) != 0 {
			t.Errorf("call %d at N 8192: tuning %v, checked %v, judged by %q, reference failure %q, %d check errors; want each call judged by %s, saying why the reference did not",
				call, res.Tuning, res.Checked, res.Judge, res.ReferenceFailure, len(res.CheckErrors), good)
		}
	}
	if tu.TuningSized(sizes(8192)) {
		t.Error("still tuning at N 8192 after 8 calls with a budget of 6")
	}
	if n := strings.Count(logged.String(), "the spec's reference failed on a call's data"); n != 1 || !strings.Contains(logged.String(), "planted: too large for the reference") {
		t.Errorf("%d warnings of the reference's failure, log:\n%s\nwant one, naming the compiler's message", n, logged)
	}
	data, want := countData(rng, 4096)
	res, err := tu.Run(ctx, data)
	if err != nil {
		t.Fatal(err)
	}
	checkY(t, 0, res, want)
	if res.Judge != "the spec's reference kernel axpyn_ref" || res.ReferenceFailure != "" {
		t.Errorf("at the spec's own N: judged by %q (reference failure %q); want the reference kernel", res.Judge, res.ReferenceFailure)
	}
}

// A C reference that fails at run time on a call's data (it writes past the end of y
// on a count that is not a multiple of 128) judges nothing on that call: the known-good
// configuration judges it, right on these data, and finds the tiles of 2 wrong at the
// count 4000, as a check without a reference does; the call returns the known-good
// configuration's right y, names its judge and the reference's failure, and a warning
// names the failure. The next call, on a count the reference takes, is judged by it.
func TestAHostReferenceThatFailsOnACallsDataFallsBackToTheKnownGoodConfiguration(t *testing.T) {
	ref := strings.Replace(hostRef, "y[i] = alpha * x[i] + y[i];", "y[i] = alpha * x[i] + y[i];\n    if (n % 128) y[LEN] = 0; /* planted: past the end */", 1)
	s := oddAxpyJudged(t, countKernel, "{name: axpyn_ref, source: ref.c, language: c, defines: {LEN: N}}", map[string]string{"ref.c": ref})
	logger, logged := warnings()
	tu := newTuner(t, s, dynamic.Options{Budget: 6, Seed: 1, CheckEvery: 1, Logger: logger})
	rng := rand.New(rand.NewPCG(11, 1))
	tuneCount(t, tu, rng)
	const host, good = "the spec's C reference axpyn_ref", "the known-good configuration block_size_x=32, tile_size_x=1"
	runCalls(t, tu, rng, []checkedCall{
		{n: 4096, checked: true, config: "128 2", judge: host},
		{n: 4000, checked: true, wrong: []string{"128 2", "64 2", "32 2"}, config: "32 1", judge: good, failure: "past the end"},
		{n: 4096, checked: true, config: "128 1", judge: host},
	}, func(call int, _ dynamic.Result, ce *dynamic.CheckError) {
		if !strings.Contains(ce.Error(), "against "+good) {
			t.Errorf("call %d: check error %q; want it against %s", call, ce.Error(), good)
		}
	})
	if !strings.Contains(logged.String(), "the spec's reference failed on a call's data") || !strings.Contains(logged.String(), "past the end") {
		t.Errorf("log:\n%s\nwant a warning that the reference failed, writing past the end of y", logged)
	}
}

// Expected outputs from a .npy file never judge a call: they are y for the spec's own
// inputs (zeros: alpha*0 + 0), not for the call's data, against which every
// configuration would be found wrong. Such a spec is judged by the known-good
// configuration, on tuning steps and checked calls alike, as one without a reference:
// every configuration agrees with it (the space's first, 32 1, as the spec names no
// reference configuration beside its file), and the tuning ends on the best by rank.
func TestExpectedOutputsFromFilesDoNotJudgeACall(t *testing.T) {
	dir := t.TempDir()
	npy := filepath.Join(dir, "y.npy")
	if err := spec.WriteNPYFile(npy, &spec.Array{Type: "float32", Shape: []int{axpyN}, Data: make([]byte, 4*axpyN)}); err != nil {
		t.Fatal(err)
	}
	s := oddAxpyJudged(t, oddKernel, "", nil)
	text := strings.ReplaceAll(countSpec, "fill: random", "fill: zeros")
	text = strings.Replace(text, "    config: {block_size_x: 32, tile_size_x: 1}\n", "    npy: {y: "+npy+"}\n", 1)
	if err := os.WriteFile(s.File, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := spec.Load(s.File)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Verification.NPY) != 1 {
		t.Fatalf("the spec's verification has %d npy files; want y's", len(s.Verification.NPY))
	}
	tu := newTuner(t, s, dynamic.Options{Budget: 6, Seed: 1, CheckEvery: 1})
	rng := rand.New(rand.NewPCG(11, 1))
	const good = "the known-good configuration block_size_x=32, tile_size_x=1"
	for call := range 7 {
		data, _ := countData(rng, 4096)
		res, err := tu.Run(context.Background(), data)
		if err != nil {
			t.Fatalf("call %d: %v", call, err)
		}
		if res.Judge != good || res.Failure != "" || res.Reference || (call == 6 && !res.Checked) {
			t.Errorf("call %d: judged by %q, failure %q, reference %v, checked %v; want agreement with %s", call, res.Judge, res.Failure, res.Reference, res.Checked, good)
		}
	}
	if got := fmtValues(tu.Searches()[0].Running); got != "128 2" {
		t.Errorf("tuning ended on %s; want 128 2, the best by rank", got)
	}
}
