package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
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
// A write that fails (a full disk) leaves the file as it was and is said at once, the
// first time, on warn: the run goes on, and the latest state is tried again at the next
// write; flush says whether the last one was written.
type checkpoint struct {
	path  string
	every time.Duration
	cmd   string    // the command, for the warning
	warn  io.Writer // where a failing write is said

	mu      sync.Mutex
	last    time.Time
	pending any         // the latest state not yet written
	timer   *time.Timer // set while a write of pending is scheduled
	failing error       // the error of the last write; nil when it succeeded
	warned  bool        // a failing write was said
}

func newCheckpoint(path, cmd string, warn io.Writer) *checkpoint {
	if path == "" {
		return nil
	}
	return &checkpoint{path: path, every: 10 * time.Second, cmd: cmd, warn: warn}
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
// the error of the last write, nil when the latest state is in the file (an earlier write
// that failed does not count once a later one succeeded).
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
	return c.failing
}

// writeLocked writes the pending state. One that fails stays pending, to be tried again
// at the next write; the first failure is said at once, as a run of hours would otherwise
// learn only at its end that a crash would have lost it all.
func (c *checkpoint) writeLocked() {
	c.last = time.Now()
	data, err := json.MarshalIndent(c.pending, "", "  ")
	if err == nil {
		err = writeFile(c.path, func(w io.Writer) error {
			_, err := w.Write(append(data, '\n'))
			return err
		})
	}
	if err == nil {
		if c.failing != nil {
			fmt.Fprintf(c.warn, "%sktune %s: --checkpoint %s is written again\n", clearLine(c.warn), c.cmd, c.path)
		}
		c.pending, c.failing = nil, nil
		return
	}
	c.failing = fmt.Errorf("--checkpoint %s: %w", c.path, outfile.Cause(err, c.path))
	if !c.warned {
		c.warned = true
		held := c.path + " keeps what it held"
		if _, err := os.Stat(c.path); errors.Is(err, fs.ErrNotExist) {
			held = "there is none yet"
		}
		fmt.Fprintf(c.warn, "%sktune %s: warning: %v; the run goes on without a checkpoint (%s) and tries again as cells finish\n",
			clearLine(c.warn), c.cmd, c.failing, held)
	}
}

// clearLine returns what clears a progress line on w before a message: the line is on a
// terminal only.
func clearLine(w io.Writer) string {
	if isTerminal(w) {
		return "\r\x1b[K"
	}
	return ""
}

// heldCells refuses a --checkpoint file that holds finished cells (an earlier run's
// checkpoint or --json output) unless it is the --resume file: this run would write over
// them with its own first cell, and a run forgetting --resume, or the same command started
// a second time beside the first, would lose every cell the file kept. A file that holds
// no cells (none, empty, anything else) is written as before.
func heldCells(cmd, checkpoint, resume string) error {
	if checkpoint == "" || resume != "" && sameFile(checkpoint, resume) {
		return nil
	}
	data, err := os.ReadFile(checkpoint)
	if err != nil {
		return nil // none yet, or unreadable: writing it says what is wrong
	}
	var f struct {
		Cells []json.RawMessage `json:"cells"`
	}
	if json.Unmarshal(data, &f) != nil || len(f.Cells) == 0 {
		return nil
	}
	return fmt.Errorf("--checkpoint %s holds %d finished cells of an earlier 'ktune %s' (its checkpoint or --json output), which this run would write over: "+
		"add --resume %s to go on from them, or give --checkpoint another file (or delete this one to run every cell again)", checkpoint, len(f.Cells), cmd, checkpoint)
}

// lockCheckpoint holds the --checkpoint file at path for this process until the lock is
// released (outfile.Lock): a second 'ktune cmd' writing the same file, started beside the
// first (both at once, before either had written it), would write its cells over the
// first's and lose them in turn; it is refused at once. A lock file that cannot be made
// (a folder that cannot be written) holds nothing: the run goes on, and the checkpoint's
// writes say what is wrong there.
func lockCheckpoint(cmd, path string, log *slog.Logger) (*outfile.FileLock, error) {
	l, err := outfile.Lock(path)
	switch {
	case errors.Is(err, outfile.ErrHeld):
		return nil, fmt.Errorf("--checkpoint %s: %w: wait for it to end (then --resume %s goes on from its cells), or give --checkpoint another file", path, err, path)
	case err != nil:
		log.Debug("the checkpoint is not locked against a second writer", "checkpoint", path, "error", err)
		return nil, nil
	}
	return l, nil
}
