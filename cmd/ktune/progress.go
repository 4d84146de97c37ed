package main

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"time"

	"golang.org/x/sys/unix"
)

// progress prints a one-line status (count, ETA, extra information) at most a few times a
// second to standard error. On a terminal the line is cut to the terminal's width, so that
// it never wraps (a wrapped line is not overwritten by the next, and leaves stale lines).
type progress struct {
	w     io.Writer
	what  string
	start time.Time
	last  time.Time
	shown bool
	// delay holds the first line back: work that ends sooner shows nothing
	delay time.Duration
	// base is how much of the count was done before start (a resumed run's measurements):
	// the rate the ETA extrapolates is that of the rest
	base int
	// deadline, when set, bounds the ETA: the work stops then whatever is left
	deadline time.Time
	// terminal says w is a terminal: lines are cut to its width and cleared to its end
	terminal bool
	// width is the terminal's width when known; 0 asks the terminal at each line
	width int
	// lineAt is when the last line was written where w is not a terminal
	lineAt time.Time
}

func newProgress(w io.Writer, what string) *progress {
	return &progress{w: w, what: what, start: time.Now(), terminal: isTerminal(w)}
}

func (p *progress) update(done, total int, info string) {
	now := time.Now()
	if done < total && now.Sub(p.last) < 200*time.Millisecond {
		return
	}
	p.last = now
	eta := time.Duration(-1)
	if done > p.base {
		el := now.Sub(p.start)
		eta = time.Duration(float64(el) / float64(done-p.base) * float64(max(total-done, 0)))
	}
	if !p.deadline.IsZero() {
		if left := max(p.deadline.Sub(now), 0); eta < 0 || left < eta {
			eta = left
		}
	}
	etaText := "?"
	if eta >= 0 {
		etaText = formatETA(eta)
	}
	// the ETA before the information, which may be long and is cut first
	p.show(fmt.Sprintf("%d/%d %s, ETA %s, %s", done, total, p.what, etaText, info), done >= total)
}

// formatETA is a time left in steady units: whole seconds under an hour (at least 1s
// until it is 0), whole minutes beyond, so that the figure does not jump between ms, tenths
// and seconds from one line to the next.
func formatETA(d time.Duration) string {
	switch {
	case d <= 0:
		return "0s"
	case d < time.Second:
		return "1s"
	case d < time.Hour:
		return d.Round(time.Second).String()
	}
	return d.Round(time.Minute).String()
}

// fraction shows progress as a fraction of the whole (0 to 1), with the time left
// estimated from it.
func (p *progress) fraction(done float64, info string) {
	now := time.Now()
	el := now.Sub(p.start)
	if el < p.delay || done < 1 && now.Sub(p.last) < 200*time.Millisecond {
		return
	}
	p.last = now
	eta := "?"
	if left := float64(el) / done * (1 - done); done > 0 && left < float64(10000*time.Hour) {
		eta = formatETA(time.Duration(left))
	} else if done > 0 {
		eta = "over 10000h"
	}
	p.show(fmt.Sprintf("%.3g%% %s, ETA %s, %s", 100*done, p.what, eta, info), done >= 1)
}

// fileLineEvery is how often a progress line is written where standard error is not a
// terminal (a log file, CI): each a line of its own, so that the log reads and greps line
// by line, and no more often than this, so that it does not swell.
const fileLineEvery = time.Second

// show writes line over the one shown before on a terminal, cut to one column less than
// its width (a line that fills the last column wraps in some terminals) and cleared to the
// end; elsewhere as a line of its own, at most every fileLineEvery unless it is the last
// (final).
func (p *progress) show(line string, final bool) {
	if p.terminal {
		width := p.width
		if width == 0 {
			width = terminalWidth(p.w)
		}
		if width > 1 {
			line = cutRunes(line, width-1)
		}
		fmt.Fprintf(p.w, "\r%s\x1b[K", line)
	} else {
		now := time.Now()
		if p.shown && !final && now.Sub(p.lineAt) < fileLineEvery {
			return
		}
		p.lineAt = now
		fmt.Fprintln(p.w, line)
	}
	p.shown = true
}

// cutRunes is s cut to at most n characters.
func cutRunes(s string, n int) string {
	i := 0
	for at := range s {
		if i == n {
			return s[:at]
		}
		i++
	}
	return s
}

// terminalWidth is the width in columns of the terminal w writes to, $COLUMNS when the
// terminal does not say, 0 when neither is known.
func terminalWidth(w io.Writer) int {
	if f, ok := w.(*os.File); ok {
		if rc, err := f.SyscallConn(); err == nil {
			var ws *unix.Winsize
			var werr error
			if err := rc.Control(func(fd uintptr) { ws, werr = unix.IoctlGetWinsize(int(fd), unix.TIOCGWINSZ) }); err == nil && werr == nil && ws.Col > 0 {
				return int(ws.Col)
			}
		}
	}
	n, err := strconv.Atoi(os.Getenv("COLUMNS"))
	if err != nil || n < 0 {
		return 0
	}
	return n
}

// finish ends the line shown on a terminal; elsewhere every line has ended already. A
// command calls it as soon as the work the line follows ends, before it writes anything
// else to the terminal (an interruption's message, the results on standard output), which
// would otherwise go on from the end of the line; a second call writes nothing, and an
// update after it starts a new line.
func (p *progress) finish() {
	if p.shown && p.terminal {
		fmt.Fprintln(p.w)
	}
	p.shown = false
}
