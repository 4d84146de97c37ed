package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ktune/ktune/benchmark"
	"github.com/ktune/ktune/simulator"
)

// A cell that finishes within the interval of the last write reaches the checkpoint when
// the interval has passed, though no other cell finishes after it: before, it waited for
// the next cell, so a long or stuck cell kept the finished ones out of the file, and a
// kill lost them.
func TestCheckpointWritesAFinishedCellWithinItsInterval(t *testing.T) {
	spaces, err := loadSpaces([]string{pnpoly}, simulator.Recorded, simulator.Deterministic, os.Stderr, "bench")
	if err != nil {
		t.Fatal(err)
	}
	cells, err := benchmark.Run(context.Background(), benchmark.Config{Strategies: []benchmark.Strategy{{Name: "random"}},
		Spaces: spaces, Budgets: []int{10, 20}, Repeats: 2, Seed: 1})
	if err != nil || len(cells) != 2 {
		t.Fatalf("%d cells, %v", len(cells), err)
	}
	path := filepath.Join(t.TempDir(), "ckpt.json")
	held := func() int {
		t.Helper()
		var f struct {
			Cells []benchmark.Cell `json:"cells"`
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(data, &f); err != nil {
			t.Fatal(err)
		}
		return len(f.Cells)
	}
	state := func(n int) any {
		return struct {
			Cells []benchmark.Cell `json:"cells"`
		}{cells[:n]}
	}
	c := newCheckpoint(path)
	c.every = 200 * time.Millisecond
	c.update(state(1)) // the first cell: written at once
	if n := held(); n != 1 {
		t.Fatalf("the checkpoint holds %d cells after the first, want 1", n)
	}
	start := time.Now()
	c.update(state(2)) // within the interval: held back, then written by the timer
	for held() != 2 {
		if time.Since(start) > 5*time.Second {
			t.Fatalf("the second cell is not in the checkpoint %v after it finished (interval %v)", time.Since(start).Round(time.Millisecond), c.every)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := c.flush(); err != nil || held() != 2 {
		t.Fatalf("flush: %v, %d cells", err, held())
	}
}
