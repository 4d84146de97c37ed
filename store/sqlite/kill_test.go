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
	"github.com/ktune/ktune/store/storetest"
)

// killChildEnv holds the database path when the test binary runs as the child that kills
// itself.
const killChildEnv = "KTUNE_STORE_KILL_CHILD_DB"

// killAfter is how many committed evaluations the child reports before killing itself,
// unless killAfterEnv says another number.
const (
	killAfter    = 300
	killAfterEnv = "KTUNE_STORE_KILL_AFTER"
)

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
		if every, err := time.ParseDuration(os.Getenv(foldChildEnv)); err == nil {
			sqlite.SetFoldEvery(every)
		}
		after, err := strconv.Atoi(os.Getenv(killAfterEnv))
		if err != nil {
			after = killAfter
		}
		addUntilKilled(path, after)
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
		storetest.SameEvaluation(t, k, es[k], killEvaluation(k))
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
// committed, and the main goroutine kills the process once after are reported, while the
// writer is busy with the next.
func addUntilKilled(path string, after int) {
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
		if n >= after {
			syscall.Kill(os.Getpid(), syscall.SIGKILL)
			select {} // the signal is on its way
		}
	}
}

// killedChild runs addUntilKilled in a child process on the database at path, killed
// after it has reported after evaluations committed, and returns the run it wrote and how
// many it reported.
func killedChild(t *testing.T, path string, after int) (runID int64, committed int) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestEvaluationsSurviveKill$", "-test.count=1")
	cmd.Env = append(os.Environ(), killChildEnv+"="+path, killAfterEnv+"="+strconv.Itoa(after))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("child ended with %v, want SIGKILL\nstderr:\n%s", err, stderr.String())
	}
	sc := bufio.NewScanner(&stdout)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "run "); ok {
			runID, _ = strconv.ParseInt(v, 10, 64)
		}
		if v, ok := strings.CutPrefix(sc.Text(), "committed "); ok {
			committed, _ = strconv.Atoi(v)
		}
	}
	if runID == 0 || committed < after {
		t.Fatalf("child reported run %d and %d committed evaluations; want %d", runID, committed, after)
	}
	return runID, committed
}

// The write-ahead log of a killed writer, deleted or moved away before the database is
// opened again, is said, naming it, and the database is not opened, so that the commits
// it holds are kept once it is put back; deleting the -shm file too opens the database
// without them (QA: a killed run's -wal deleted, 'ktune runs' said there were no runs and
// 'ktune tune' started the run over; the log put back afterwards was no longer read).
func TestAWriteAheadLogDeletedWithCommitsIsSaidAndCanBePutBack(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a child process")
	}
	ctx := context.Background()
	// 20 evaluations, far from the 1000 pages of log at which SQLite copies the log into
	// the file by itself, and a store that does not fold them: they are in the log alone
	t.Setenv(foldChildEnv, "1000h")
	path := filepath.Join(t.TempDir(), "killed.db")
	runID, committed := killedChild(t, path, 20)
	log, err := os.ReadFile(path + "-wal")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(path + "-wal"); err != nil {
		t.Fatal(err)
	}
	for range 2 { // refused again: the first refusal changed nothing
		_, err := sqlite.Open(ctx, path)
		if err == nil {
			t.Fatal("the database opened without the write-ahead log that held its last commits")
		}
		for _, want := range []string{path + "-wal is missing", "put the -wal file back", "delete " + path + "-shm"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("%v\nwant it to say %q", err, want)
			}
		}
	}
	if err := os.WriteFile(path+"-wal", log, 0o644); err != nil {
		t.Fatal(err)
	}
	st, err := sqlite.Open(ctx, path)
	if err != nil {
		t.Fatalf("with the log put back: %v", err)
	}
	es, err := st.Evaluations(ctx, runID)
	st.Close()
	if err != nil || len(es) < committed {
		t.Fatalf("with the log put back: %d evaluations (%v), the child reported %d committed", len(es), err, committed)
	}

	// without its log, knowingly
	path = filepath.Join(t.TempDir(), "killed.db")
	killedChild(t, path, 20)
	for _, side := range []string{path + "-wal", path + "-shm"} {
		if err := os.Remove(side); err != nil {
			t.Fatal(err)
		}
	}
	st, err = sqlite.Open(ctx, path)
	if err != nil {
		t.Fatalf("with the log and its index deleted: %v", err)
	}
	st.Close()
}

// The evaluations of a killed writer are in the database file itself, not in its
// write-ahead log alone, once the store has had time to fold the log into the file: a
// database copied without its -wal, or whose -wal and -shm were deleted, keeps them (QA:
// a killed run's 124 evaluations were all in the -wal, the 4 KB database file held not
// even its tables).
func TestEvaluationsOfAKilledWriterAreInTheDatabaseFile(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a child process")
	}
	t.Setenv(foldChildEnv, "0s") // the child folds at every evaluation
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "killed.db")
	runID, committed := killedChild(t, path, 20)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	copied := filepath.Join(t.TempDir(), "copied.db")
	if err := os.WriteFile(copied, data, 0o644); err != nil {
		t.Fatal(err)
	}
	st, err := sqlite.Open(ctx, copied)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	es, err := st.Evaluations(ctx, runID)
	if err != nil || len(es) < committed {
		t.Fatalf("the database file without its log: %d evaluations (%v), the child reported %d committed", len(es), err, committed)
	}
}

// foldChildEnv sets how often the child of TestEvaluationsSurviveKill folds the log into
// the file (a time.Duration).
const foldChildEnv = "KTUNE_STORE_KILL_CHILD_FOLD"
