package main

import (
	"bytes"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// On a terminal a progress line is cut to one column less than the terminal's width and
// cleared to the end of the line, so that a long one (a configuration of many parameters)
// never wraps and leaves stale lines behind.
func TestProgressLineIsCutToTheTerminalWidth(t *testing.T) {
	var buf bytes.Buffer
	p := &progress{w: &buf, what: "evaluated", start: time.Now(), terminal: true, width: 40}
	p.update(3, 100, "best 1.5 ms at "+strings.Repeat("block_size_x=128, ", 14))
	out := buf.String()
	if !strings.HasPrefix(out, "\r3/100 evaluated, ETA ") || !strings.HasSuffix(out, "\x1b[K") {
		t.Fatalf("line %q", out)
	}
	if n := utf8.RuneCountInString(strings.TrimSuffix(strings.TrimPrefix(out, "\r"), "\x1b[K")); n != 39 {
		t.Errorf("%d characters shown on a terminal 40 wide: %q", n, out)
	}
	// where the terminal does not say its width, $COLUMNS does
	t.Setenv("COLUMNS", "30")
	buf.Reset()
	p.width, p.last = 0, time.Time{} // and no line held back as too soon after the last
	p.update(4, 100, "best 1.5 ms at "+strings.Repeat("block_size_x=128, ", 14))
	if n := utf8.RuneCountInString(strings.TrimSuffix(strings.TrimPrefix(buf.String(), "\r"), "\x1b[K")); n != 29 {
		t.Errorf("%d characters shown with COLUMNS=30: %q", n, buf.String())
	}
	// a short line is shown whole
	buf.Reset()
	p.width = 40
	p.update(100, 100, "best 1 ms")
	if out := buf.String(); out != "\r100/100 evaluated, ETA 0s, best 1 ms\x1b[K" {
		t.Errorf("line %q", out)
	}
}

// Where standard error is not a terminal (--progress into a log file, CI) each update is a
// line of its own, without escape codes or carriage returns, at most every fileLineEvery
// but for the last.
func TestProgressOffATerminalWritesLines(t *testing.T) {
	var buf bytes.Buffer
	p := &progress{w: &buf, what: "evaluated", start: time.Now()}
	p.update(1, 3, "best 10.25 ms at a=1")
	p.last = time.Time{} // not held back as too soon after the last
	p.update(2, 3, "best 2 ms at a=3")
	p.last = time.Time{}
	p.update(3, 3, "best 1 ms at a=2")
	p.finish()
	want := "1/3 evaluated, ETA 1s, best 10.25 ms at a=1\n3/3 evaluated, ETA 0s, best 1 ms at a=2\n"
	if got := buf.String(); got != want {
		t.Errorf("lines %q, want %q (the second within a second of the first)", got, want)
	}
}

// The ETA is the sooner of the budget at the rate so far and the time limit; on a resumed
// run the rate is that of this command's evaluations, not of the stored ones.
func TestProgressETA(t *testing.T) {
	now := time.Now()
	tests := []struct {
		name              string
		base, done, total int
		elapsed, left     time.Duration // left: until the deadline; 0 for none
		want              string
	}{
		{"by the budget", 0, 10, 100, 10 * time.Second, 0, "ETA 1m30s"},
		{"capped by the time limit", 0, 10, 100, 10 * time.Second, 2 * time.Second, "ETA 2s"},
		{"the time limit before anything ended", 0, 0, 100, time.Second, 5 * time.Second, "ETA 5s"},
		{"nothing known", 0, 0, 100, time.Second, 0, "ETA ?"},
		{"a resumed run's rate", 27, 28, 30, time.Second, 0, "ETA 2s"},
		{"a resumed run before its first measurement", 27, 27, 30, time.Second, 0, "ETA ?"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			p := &progress{w: &buf, what: "evaluated", start: now.Add(-tt.elapsed), base: tt.base}
			if tt.left > 0 {
				p.deadline = now.Add(tt.left)
			}
			p.update(tt.done, tt.total, "x")
			if got := strings.TrimSpace(buf.String()); !strings.HasSuffix(got, tt.want+", x") {
				t.Errorf("%q, want %q before the information", got, tt.want)
			}
		})
	}
}

// finish ends the line once: a command that ends the line before its results and again
// on its way out (a deferred call, an error path) leaves no empty line, and an update
// after it starts a line of its own.
func TestProgressFinishEndsTheLineOnce(t *testing.T) {
	var buf bytes.Buffer
	p := &progress{w: &buf, what: "runs", start: time.Now(), terminal: true, width: 80}
	p.update(2, 2, "x")
	p.finish()
	p.finish()
	if got, want := buf.String(), "\r2/2 runs, ETA 0s, x\x1b[K\n"; got != want {
		t.Errorf("%q, want %q", got, want)
	}
	p.finish() // nothing shown since: nothing to end
	if got := strings.Count(buf.String(), "\n"); got != 1 {
		t.Errorf("%d line ends: %q", got, buf.String())
	}
}
