package main

import (
	"bytes"
	"encoding/json"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ktune/ktune/internal/outfile"
)

// diskFull makes writeFile fail for the paths for which full says so, as outfile.Write
// does on a full disk (the file is left as it was), until the test ends.
func diskFull(t *testing.T, full func(path string) bool) {
	t.Helper()
	t.Cleanup(func() { writeFile = outfile.Write })
	writeFile = func(path string, write func(io.Writer) error) error {
		if full(path) {
			return &fs.PathError{Op: "write", Path: path, Err: syscall.ENOSPC}
		}
		return outfile.Write(path, write)
	}
}

// A --csv or --plot that cannot be written (a full disk) loses none of the results: the
// table or the JSON is printed whole, every other output is written, and each that failed
// is said at the end with exit status 1. Before, bench and hypertune returned at the first
// failing output, printing nothing ('--json > FILE' left FILE empty).
func TestResultsArePrintedWhenAnOutputFails(t *testing.T) {
	dir := t.TempDir()
	csvPath, plots := filepath.Join(dir, "b.csv"), filepath.Join(dir, "plots")
	diskFull(t, func(path string) bool { return path == csvPath })
	// a folder where the first figure goes: writing it fails after the run, as a full disk does
	if err := os.MkdirAll(filepath.Join(plots, "curves-kerneltuner_pnpoly_RTX_2080_Ti.svg", "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	bench := []string{"bench", pnpoly, "--strategies", "random", "--budgets", "5", "--repeats", "2", "--workers", "1", "--csv", csvPath, "--plot", plots}
	for _, asJSON := range []bool{true, false} {
		args := bench
		if asJSON {
			args = append(args, "--json")
		}
		out, errOut, code := ktune(t, args...)
		if code != 1 || !strings.Contains(errOut, "ktune bench: --csv "+csvPath+": no space left on device\n") ||
			!strings.Contains(errOut, "ktune bench: --plot "+plots+": write "+filepath.Join(plots, "curves-kerneltuner_pnpoly_RTX_2080_Ti.svg")) {
			t.Errorf("json %v: exit %d, stderr:\n%s", asJSON, code, errOut)
		}
		if asJSON {
			var res struct {
				Cells []json.RawMessage `json:"cells"`
			}
			if err := json.Unmarshal([]byte(out), &res); err != nil || len(res.Cells) != 1 {
				t.Errorf("the JSON: %v, %d cells:\n%s", err, len(res.Cells), out)
			}
		} else if !strings.Contains(out, "competition: none, with one strategy") || !strings.Contains(out, "wall time:") {
			t.Errorf("the table:\n%s", out)
		}
	}

	// hypertune: the choices are printed, the defaults file written, the --csv said
	defaults := filepath.Join(dir, "d.json")
	out, errOut, code := ktune(t, "hypertune", pnpoly, "--strategy", "firstmls", "--grid", "neighbourhood=Hamming,adjacent", "--budgets", "5",
		"--repeats", "2", "--workers", "1", "--out", defaults, "--csv", csvPath)
	if code != 1 || !strings.Contains(out, "budget 5: neighbourhood=") || !strings.Contains(out, "defaults: "+defaults) ||
		errOut != "ktune hypertune: --csv "+csvPath+": no space left on device\n" {
		t.Errorf("hypertune: exit %d:\n%s%s", code, out, errOut)
	}
	if _, err := os.Stat(defaults); err != nil {
		t.Errorf("the defaults file: %v", err)
	}
}

// A checkpoint that cannot be written is said at once, the first time only, naming the
// file and the cause and that the run goes on; every later write tries again, and one that
// succeeds is said; the file keeps its last good content meanwhile. Before, the failure
// was said only at the end, and the exit status was 0 even when the final write failed.
func TestAFailingCheckpointIsSaidAtOnceAndTriedAgain(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ckpt.json")
	if err := os.WriteFile(path, []byte(`{"cells": [1]}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	full := true
	diskFull(t, func(string) bool { return full })
	var warn bytes.Buffer
	c := newCheckpoint(path, "bench", &warn)
	c.every = time.Millisecond
	held := func() string {
		t.Helper()
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	c.update(map[string]any{"cells": []int{1, 2}})
	want := "ktune bench: warning: --checkpoint " + path + ": no space left on device; the run goes on without a checkpoint (" + path +
		" keeps what it held) and tries again as cells finish\n"
	if warn.String() != want || held() != `{"cells": [1]}`+"\n" {
		t.Fatalf("after the first failure: said %q, the file holds %q", warn.String(), held())
	}
	time.Sleep(5 * time.Millisecond)
	c.update(map[string]any{"cells": []int{1, 2, 3}})
	if warn.String() != want {
		t.Errorf("a second failure is said again: %q", warn.String())
	}
	full = false
	if err := c.flush(); err != nil {
		t.Errorf("flush once the disk has room: %v", err)
	}
	if !strings.HasSuffix(warn.String(), "ktune bench: --checkpoint "+path+" is written again\n") || !strings.Contains(held(), "3") {
		t.Errorf("after the disk has room: said %q, the file holds %q", warn.String(), held())
	}

	// a checkpoint that was never written is said to be none yet
	full = true
	var none bytes.Buffer
	fresh := filepath.Join(filepath.Dir(path), "fresh.json")
	newCheckpoint(fresh, "hypertune", &none).update(map[string]int{"cells": 1})
	if want := "ktune hypertune: warning: --checkpoint " + fresh + ": no space left on device; the run goes on without a checkpoint (there is none yet)"; !strings.HasPrefix(none.String(), want) {
		t.Errorf("a first checkpoint failing: said %q", none.String())
	}

	// the final write failing is an error of the command, after its results (in a file of
	// its own: bench refuses to write over the cells that path holds without --resume)
	final := filepath.Join(filepath.Dir(path), "final.json")
	out, errOut, code := ktune(t, "bench", pnpoly, "--strategies", "random", "--budgets", "5,10", "--repeats", "2", "--workers", "1", "--checkpoint", final)
	if code != 1 || !strings.Contains(out, "wall time:") || strings.Count(errOut, "warning: --checkpoint "+final+": no space left on device") != 1 ||
		!strings.HasSuffix(errOut, "ktune bench: --checkpoint "+final+": no space left on device: the final checkpoint is not written\n") {
		t.Errorf("bench: exit %d:\n%s%s", code, out, errOut)
	}
}
