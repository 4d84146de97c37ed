package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// scripts/slurm-bench.sh --local runs the array job's script once per task, with
// SLURM_ARRAY_TASK_ID set as Slurm sets it, and then the merge job's: the merged JSON is
// the unsharded run's but for times and the figures it lists; a merge without a shard's
// output names it; the outputs this script sets are refused among the benchmark's
// arguments; without --local or --submit it only writes the two job scripts.
func TestSlurmScriptRunsTheShardsAndTheMerge(t *testing.T) {
	if testing.Short() {
		t.Skip("builds ktune and runs the script")
	}
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go to build ktune with")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "ktune")
	if out, err := exec.Command(goCmd, "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v: %s", err, out)
	}
	args := []string{pnpoly, convolution, "--strategies", "random,firstils", "--budgets", "10,30", "--repeats", "3", "--seed", "5", "--workers", "1"}
	script := func(opts ...string) (string, int) {
		cmd := exec.Command(bash, append(append([]string{"../../scripts/slurm-bench.sh", "--ktune", bin}, opts...), append([]string{"--"}, args...)...)...)
		out, err := cmd.CombinedOutput()
		code := 0
		if e, ok := err.(*exec.ExitError); ok {
			code = e.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return string(out), code
	}

	out := filepath.Join(dir, "run")
	if log, code := script("-n", "3", "-o", out, "--local"); code != 0 {
		t.Fatalf("--local: exit %d: %s", code, log)
	}
	merged, err := os.ReadFile(filepath.Join(out, "bench.json"))
	if err != nil {
		t.Fatal(err)
	}
	got := untimed(t, string(merged)).(map[string]any)
	if len(got["figures"].([]any)) == 0 {
		t.Errorf("the merge drew no figure: %s", merged)
	}
	delete(got, "figures")
	whole := untimed(t, benchJSON(t, append(append([]string{"bench"}, args...), "--json")...))
	if !reflect.DeepEqual(got, whole) {
		t.Errorf("merged by the script:\n%s\nunsharded: %v", merged, whole)
	}
	for _, f := range []string{"bench.txt", "bench.csv", "part-1-of-3.json", "part-3-of-3.json"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Errorf("--local wrote no %s: %v", f, err)
		}
	}

	// a shard whose output is missing is named, with how to run it again
	if err := os.Remove(filepath.Join(out, "part-2-of-3.json")); err != nil {
		t.Fatal(err)
	}
	log, err := exec.Command(bash, filepath.Join(out, "merge.sbatch")).CombinedOutput()
	if err == nil || !strings.Contains(string(log), "no output of shard(s) 2 of 3") || !strings.Contains(string(log), "sbatch --array=2 ") {
		t.Errorf("merge without shard 2: %v: %s", err, log)
	}

	if log, code := script("-o", filepath.Join(dir, "w"), "--", "--json"); code != 2 || !strings.Contains(log, "--json: this script sets the outputs") {
		t.Errorf("--json among the benchmark's arguments: exit %d: %s", code, log)
	}
	if log, code := script("-n", "5", "-o", filepath.Join(dir, "w")); code != 0 || !strings.Contains(log, "sbatch --parsable") {
		t.Errorf("write: exit %d: %s", code, log)
	}
	job, err := os.ReadFile(filepath.Join(dir, "w", "shard.sbatch"))
	if err != nil || !strings.Contains(string(job), "#SBATCH --array=1-5\n") || !strings.Contains(string(job), `--shard "$k/$n"`) {
		t.Errorf("shard.sbatch: %v: %s", err, job)
	}
}

// scripts/verify-slurm.sh submits the benchmark through scripts/slurm-bench.sh --submit to
// a real Slurm, an array job of three shards and the merge after it, and waits for them:
// the merged JSON is the one-process run's but for times; with a task that fails, the
// merge is cancelled and the check fails naming the task. It runs where sbatch is and sinfo
// answers, or, with KTUNE_SLURM_THROWAWAY=1 (as root, slurm-wlm and munge installed), on a
// one-node cluster the script starts for the test and stops after it; elsewhere it skips.
func TestSlurmScriptSubmitsToARealCluster(t *testing.T) {
	if testing.Short() {
		t.Skip("builds ktune and submits jobs to Slurm")
	}
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go to build ktune with")
	}
	if _, err := exec.LookPath("sbatch"); err != nil {
		t.Skip("no sbatch: not a Slurm node")
	}
	if _, err := exec.LookPath("jq"); err != nil {
		t.Skip("no jq, which scripts/verify-slurm.sh compares with")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	answers := exec.CommandContext(ctx, "sinfo", "-h").Run() == nil
	cancel()
	if !answers && os.Getenv("KTUNE_SLURM_THROWAWAY") == "" {
		t.Skip("sinfo does not answer: no Slurm cluster here (KTUNE_SLURM_THROWAWAY=1 starts a throwaway one, as root)")
	}

	dir := t.TempDir()
	bin := filepath.Join(dir, "ktune")
	if out, err := exec.Command(goCmd, "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v: %s", err, out)
	}
	args := []string{pnpoly, convolution, "--strategies", "random,firstils", "--budgets", "25,50", "--repeats", "5", "--seed", "7"}
	verify := func(ktune, out string) (string, int) {
		cmd := exec.Command(bash, append([]string{"../../scripts/verify-slurm.sh", "-n", "3", "-o", out, "--ktune", ktune, "--"}, args...)...)
		log, err := cmd.CombinedOutput()
		code := 0
		if e, ok := err.(*exec.ExitError); ok {
			code = e.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return string(log), code
	}
	out := filepath.Join(dir, "verify")
	if log, code := verify(bin, out); code != 0 || !strings.Contains(log, "verify-slurm: OK: the merge of 3 Slurm array tasks") {
		t.Fatalf("verify-slurm.sh: exit %d: %s", code, log)
	}

	// the script's own comparison aside: what Slurm's jobs wrote, read here
	merged, err := os.ReadFile(filepath.Join(out, "run", "bench.json"))
	if err != nil {
		t.Fatal(err)
	}
	got := untimed(t, string(merged)).(map[string]any)
	delete(got, "figures")
	whole := untimed(t, benchJSON(t, append(append([]string{"bench"}, args...), "--json")...))
	if !reflect.DeepEqual(got, whole) {
		t.Errorf("merged under Slurm:\n%s\nunsharded: %v", merged, whole)
	}
	for k := 1; k <= 3; k++ {
		shardLog, err := os.ReadFile(filepath.Join(out, "run", "logs", fmt.Sprintf("shard-%d.out", k)))
		if err != nil || !strings.Contains(string(shardLog), fmt.Sprintf("shard %d/3: ", k)) {
			t.Errorf("array task %d's log (written by Slurm): %v: %s", k, err, shardLog)
		}
	}

	// a ktune whose array task 2 fails: the merge is cancelled and the task named
	failing := filepath.Join(dir, "ktune-task2-fails")
	wrapper := "#!/bin/sh\nif [ \"${SLURM_ARRAY_TASK_ID:-}\" = 2 ]; then echo 'task 2 fails on purpose' >&2; exit 1; fi\nexec " + bin + " \"$@\"\n"
	if err := os.WriteFile(failing, []byte(wrapper), 0o755); err != nil {
		t.Fatal(err)
	}
	log, code := verify(failing, filepath.Join(dir, "failing"))
	if code != 1 || !strings.Contains(log, "array task(s) 2 did not complete, so the merge did not run") {
		t.Errorf("verify-slurm.sh with task 2 failing: exit %d: %s", code, log)
	}
}
