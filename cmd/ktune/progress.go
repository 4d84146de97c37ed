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
	// delay holds the first line back: work that ends sooner shows nothing
	delay time.Duration
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
		eta = time.Duration(left).Round(time.Second).String()
	} else if done > 0 {
		eta = "over 10000h"
	}
	fmt.Fprintf(p.w, "\r%.3g%% %s, %s, ETA %s   ", 100*done, p.what, info, eta)
	p.shown = true
}

func (p *progress) finish() {
	if p.shown {
		fmt.Fprintln(p.w)
	}
}
