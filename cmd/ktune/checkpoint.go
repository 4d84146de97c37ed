package main

import (
	"encoding/json"
	"fmt"
	"os"
	"time"
)

// checkpoint keeps a file up to date with the finished part of a long computation (a
// benchmark's cells), so that a crash, a kill or a lost terminal loses at most the last
// few seconds: the same command with --resume FILE continues from it. The file is
// rewritten through a temporary file and a rename, so it is always whole, at most once per
// interval, and once more at the end.
type checkpoint struct {
	path    string
	every   time.Duration
	last    time.Time
	pending any // the latest state not yet written
	err     error
}

func newCheckpoint(path string) *checkpoint {
	if path == "" {
		return nil
	}
	return &checkpoint{path: path, every: 10 * time.Second}
}

// update takes the latest state, and writes it when the interval has passed.
func (c *checkpoint) update(state any) {
	if c == nil {
		return
	}
	c.pending = state
	if time.Since(c.last) >= c.every {
		c.write()
	}
}

// pendingState takes the final state, for flush to write.
func (c *checkpoint) pendingState(state any) {
	if c != nil {
		c.pending = state
	}
}

// flush writes the latest state if it is not written yet; it returns the first error any
// write met.
func (c *checkpoint) flush() error {
	if c == nil {
		return nil
	}
	if c.pending != nil {
		c.write()
	}
	return c.err
}

func (c *checkpoint) write() {
	c.last = time.Now()
	data, err := json.MarshalIndent(c.pending, "", "  ")
	c.pending = nil
	if err == nil {
		tmp := c.path + ".tmp"
		if err = os.WriteFile(tmp, append(data, '\n'), 0o644); err == nil {
			err = os.Rename(tmp, c.path)
		}
	}
	if err != nil && c.err == nil {
		c.err = fmt.Errorf("--checkpoint %s: %w", c.path, err)
	}
}
