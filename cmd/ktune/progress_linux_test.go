//go:build linux

package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// openTerminal opens a pseudo-terminal: the file a command writes to, as its standard
// output and error on a terminal, and a function that closes it and returns what the
// terminal received (with the terminal's \r\n for every \n).
func openTerminal(t *testing.T) (*os.File, func() string) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	t.Cleanup(func() { m.Close() })
	if err := unix.IoctlSetPointerInt(int(m.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Skipf("unlocking the pseudo-terminal: %v", err)
	}
	n, err := unix.IoctlGetUint32(int(m.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Skipf("naming the pseudo-terminal: %v", err)
	}
	s, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("opening the pseudo-terminal: %v", err)
	}
	var got bytes.Buffer
	done := make(chan struct{})
	go func() {
		io.Copy(&got, m) // until the terminal's side is closed (EIO)
		close(done)
	}()
	return s, func() string {
		s.Close()
		<-done
		return got.String()
	}
}

// On a terminal, where standard output and error are the same screen, the progress line
// is ended before the results are printed (QA: simulate, bench and hypertune printed
// their first result line at the end of the last progress line, "3000/3000 runs, ETA 0s,
// mean fraction 0.9604FILE: kerneltuner, ...").
func TestProgressLineEndsBeforeTheResultsOnATerminal(t *testing.T) {
	for _, tc := range []struct {
		args  []string
		first string // the first line of the results
	}{
		{[]string{"simulate", pnpoly, "--repeats", "20", "--budget", "20"}, pnpoly + ": kerneltuner"},
		{[]string{"bench", pnpoly, "--strategies", "random", "--budgets", "10", "--repeats", "2"}, "kerneltuner_pnpoly/RTX_2080_Ti (cartesian mode"},
		{[]string{"hypertune", pnpoly, "--strategy", "greedymls", "--grid", "restart=true,false", "--budgets", "10",
			"--repeats", "2", "--out", t.TempDir() + "/d.json"}, "greedymls: 2 settings"},
	} {
		t.Run(tc.args[0], func(t *testing.T) {
			term, screen := openTerminal(t)
			code := run(context.Background(), tc.args, term, term)
			got := screen()
			if code != 0 {
				t.Fatalf("exit %d: %q", code, got)
			}
			if !strings.Contains(got, "\x1b[K") {
				t.Fatalf("no progress line on a terminal: %q", got)
			}
			// every progress line is followed by the next one (\r) or ended (\r\n)
			for rest := got; ; {
				i := strings.Index(rest, "\x1b[K")
				if i < 0 {
					break
				}
				rest = rest[i+len("\x1b[K"):]
				if !strings.HasPrefix(rest, "\r") {
					t.Fatalf("a progress line goes on with %.80q:\n%q", rest, got)
				}
			}
			if !strings.Contains(got, "\x1b[K\r\n"+tc.first) {
				t.Errorf("the results do not start on a line of their own after the progress line:\n%q", got)
			}
		})
	}
}
