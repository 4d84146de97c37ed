//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package format_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/ktune/ktune/format"
)

// stdinHelper makes the test binary, started by readStdin, read a recording from its
// standard input with format.OpenStdin and print what it read, or its error, within the
// deadline that stdinDeadline gives it.
const (
	stdinHelper   = "KTUNE_FORMAT_STDIN_HELPER"
	stdinDeadline = "KTUNE_FORMAT_STDIN_DEADLINE"
)

func TestStdinHelperProcess(t *testing.T) {
	if os.Getenv(stdinHelper) != "1" {
		t.Skip("the process that readStdin starts")
	}
	deadline, err := time.ParseDuration(os.Getenv(stdinDeadline))
	if err != nil {
		fmt.Println("error:", stdinDeadline, err)
		os.Exit(0)
	}
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	rec, err := format.OpenStdin(ctx)
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		fmt.Println("deadline")
	case err != nil:
		fmt.Println("error:", err)
	default:
		fmt.Printf("%s %s %s %d\n", rec.Source, rec.Format, rec.Kernel, len(rec.Evaluations))
	}
	os.Exit(0)
}

// readStdin runs the test binary as stdinHelper with stdin as its standard input and the
// given deadline for reading it, and returns what it printed.
func readStdin(t *testing.T, stdin any, deadline time.Duration) string {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestStdinHelperProcess$")
	cmd.Env = append(os.Environ(), stdinHelper+"=1", stdinDeadline+"="+deadline.String())
	switch in := stdin.(type) {
	case *os.File:
		cmd.Stdin = in
	case []byte:
		cmd.Stdin = bytes.NewReader(in) // through a pipe
	}
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	return strings.TrimSpace(string(out))
}

// Standard input is read as a file is, named "standard input": through a pipe, or a file
// redirected to it; a device (a terminal, /dev/null) is refused, saying how to give a
// recording; and a read waiting on a pipe whose writer sends nothing ends with the
// context, as a named pipe's does. The reads that must succeed get a minute: with the
// 300 ms of the silent pipe, reading pnpoly's 4092 entries ran out of time, three runs
// of three, on this 2-core machine under a load of 17. The silent pipe keeps its 300 ms:
// the deadline is what it tests, and nothing but the helper's start is timed against it.
func TestOpenStdinReadsPipesAndFiles(t *testing.T) {
	const cache = "../testdata/benchmark_hub/kerneltuner_pnpoly/RTX_2080_Ti.json.gz"
	data, err := os.ReadFile(cache)
	if err != nil {
		t.Fatal(err)
	}
	const want = "standard input kerneltuner cn_pnpoly 4092"
	if got := readStdin(t, data, time.Minute); got != want {
		t.Errorf("a pipe: %q, want %q", got, want)
	}
	f, err := os.Open(cache)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if got := readStdin(t, f, time.Minute); got != want {
		t.Errorf("a file: %q, want %q", got, want)
	}
	null, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	if got := readStdin(t, null, time.Minute); !strings.Contains(got, "error: standard input is a terminal or another device, not a file or a pipe: redirect a recording to it (< FILE) or pipe one in") {
		t.Errorf("a device: %q", got)
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	// open and silent until the reader gave up; closed after 10 s, so that a reader that
	// does not give up fails the test instead of hanging it
	stop := time.AfterFunc(10*time.Second, func() { w.Close() })
	defer func() {
		if stop.Stop() {
			w.Close()
		}
	}()
	start := time.Now()
	if got := readStdin(t, r, 300*time.Millisecond); got != "deadline" {
		t.Errorf("a silent pipe: %q, want the context's deadline", got)
	}
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("a silent pipe was read for %v, the deadline was 300ms", took)
	}
}
