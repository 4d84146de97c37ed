//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ktune/ktune/internal/testfs"
)

// export -o and report -o write into a FIFO (QA: they replaced it, and the reader got
// nothing; a device node such as /dev/null was replaced the same way), write through a
// symbolic link, and keep an existing file's mode.
func TestOutputsWriteThroughFIFOsAndLinks(t *testing.T) {
	db := storeRun(t, threeConfigs("time", false, 3, 2, 1))
	fifo, read := testfs.ReadFIFO(t)
	if _, errOut, code := ktune(t, "export", "--db", db, "--run", "1", "--format", "t4", "-o", fifo); code != 0 {
		t.Fatalf("export to a FIFO: exit %d: %s", code, errOut)
	}
	if s := read(); !strings.Contains(s, `"results"`) {
		t.Errorf("the FIFO's reader got %q", s)
	}

	fifo, read = testfs.ReadFIFO(t)
	reportArgs := []string{"report", "1", "--db", db, "--bootstrap", "0", "--graph-nodes", "0"}
	if out, errOut, code := ktune(t, append(reportArgs, "-o", fifo)...); code != 0 || !strings.Contains(out, "wrote "+fifo) {
		t.Fatalf("report to a FIFO: exit %d: %s%s", code, out, errOut)
	}
	if s := read(); !strings.HasPrefix(s, "<!DOCTYPE html>") {
		t.Errorf("the FIFO's reader got %.100q", s)
	}

	dir := t.TempDir()
	target := filepath.Join(dir, "real.json")
	if err := os.WriteFile(target, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(target, 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.json")
	if err := os.Symlink("real.json", link); err != nil {
		t.Fatal(err)
	}
	if _, errOut, code := ktune(t, "export", "--db", db, "--run", "1", "--format", "t4", "-o", link); code != 0 {
		t.Fatalf("export through a link: exit %d: %s", code, errOut)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced: %v %v", fi, err)
	}
	if b, _ := os.ReadFile(target); !strings.Contains(string(b), `"results"`) {
		t.Errorf("the link's target holds %.100q", b)
	}
	if fi, _ := os.Stat(target); fi.Mode().Perm() != 0o600 {
		t.Errorf("the target's mode is %v, was 0600", fi.Mode().Perm())
	}
	html := filepath.Join(dir, "r.html")
	if err := os.WriteFile(html, nil, 0o640); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(html, 0o640); err != nil {
		t.Fatal(err)
	}
	if _, errOut, code := ktune(t, append(reportArgs, "-o", html)...); code != 0 {
		t.Fatalf("report: exit %d: %s", code, errOut)
	}
	if fi, _ := os.Stat(html); fi.Mode().Perm() != 0o640 {
		t.Errorf("the report's mode is %v, was 0640", fi.Mode().Perm())
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 3 {
		t.Errorf("files left: %v", entries)
	}
}

// The checkpoint is written through a link and keeps its file's mode, still through a
// temporary file and a rename (whole after a crash).
func TestCheckpointThroughALink(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "real.json")
	if err := os.WriteFile(target, []byte("{}"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(target, 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "ckpt.json")
	if err := os.Symlink("real.json", link); err != nil {
		t.Fatal(err)
	}
	c := newCheckpoint(link, "bench", os.Stderr)
	c.update(map[string]int{"cells": 3})
	if err := c.flush(); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced: %v %v", fi, err)
	}
	if b, _ := os.ReadFile(target); !strings.Contains(string(b), `"cells": 3`) {
		t.Errorf("the checkpoint holds %q", b)
	}
	if fi, _ := os.Stat(target); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, was 0600", fi.Mode().Perm())
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 2 {
		t.Errorf("files left: %v", entries)
	}
}
