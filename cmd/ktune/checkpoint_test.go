package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ktune/ktune/benchmark"
	"github.com/ktune/ktune/simulator"
)

// A cell that finishes within the interval of the last write reaches the checkpoint when
// the interval has passed, though no other cell finishes after it: before, it waited for
// the next cell, so a long or stuck cell kept the finished ones out of the file, and a
// kill lost them.
func TestCheckpointWritesAFinishedCellWithinItsInterval(t *testing.T) {
	spaces, err := loadSpaces([]string{pnpoly}, simulator.Recorded, simulator.Deterministic, nil, os.Stderr, "bench")
	if err != nil {
		t.Fatal(err)
	}
	cells, err := benchmark.Run(context.Background(), benchmark.Config{Strategies: []benchmark.Strategy{{Name: "random"}},
		Spaces: spaces, Budgets: []int{10, 20}, Repeats: 2, Seed: 1})
	if err != nil || len(cells) != 2 {
		t.Fatalf("%d cells, %v", len(cells), err)
	}
	path := filepath.Join(t.TempDir(), "ckpt.json")
	held := func() int {
		t.Helper()
		var f struct {
			Cells []benchmark.Cell `json:"cells"`
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(data, &f); err != nil {
			t.Fatal(err)
		}
		return len(f.Cells)
	}
	state := func(n int) any {
		return struct {
			Cells []benchmark.Cell `json:"cells"`
		}{cells[:n]}
	}
	c := newCheckpoint(path, "bench", os.Stderr)
	c.every = 200 * time.Millisecond
	c.update(state(1)) // the first cell: written at once
	if n := held(); n != 1 {
		t.Fatalf("the checkpoint holds %d cells after the first, want 1", n)
	}
	start := time.Now()
	c.update(state(2)) // within the interval: held back, then written by the timer
	for held() != 2 {
		if time.Since(start) > 5*time.Second {
			t.Fatalf("the second cell is not in the checkpoint %v after it finished (interval %v)", time.Since(start).Round(time.Millisecond), c.every)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := c.flush(); err != nil || held() != 2 {
		t.Fatalf("flush: %v, %d cells", err, held())
	}
}

// A smaller benchmark resumed from a larger one's checkpoint into the same file keeps the
// larger one's other cells in it, so that the larger one resumes from the file with all
// of them (QA: the checkpoint was left with the one cell of the smaller run, the other 7
// were gone). A cell that cannot stand beside the smaller run's is never dropped silently:
// refused when the checkpoint is the --resume file, and said when it is another file.
func TestCheckpointKeepsTheResumedCellsThisRunDoesNotRun(t *testing.T) {
	dir := t.TempDir()
	ckpt := filepath.Join(dir, "int.ckpt")
	large := []string{"bench", pnpoly, convolution, "--strategies", "random,adj=firstmls:neighbourhood=adjacent", "--budgets", "20,40", "--repeats", "3"}
	first, errOut, code := ktune(t, append(large, "--checkpoint", ckpt)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	cellsIn := func() int {
		t.Helper()
		data, err := os.ReadFile(ckpt)
		var f struct {
			Cells []json.RawMessage `json:"cells"`
		}
		if err != nil || json.Unmarshal(data, &f) != nil {
			t.Fatalf("%s: %v\n%s", ckpt, err, data)
		}
		return len(f.Cells)
	}
	if n := cellsIn(); n != 8 {
		t.Fatalf("the large benchmark's checkpoint has %d cells, want 8", n)
	}
	_, errOut, code = ktune(t, "bench", pnpoly, "--strategies", "random", "--budgets", "20", "--repeats", "3", "--checkpoint", ckpt, "--resume", ckpt)
	if code != 0 || !strings.Contains(errOut, "keeps the 7 cells of "+ckpt) {
		t.Fatalf("the small run: exit %d: %s", code, errOut)
	}
	if n := cellsIn(); n != 8 {
		t.Errorf("after the small run the checkpoint has %d cells, want 8", n)
	}
	again, errOut, code := ktune(t, append(large, "--checkpoint", ckpt, "--resume", ckpt)...)
	if code != 0 || !strings.Contains(errOut, "8 cells taken from") {
		t.Fatalf("the large run resumed: exit %d: %s", code, errOut)
	}
	tables := func(s string) string { before, _, _ := strings.Cut(s, "cost:"); return before }
	if tables(again) != tables(first) {
		t.Errorf("resumed:\n%s\nfirst:\n%s", again, first)
	}

	// adj runs random here, firstmls in the file: its 4 cells cannot be kept beside
	conflict := []string{"bench", pnpoly, "--strategies", "random,adj=random", "--budgets", "20", "--repeats", "3", "--resume", ckpt}
	before, _ := os.ReadFile(ckpt)
	if _, errOut, code := ktune(t, append(conflict, "--checkpoint", ckpt)...); code == 0 || !strings.Contains(errOut, "is the --resume file, and 4 of its cells cannot be kept") ||
		!strings.Contains(errOut, "adj runs random here, firstmls there") {
		t.Errorf("a checkpoint that would drop cells of the --resume file: exit %d: %s", code, errOut)
	}
	if after, _ := os.ReadFile(ckpt); !bytes.Equal(before, after) {
		t.Error("the refused run changed the --resume file")
	}
	other := filepath.Join(dir, "other.ckpt")
	if _, errOut, code := ktune(t, append(conflict, "--checkpoint", other)...); code != 0 || !strings.Contains(errOut, "leaves out 4 cells of "+ckpt) {
		t.Errorf("another checkpoint file: exit %d: %s", code, errOut)
	}
}

// A --checkpoint file that holds an earlier run's finished cells is not written over by a
// run that does not resume from it: bench and hypertune refuse before they run a cell,
// saying to add --resume or give another file, and leave it as it was; with --resume it
// goes on from them (QA: a finished 126-cell benchmark's checkpoint, given again without
// --resume, held the new run's first cell a moment later, the 126 gone).
func TestACheckpointHoldingCellsIsNotWrittenOverWithoutResume(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{
		{"bench", pnpoly, "--strategies", "random,firstmls", "--budgets", "20", "--repeats", "3"},
		{"hypertune", pnpoly, "--strategy", "firstmls", "--grid", "restart=true,false", "--budgets", "5", "--repeats", "2",
			"--out", filepath.Join(dir, "d.json")},
	} {
		t.Run(args[0], func(t *testing.T) {
			ckpt := filepath.Join(dir, args[0]+".ckpt")
			if _, errOut, code := ktune(t, append(args, "--checkpoint", ckpt)...); code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			before, err := os.ReadFile(ckpt)
			if err != nil {
				t.Fatal(err)
			}
			out, errOut, code := ktune(t, append(args, "--checkpoint", ckpt)...)
			if code == 0 || out != "" || !strings.Contains(errOut, "--checkpoint "+ckpt+" holds 2 finished cells") ||
				!strings.Contains(errOut, "add --resume "+ckpt) {
				t.Errorf("again without --resume: exit %d: %s%s", code, out, errOut)
			}
			if after, _ := os.ReadFile(ckpt); !bytes.Equal(before, after) {
				t.Error("the refused run changed the checkpoint")
			}
			if _, errOut, code := ktune(t, append(args, "--checkpoint", ckpt, "--resume", ckpt)...); code != 0 || !strings.Contains(errOut, "2 cells taken from") {
				t.Errorf("again with --resume: exit %d: %s", code, errOut)
			}
		})
	}
}

// Two 'ktune bench' (or hypertune) started at the same moment with the same --checkpoint
// file, which did not exist yet, both ran every cell and wrote over each other's
// checkpoint. The second is refused at once, naming the process that writes the file; the
// first ends as before, leaving no lock file; and a lock file left by a killed process
// blocks no one, and is gone after the next run.
func TestACheckpointThatAnotherProcessWritesIsRefused(t *testing.T) {
	conv, _ := filepath.Abs(convolution)
	dir := t.TempDir()
	for _, tt := range []struct {
		long, short []string
	}{
		{[]string{"bench", pnpoly, conv, "--strategies", "random,firstmls", "--budgets", "25,1600", "--repeats", "2000", "--workers", "1"},
			[]string{"bench", pnpoly, "--strategies", "random", "--budgets", "20", "--repeats", "3"}},
		{[]string{"hypertune", pnpoly, "--strategy", "firstmls", "--grid", "restart=true,false", "--budgets", "1600", "--repeats", "2000",
			"--workers", "1", "--out", filepath.Join(dir, "long.json")},
			[]string{"hypertune", pnpoly, "--strategy", "firstmls", "--grid", "restart=true,false", "--budgets", "5", "--repeats", "2",
				"--out", filepath.Join(dir, "short.json")}},
	} {
		t.Run(tt.long[0], func(t *testing.T) {
			ckpt := filepath.Join(dir, tt.long[0]+".ckpt")
			lockFile := ckpt + ".lock"
			// started, and holding the checkpoint: its process id is in the lock file
			startHolder := func() *exec.Cmd {
				cmd := exec.Command(os.Args[0], append(tt.long, "--checkpoint", ckpt)...)
				cmd.Env = append(os.Environ(), "KTUNE_TEST_AS_MAIN=1")
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() {
					if cmd.ProcessState == nil {
						cmd.Process.Kill()
						cmd.Wait()
					}
				})
				want := fmt.Sprintf("%d\n", cmd.Process.Pid)
				for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(5 * time.Millisecond) {
					if data, _ := os.ReadFile(lockFile); string(data) == want {
						return cmd
					}
					if time.Now().After(deadline) {
						t.Fatal("the first process did not lock the checkpoint within 60 s")
					}
				}
			}
			holder := startHolder()
			out, errOut, code := ktune(t, append(tt.short, "--checkpoint", ckpt)...)
			want := fmt.Sprintf("--checkpoint %s: another ktune process is writing it (process %d), holding %s: wait for it to end", ckpt, holder.Process.Pid, lockFile)
			if code != 1 || out != "" || !strings.Contains(errOut, want) {
				t.Errorf("a second process: exit %d: %s%s; want exit 1 and %q", code, out, errOut, want)
			}
			holder.Process.Signal(syscall.SIGTERM)
			if code := waitExit(t, holder); code != 143 {
				t.Fatalf("the first process exited %d, want 143", code)
			}
			if _, err := os.Stat(lockFile); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("the first process left its lock file (%v)", err)
			}
			// killed, the holder leaves its lock file, which holds nothing
			holder = startHolder()
			holder.Process.Kill()
			waitExit(t, holder)
			os.Remove(ckpt) // the killed run's cells: not to be resumed here
			if _, errOut, code := ktune(t, append(tt.short, "--checkpoint", ckpt)...); code != 0 {
				t.Errorf("after a killed process: exit %d: %s", code, errOut)
			}
			if _, err := os.Stat(lockFile); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("the run after a killed process left the lock file (%v)", err)
			}
		})
	}
}

// A bench checkpoint's state costs nothing per cell when a cell finishes, whatever the
// cells so far: they are joined with the --resume file's kept ones only when the file is
// written. Copying them at each cell made a benchmark of n cells copy n²/2.
func TestBenchCheckpointStateCopiesNoCellUntilWritten(t *testing.T) {
	cells := make([]benchmark.Cell, 10000, 10001)
	for i := range cells {
		cells[i] = benchmark.Cell{Strategy: "random", Space: "s", Budget: i + 1, Fractions: []float64{1}}
	}
	kept := benchmark.Kept{Info: benchmark.RunInfo{Mode: "recorded"}, Cells: []benchmark.Cell{{Strategy: "firstils", Space: "s", Budget: 1}}}
	var state any
	if allocs := testing.AllocsPerRun(10, func() { state = benchState(kept, 0.05, 200, cells) }); allocs > 1 {
		t.Errorf("making the state of %d cells allocates %v times, want at most once", len(cells), allocs)
	}
	data, err := json.Marshal(state)
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Mode  string           `json:"mode"`
		Alpha float64          `json:"alpha"`
		Split int              `json:"split"`
		Cells []benchmark.Cell `json:"cells"`
	}
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatal(err)
	}
	if got.Mode != "recorded" || got.Alpha != 0.05 || got.Split != 200 || len(got.Cells) != len(cells)+1 ||
		got.Cells[9999].Budget != 10000 || got.Cells[10000].Strategy != "firstils" {
		t.Errorf("the state is written as mode %q, alpha %v, split %d and %d cells, want the run's, then the %d cells and the kept one",
			got.Mode, got.Alpha, got.Split, len(got.Cells), len(cells))
	}
	// what the run appends after it does not reach the state
	cells = append(cells, benchmark.Cell{Strategy: "late"})
	if again, _ := json.Marshal(state); !bytes.Equal(again, data) {
		t.Error("a cell appended after the state was made changed it")
	}
}
