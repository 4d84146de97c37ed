package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/ktune/ktune/store"
)

// startKtune starts the test binary as ktune with args, its standard output and error
// going to the pipe's write end; the read end is returned.
func startKtune(t *testing.T, args ...string) (*exec.Cmd, *os.File) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "KTUNE_TEST_AS_MAIN=1")
	cmd.Stdout, cmd.Stderr = w, w
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	t.Cleanup(func() {
		r.Close()
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
	})
	return cmd, r
}

// interrupted is a ktune process that a test interrupted: its exit status and what it
// wrote to standard output and error.
type interrupted struct {
	code           int
	stdout, stderr string
}

// interruptWhen starts ktune with args and sends it sig at the first moment ready reports:
// ready is called with each line ktune writes to standard error, and with "" every 10 ms
// (for a sign outside the process: a file, a database). It waits at most 60 s for that
// moment and 30 s more for ktune to exit.
func interruptWhen(t *testing.T, sig os.Signal, ready func(line string) bool, args ...string) interrupted {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "KTUNE_TEST_AS_MAIN=1")
	var stdout strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, w
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	lines, stderr := make(chan string, 1024), make(chan string, 1)
	go func() {
		var all strings.Builder
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			all.WriteString(sc.Text() + "\n")
			select {
			case lines <- sc.Text():
			default: // the test no longer reads them
			}
		}
		close(lines)
		stderr <- all.String()
	}()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(5 * time.Minute) // ends at the moment; the bound is for a loaded machine
wait:
	for {
		select {
		case line, ok := <-lines:
			if !ok {
				cmd.Wait()
				t.Fatalf("ktune exited %d before the moment to interrupt it; stderr: %s", cmd.ProcessState.ExitCode(), <-stderr)
			}
			if ready(line) {
				break wait
			}
		case <-tick.C:
			if ready("") {
				break wait
			}
		case <-deadline:
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("the moment to interrupt ktune did not come within 5 minutes; stderr: %s", <-stderr)
		}
	}
	cmd.Process.Signal(sig)
	code := waitExit(t, cmd)
	select {
	case errOut := <-stderr:
		return interrupted{code, stdout.String(), errOut}
	case <-time.After(30 * time.Second): // a child of ktune outlived it, holding the pipe
		t.Fatal("ktune's standard error was not closed within 30 s of its exit")
		return interrupted{}
	}
}

// waitExit waits at most 30 s for cmd and returns its exit status, -1 for a process a
// signal killed.
func waitExit(t *testing.T, cmd *exec.Cmd) int {
	t.Helper()
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		<-done
		t.Fatal("ktune did not stop within 30 s of the signal")
	}
	return cmd.ProcessState.ExitCode()
}

// A Ctrl-C in 'ktune bench ... 2>&1 | tee log' ends tee as well as ktune. Stopping, ktune
// writes its interruption's message to the pipe no one reads any more: that killed it
// (SIGPIPE) before the final checkpoint and the --csv file were written. It writes them
// and exits with the interruption's status.
func TestAnInterruptionWhoseOutputPipeClosedStillWritesTheOutputs(t *testing.T) {
	pnpoly, _ := filepath.Abs("../../testdata/benchmark_hub/kerneltuner_pnpoly/RTX_2080_Ti.json.gz")
	conv, _ := filepath.Abs("../../testdata/benchmark_hub/convolution_milo/A100.json.gz")
	dir := t.TempDir()
	csv := filepath.Join(dir, "cells.csv")
	cmd, r := startKtune(t, "bench", pnpoly, conv, "--strategies", "random,firstmls", "--budgets", "25,1600",
		"--repeats", "2000", "--workers", "2", "--progress", "--csv", csv, "--checkpoint", filepath.Join(dir, "ckpt.json"))
	if _, err := bufio.NewReader(r).ReadString('\n'); err != nil { // the first progress line
		t.Fatal(err)
	}
	r.Close() // tee ended
	time.Sleep(200 * time.Millisecond)
	cmd.Process.Signal(os.Interrupt)
	if code := waitExit(t, cmd); code != 130 {
		t.Fatalf("exit status %d, want 130 (-1: killed by %v)", code, cmd.ProcessState.Sys().(syscall.WaitStatus).Signal())
	}
	data, err := os.ReadFile(csv)
	if err != nil {
		t.Fatalf("--csv not written: %v", err)
	}
	if !strings.HasPrefix(string(data), "space,strategy,budget,") {
		t.Errorf("--csv holds %q", data)
	}
}

// An interrupted 'ktune import --json' printed nothing, though the files imported before
// the interruption are stored: it prints them, as one JSON document.
func TestAnInterruptedImportPrintsTheFilesItImported(t *testing.T) {
	hub, _ := filepath.Abs("../../testdata/benchmark_hub")
	db := filepath.Join(t.TempDir(), "ktune.db")
	cmd := exec.Command(os.Args[0], "import", hub, "--db", db, "--json")
	cmd.Env = append(os.Environ(), "KTUNE_TEST_AS_MAIN=1")
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Minute) // ends at the event; the bound is for a loaded machine
	for time.Now().Before(deadline) && storedRuns(t, db) == 0 {
		time.Sleep(5 * time.Millisecond)
	}
	cmd.Process.Signal(syscall.SIGTERM)
	if code := waitExit(t, cmd); code != 143 {
		t.Fatalf("exit status %d, want 143; stderr: %s", code, stderr.String())
	}
	var files []struct {
		File string `json:"file"`
		Run  int64  `json:"run"`
	}
	if err := json.Unmarshal([]byte(stdout.String()), &files); err != nil {
		t.Fatalf("stdout is no JSON document: %v\n%s", err, stdout.String())
	}
	if n := storedRuns(t, db); len(files) != n || n == 0 {
		t.Errorf("the JSON lists %d files, the database holds %d runs", len(files), n)
	}
}

// storedRuns is the number of runs in db, 0 where it cannot be read yet.
func storedRuns(t *testing.T, db string) int {
	t.Helper()
	if _, err := os.Stat(db); err != nil {
		return 0
	}
	st, err := store.Open(context.Background(), db)
	if err != nil {
		return 0
	}
	defer st.Close()
	runs, err := st.Runs(context.Background(), store.RunFilter{})
	if err != nil {
		return 0
	}
	return len(runs)
}

// An analysis interrupted while it draws its figures (a flow graph takes seconds) is
// finished: it is printed, as one JSON document saying the interruption, with the figures
// written before. It printed nothing and exited 130 without a word.
func TestAnAnalysisInterruptedDrawingItsFiguresIsPrinted(t *testing.T) {
	pnpoly, _ := filepath.Abs("../../testdata/benchmark_hub/kerneltuner_pnpoly/RTX_2080_Ti.json.gz")
	plot := filepath.Join(t.TempDir(), "figures")
	cmd := exec.Command(os.Args[0], "analyze", pnpoly, "--landscape", "--plot", plot, "--graph-nodes", "5000", "--json")
	cmd.Env = append(os.Environ(), "KTUNE_TEST_AS_MAIN=1")
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// the minima figure is drawn first, the flow graph's after it
	deadline := time.Now().Add(5 * time.Minute) // ends at the event; the bound is for a loaded machine
	for time.Now().Before(deadline) {
		if _, err := os.Stat(filepath.Join(plot, "centrality.svg")); err == nil {
			break
		}
		time.Sleep(2 * time.Millisecond)
	}
	cmd.Process.Signal(os.Interrupt)
	if code := waitExit(t, cmd); code != 130 {
		t.Fatalf("exit status %d, want 130; stderr: %s", code, stderr.String())
	}
	var out struct {
		Interrupted string            `json:"interrupted"`
		Results     []json.RawMessage `json:"results"`
		Figures     []string          `json:"figures"`
	}
	if err := json.Unmarshal([]byte(stdout.String()), &out); err != nil {
		t.Fatalf("stdout is no JSON document: %v\n%s", err, stdout.String())
	}
	if len(out.Results) != 1 || !strings.Contains(out.Interrupted, "figures") || len(out.Figures) == 0 {
		t.Errorf("interrupted %q, %d results, figures %q", out.Interrupted, len(out.Results), out.Figures)
	}
	for _, f := range out.Figures {
		if _, err := os.Stat(f); err != nil {
			t.Errorf("figure %s listed: %v", f, err)
		}
	}
	if !strings.Contains(stderr.String(), "interrupted while drawing the figures") {
		t.Errorf("stderr does not say the interruption: %s", stderr.String())
	}
}

// 'ktune space count --time' interrupted in its timed constructions, after the first,
// prints the count and the timing of the constructions finished, saying so. It exited
// 130 without a word.
func TestASpaceTimingInterruptedPrintsTheConstructionsFinished(t *testing.T) {
	dir := t.TempDir()
	spec := `kernel: {name: k, source: k.c}
parameters:
  - {name: A, values: [1, 2, 3, 4, 5, 6, 7, 8]}
  - {name: B, values: [1, 2, 3, 4, 5, 6, 7, 8]}
  - {name: C, values: [1, 2, 3, 4, 5, 6, 7, 8]}
  - {name: D, values: [1, 2, 3, 4, 5, 6, 7, 8]}
restrictions: ["(A * B + C * D) % 7 != 3"]
problem_size: [1]
arguments:
  - {name: n, type: int32, value: 1}
`
	if err := os.WriteFile(filepath.Join(dir, "k.c"), []byte("void k(int n) {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "space.yaml")
	if err := os.WriteFile(path, []byte(spec), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, jsonOut := range []bool{false, true} {
		args := []string{"space", "count", path, "--time", "--repeat", "100000000"}
		if jsonOut {
			args = append(args, "--json")
		}
		cmd := exec.Command(os.Args[0], args...)
		cmd.Env = append(os.Environ(), "KTUNE_TEST_AS_MAIN=1")
		var stdout, stderr strings.Builder
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Second) // the first construction takes a millisecond
		cmd.Process.Signal(os.Interrupt)
		if code := waitExit(t, cmd); code != 130 {
			t.Fatalf("exit status %d, want 130; stderr: %s", code, stderr.String())
		}
		if !strings.Contains(stderr.String(), "constructions; the timing is of those") {
			t.Errorf("stderr does not say the interruption: %q", stderr.String())
		}
		if !jsonOut {
			if !strings.Contains(stdout.String(), "valid 3520 ") || !strings.Contains(stdout.String(), "construction: first") {
				t.Errorf("stdout lacks the count or the timing:\n%s", stdout.String())
			}
			continue
		}
		var out struct {
			Interrupted string `json:"interrupted"`
			Valid       int    `json:"valid"`
			Builds      int    `json:"builds"`
		}
		if err := json.Unmarshal([]byte(stdout.String()), &out); err != nil {
			t.Fatalf("stdout is no JSON document: %v\n%s", err, stdout.String())
		}
		if out.Interrupted == "" || out.Valid != 3520 || out.Builds < 1 {
			t.Errorf("JSON: %+v", out)
		}
	}
}

// openedFIFO makes a FIFO for ktune to read and opens it for writing, writing nothing:
// opened reports once ktune has opened it, and so waits in its read of the file.
func openedFIFO(t *testing.T) (path string, opened func() bool) {
	t.Helper()
	path = filepath.Join(t.TempDir(), "fifo.json")
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	var open atomic.Bool
	writer := make(chan *os.File, 1)
	go func() {
		w, err := os.OpenFile(path, os.O_WRONLY, 0) // waits for a reader
		open.Store(err == nil)
		writer <- w
	}()
	t.Cleanup(func() {
		if !open.Load() { // ktune never opened it: a reader of our own ends the wait
			if r, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0); err == nil {
				defer r.Close()
			}
		}
		if w := <-writer; w != nil {
			w.Close()
		}
	})
	return path, open.Load
}

// 'ktune space --json' interrupted while it builds the space, or reads its file, printed
// no JSON: it prints one object saying the interruption, with what it knew (the
// parameters, the restrictions, the product and how much of it was enumerated), whatever
// the action; a list of no configurations would not say it was cut short.
func TestASpaceInterruptedBeforeItIsBuiltPrintsOneJSONDocument(t *testing.T) {
	spec := twelveTied(t, t.TempDir(), 0, "SUM == 3", func(i int) int { return min(max(3-i, 0), 1) }) // hours to enumerate
	building := func(line string) bool { return strings.Contains(line, "building tied.yaml") }
	fifo, opened := openedFIFO(t)
	for _, tt := range []struct {
		name   string
		ready  func(string) bool
		args   []string
		stderr string
		params int
	}{
		{"count", building, []string{"space", "count", spec, "--progress", "--json"}, "% of the product of " + spec + " enumerated", 14},
		{"list", building, []string{"space", "list", spec, "--progress", "--json"}, "% of the product of " + spec + " enumerated", 14},
		{"reading", func(string) bool { return opened() }, []string{"space", "sample", fifo, "--json"}, "interrupted while reading " + fifo + "; nothing was built", 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := interruptWhen(t, os.Interrupt, tt.ready, tt.args...)
			if p.code != 130 || !strings.Contains(p.stderr, tt.stderr) {
				t.Fatalf("exit %d, want 130; stderr: %s", p.code, p.stderr)
			}
			var out struct {
				Interrupted  string            `json:"interrupted"`
				File         string            `json:"file"`
				Params       []json.RawMessage `json:"parameters"`
				Restrictions []string          `json:"restrictions"`
				Product      float64           `json:"product"`
				Enumerated   float64           `json:"enumerated"`
			}
			var fields map[string]any
			dec := json.NewDecoder(strings.NewReader(p.stdout))
			if err := dec.Decode(&out); err != nil || dec.More() {
				t.Fatalf("stdout is not one JSON document (%v):\n%s", err, p.stdout)
			}
			json.Unmarshal([]byte(p.stdout), &fields)
			if !strings.Contains(out.Interrupted, tt.stderr) || out.File != tt.args[2] || len(out.Params) != tt.params {
				t.Errorf("document:\n%s", p.stdout)
			}
			if tt.params > 0 && (len(out.Restrictions) != 1 || out.Product != 15e12 || out.Enumerated <= 0 || out.Enumerated >= 1) {
				t.Errorf("document:\n%s", p.stdout)
			}
			// count's fields, null where not known yet
			for _, name := range []string{"parameters", "restrictions", "product", "valid", "groups", "index_bytes"} {
				v, ok := fields[name]
				if !ok || (v != nil) != (tt.params > 0 && !slices.Contains([]string{"valid", "groups", "index_bytes"}, name)) {
					t.Errorf("%s: %v (present: %v)", name, v, ok)
				}
			}
		})
	}
}

// An interrupted report exited 130 without a word: it says so, and what became of its
// output, a page from before left as it was or none written.
func TestAnInterruptedReportSaysWhatBecameOfItsPage(t *testing.T) {
	for _, existing := range []bool{true, false} {
		fifo, opened := openedFIFO(t)
		page := filepath.Join(t.TempDir(), "page.html")
		if existing {
			if err := os.WriteFile(page, []byte("the page from before"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		p := interruptWhen(t, os.Interrupt, func(string) bool { return opened() }, "report", fifo, "-o", page)
		want := "ktune report: interrupted while making the page; " + page + " was not written"
		if existing {
			want = "ktune report: interrupted while making the page; the existing " + page + " was left as it was"
		}
		if p.code != 130 || strings.TrimSpace(p.stderr) != want || p.stdout != "" {
			t.Errorf("exit %d, want 130; stdout %q; stderr %q, want %q", p.code, p.stdout, p.stderr, want)
		}
		data, err := os.ReadFile(page)
		if existing && string(data) != "the page from before" || !existing && err == nil {
			t.Errorf("the page holds %q (%v)", data, err)
		}
	}
}

// 'ktune space list' interrupted while it prints (Ctrl-C, SIGTERM) closed its JSON array
// and exited 130 without a word, unlike every other command: it says on standard error
// that it was interrupted, how many configurations it printed, and which --offset goes on
// from there. The signal is sent once the first configurations are read from its output.
func TestASpaceListInterruptedWhilePrintingSaysSo(t *testing.T) {
	var names []string
	for i := range 10 {
		names = append(names, fmt.Sprintf("p%d", i))
	}
	path := writeT1(t, names) // 1e10 configurations: hours of printing
	for _, tt := range []struct {
		sig     os.Signal
		code    int
		jsonOut bool
	}{
		{os.Interrupt, 130, true},
		{syscall.SIGTERM, 143, false},
	} {
		t.Run(fmt.Sprintf("%v json %v", tt.sig, tt.jsonOut), func(t *testing.T) {
			args := []string{"space", "list", path, "--limit", "0", "--offset", "7"}
			if tt.jsonOut {
				args = append(args, "--json")
			}
			cmd := exec.Command(os.Args[0], args...)
			cmd.Env = append(os.Environ(), "KTUNE_TEST_AS_MAIN=1")
			var stderr strings.Builder
			cmd.Stderr = &stderr
			out, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			first := make([]byte, 1)
			if _, err := io.ReadFull(out, first); err != nil { // it has begun printing
				t.Fatal(err)
			}
			cmd.Process.Signal(tt.sig)
			rest, err := io.ReadAll(out)
			if err != nil {
				t.Fatal(err)
			}
			code := waitExit(t, cmd)
			printed := string(first) + string(rest)
			n := strings.Count(printed, "\n")
			if tt.jsonOut {
				var list []struct {
					Index int `json:"index"`
				}
				if err := json.Unmarshal([]byte(printed), &list); err != nil || len(list) == 0 || list[0].Index != 7 {
					t.Fatalf("stdout is no JSON array from index 7 (%v): ...%s", err, printed[max(len(printed)-200, 0):])
				}
				n = len(list)
			}
			want := fmt.Sprintf("ktune space: interrupted after %d configurations printed", n)
			if tt.jsonOut {
				want += ", the JSON array closed after them"
			}
			want += fmt.Sprintf("; --offset %d continues the list\n", 7+n)
			if code != tt.code || stderr.String() != want {
				t.Errorf("exit %d, stderr %q; want %d, %q", code, stderr.String(), tt.code, want)
			}
		})
	}
}
