package main

import (
	"fmt"
	"io"
	"time"
)

// progress prints a one-line status (count, extra information, ETA) at most a few times a
// second to standard error.
type progress struct {
	w     io.Writer
	what  string
	start time.Time
	last  time.Time
	shown bool
}

func newProgress(w io.Writer, what string) *progress {
	return &progress{w: w, what: what, start: time.Now()}
}

func (p *progress) update(done, total int, info string) {
	now := time.Now()
	if done < total && now.Sub(p.last) < 200*time.Millisecond {
		return
	}
	p.last = now
	eta := "?"
	if done > 0 {
		el := now.Sub(p.start)
		eta = (time.Duration(float64(el) / float64(done) * float64(total-done))).Round(100 * time.Millisecond).String()
	}
	fmt.Fprintf(p.w, "\r%d/%d %s, %s, ETA %s   ", done, total, p.what, info, eta)
	p.shown = true
}

func (p *progress) finish() {
	if p.shown {
		fmt.Fprintln(p.w)
	}
}
