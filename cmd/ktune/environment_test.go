package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ktune/ktune/result"
)

// A compile cache that fills up mid-run stops the tuning with an error naming the folder,
// stores nothing for the configuration it spoiled, and leaves the run to be resumed: the
// configuration is measured once there is room. Its "compile error" was stored, counted
// against the budget, kept on resuming and exported as Kernel Tuner's CompileFailedConfig.
func TestTuneStopsOnAFullCompileCacheAndTheResumedRunMeasuresIt(t *testing.T) {
	needBackend(t, "c")
	gcc, err := exec.LookPath("gcc")
	if err != nil {
		t.Skip(err)
	}
	dir := t.TempDir()
	full := filepath.Join(dir, "full") // while it exists, factor=3 finds the disk full
	cc := filepath.Join(dir, "cc")
	script := "#!/bin/sh\nif [ -e " + full + " ]; then for a in \"$@\"; do case \"$a\" in -Dfactor=3)\n" +
		"echo '/usr/bin/ld: final link failed: No space left on device' >&2\necho 'collect2: error: ld returned 1 exit status' >&2\nexit 1;;\n" +
		"esac; done; fi\nexec " + gcc + " \"$@\"\n"
	if err := os.WriteFile(cc, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("CC", cc)
	cache := filepath.Join(dir, "cache")
	t.Setenv("KTUNE_CACHE", cache)
	spec := `kernel: {name: scale, language: c, code: "void scale(float *x, int n) { for (int i = 0; i < n; i++) x[i] = x[i] * factor; }"}
constants: {N: 1000}
parameters: [{name: factor, values: [1, 2, 3, 4]}]
problem_size: [N]
arguments:
  - {name: x, type: float32, length: N, fill: random, output: true}
  - {name: n, type: int32, value: N}
`
	specPath := filepath.Join(dir, "scale.yaml")
	if err := os.WriteFile(specPath, []byte(spec), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(full, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(dir, "ktune.db")
	_, errOut, code := ktune(t, "tune", specPath, "--strategy", "bruteforce", "--db", db)
	for _, want := range []string{"factor=3: $KTUNE_CACHE (" + filepath.Join(cache, "hostc") + "): no space left on device",
		"final link failed", "nothing was stored for it, and run 1 is left interrupted"} {
		if code != 1 || !strings.Contains(errOut, want) {
			t.Fatalf("with the cache full: exit %d, want 1 and %q in:\n%s", code, want, errOut)
		}
	}
	got := statusesByConfig(t, db, 1)
	if len(got) != 2 || got["1"] != result.OK || got["2"] != result.OK {
		t.Fatalf("stored %v, want factor 1 and 2 measured and nothing for 3", got)
	}

	os.Remove(full)
	_, errOut, code = ktune(t, "tune", specPath, "--strategy", "bruteforce", "--db", db)
	if code != 0 || !strings.Contains(errOut, "resuming run 1") {
		t.Fatalf("with room again: exit %d, want run 1 resumed:\n%s", code, errOut)
	}
	got = statusesByConfig(t, db, 1)
	for _, k := range []string{"1", "2", "3", "4"} {
		if got[k] != result.OK {
			t.Errorf("factor=%s: %v after resuming, want ok", k, got[k])
		}
	}
}
