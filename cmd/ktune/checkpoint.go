package main

import (
	"encoding/json"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/ktune/ktune/internal/outfile"
)

// checkpoint keeps a file up to date with the finished part of a long computation (a
// benchmark's cells), so that a crash, a kill or a lost terminal loses at most the last
// few seconds: the same command with --resume FILE continues from it. The file is
// rewritten through a temporary file and a rename (outfile.Write), so it is always whole, at most once per
// interval, and once more at the end. A state that arrives within the interval of the last
// write is written when the interval has passed, by a timer, not when the next state
// arrives: a long cell after it would otherwise keep the cells before it out of the file.
type checkpoint struct {
	path  string
	every time.Duration

	mu      sync.Mutex
	last    time.Time
	pending any         // the latest state not yet written
	timer   *time.Timer // set while a write of pending is scheduled
	err     error
}

func newCheckpoint(path string) *checkpoint {
	if path == "" {
		return nil
	}
	return &checkpoint{path: path, every: 10 * time.Second}
}

// update takes the latest state and writes it at once when the last write is at least an
// interval old, or else as soon as it is. The state may be written from another
// goroutine, so the caller must not change it afterwards.
func (c *checkpoint) update(state any) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.pending = state
	wait := c.every - time.Since(c.last)
	if wait <= 0 {
		c.writeLocked()
		return
	}
	if c.timer == nil {
		c.timer = time.AfterFunc(wait, c.scheduled)
	}
}

// scheduled writes the state pending when the interval since the last write has passed.
func (c *checkpoint) scheduled() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.timer = nil
	if c.pending != nil {
		c.writeLocked()
	}
}

// pendingState takes the final state, for flush to write.
func (c *checkpoint) pendingState(state any) {
	if c != nil {
		c.mu.Lock()
		c.pending = state
		c.mu.Unlock()
	}
}

// flush stops the timer and writes the latest state if it is not written yet; it returns
// the first error any write met.
func (c *checkpoint) flush() error {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.timer != nil {
		c.timer.Stop()
		c.timer = nil
	}
	if c.pending != nil {
		c.writeLocked()
	}
	return c.err
}

func (c *checkpoint) writeLocked() {
	c.last = time.Now()
	data, err := json.MarshalIndent(c.pending, "", "  ")
	c.pending = nil
	if err == nil {
		err = outfile.Write(c.path, func(w io.Writer) error {
			_, err := w.Write(append(data, '\n'))
			return err
		})
	}
	if err != nil && c.err == nil {
		c.err = fmt.Errorf("--checkpoint %s: %w", c.path, outfile.Cause(err, c.path))
	}
}
