//go:build unix

package sqlite_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ktune/ktune/result"
	"github.com/ktune/ktune/space"
	"github.com/ktune/ktune/store"
	"github.com/ktune/ktune/store/sqlite"
)

// killChildEnv holds the database path when the test binary runs as the child that kills
// itself.
const killChildEnv = "KTUNE_STORE_KILL_CHILD_DB"

// killAfter is how many committed evaluations the child reports before killing itself.
const killAfter = 300

var killParams = []space.Param{
	{Name: "block_size_x", Values: []space.Value{i(16), i(32), i(64), i(128)}},
	{Name: "tile", Values: []space.Value{f(0.5), f(1), f(2)}},
}

// killEvaluation is the k-th evaluation the child adds; the parent rebuilds it to check
// what it finds.
func killEvaluation(k int) result.Evaluation {
	return result.Evaluation{
		Config:    []space.Value{i(int64(16 << (k % 4))), f(0.5 * float64(int64(1)<<(k%3)))},
		Objective: float64(k) + 0.5,
		Samples:   []float64{float64(k), float64(k) + 1},
		Metrics:   map[string]float64{"k": float64(k)},
		Time:      base.Add(time.Duration(k) * time.Millisecond),
	}
}

// TestEvaluationsSurviveKill runs a child process that adds evaluations one by one,
// printing each count once AddEvaluation has returned, and SIGKILLs itself while still
// writing. Every evaluation it reported must be in the database.
func TestEvaluationsSurviveKill(t *testing.T) {
	if path := os.Getenv(killChildEnv); path != "" {
		addUntilKilled(path)
		return
	}
	if testing.Short() {
		t.Skip("starts a child process")
	}
	path := filepath.Join(t.TempDir(), "killed.db")
	cmd := exec.Command(os.Args[0], "-test.run=^TestEvaluationsSurviveKill$", "-test.count=1")
	cmd.Env = append(os.Environ(), killChildEnv+"="+path)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("child ended with %v, want SIGKILL\nstdout:\n%s\nstderr:\n%s", err, stdout.String(), stderr.String())
	}
	runID, committed := int64(0), 0
	sc := bufio.NewScanner(&stdout)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "run "); ok {
			runID, _ = strconv.ParseInt(v, 10, 64)
		}
		if v, ok := strings.CutPrefix(sc.Text(), "committed "); ok {
			committed, _ = strconv.Atoi(v)
		}
	}
	if runID == 0 || committed < killAfter {
		t.Fatalf("child reported run %d and %d committed evaluations; want %d\n%s", runID, committed, killAfter, stdout.String())
	}

	st, err := sqlite.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	es, err := st.Evaluations(context.Background(), runID)
	if err != nil {
		t.Fatal(err)
	}
	// The child may have committed one more than it had time to report.
	if len(es) < committed || len(es) > committed+1 {
		t.Fatalf("found %d evaluations after the kill, the child reported %d committed", len(es), committed)
	}
	for k := range es {
		sameEvaluation(t, k, es[k], killEvaluation(k))
	}
	run, err := st.Run(context.Background(), runID)
	if err != nil || run.Status != store.StatusRunning {
		t.Errorf("killed run: status %q, %v; want it still marked running", run.Status, err)
	}
	var check string
	if err := rawDB(t, path).QueryRow("PRAGMA integrity_check").Scan(&check); err != nil || check != "ok" {
		t.Errorf("integrity_check = %q, %v", check, err)
	}
	t.Logf("child reported %d committed evaluations; the database holds %d", committed, len(es))
}

// addUntilKilled is the child: a writer goroutine adds evaluations and reports each one
// committed, and the main goroutine kills the process once killAfter are reported, while
// the writer is busy with the next.
func addUntilKilled(path string) {
	fail := func(err error) {
		fmt.Fprintln(os.Stderr, "child:", err)
		os.Exit(3)
	}
	ctx := context.Background()
	st, err := sqlite.Open(ctx, path)
	if err != nil {
		fail(err)
	}
	sp, err := st.PutSpace(ctx, store.Space{Kernel: "k", Params: killParams})
	if err != nil {
		fail(err)
	}
	dev, err := st.PutDevice(ctx, store.Device{Name: "cpu", Backend: "host"})
	if err != nil {
		fail(err)
	}
	runID, err := st.CreateRun(ctx, store.RunInfo{SpaceID: sp, DeviceID: dev, Kind: store.KindTuning, Strategy: "brute_force"})
	if err != nil {
		fail(err)
	}
	fmt.Fprintf(os.Stdout, "run %d\n", runID)
	reported := make(chan int, 1024)
	go func() {
		for k := 0; ; k++ {
			if err := st.AddEvaluation(ctx, runID, killEvaluation(k)); err != nil {
				fail(err)
			}
			// os.Stdout is unbuffered: the line is in the pipe before the count is sent.
			fmt.Fprintf(os.Stdout, "committed %d\n", k+1)
			reported <- k + 1
		}
	}()
	for n := range reported {
		if n >= killAfter {
			syscall.Kill(os.Getpid(), syscall.SIGKILL)
			select {} // the signal is on its way
		}
	}
}
