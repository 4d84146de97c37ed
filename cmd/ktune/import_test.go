package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A gzip bomb and a device are refused, each named, and the other files are still
// imported; the limit is $KTUNE_MAX_RECORDING's.
func TestImportRefusesABombAndADevice(t *testing.T) {
	dir := t.TempDir()
	var bomb bytes.Buffer
	zw := gzip.NewWriter(&bomb)
	zw.Write(make([]byte, 16<<20))
	zw.Close()
	bombPath := filepath.Join(dir, "bomb.json.gz")
	if err := os.WriteFile(bombPath, bomb.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("KTUNE_MAX_RECORDING", "8MiB")
	db := filepath.Join(dir, "k.db")
	args := []string{"import", bombPath, pnpoly, "--db", db}
	if _, err := os.Stat("/dev/zero"); err == nil {
		args = append(args, "/dev/zero")
	}
	start := time.Now()
	out, errOut, code := ktune(t, args...)
	if code != 1 || !strings.Contains(errOut, bombPath+": decompresses to more than 8.0 MiB, the most ktune reads from a recording") ||
		!strings.Contains(errOut, "KTUNE_MAX_RECORDING=32.0 MiB") || !strings.Contains(out, "-> run 1") {
		t.Errorf("exit %d\n%s%s", code, out, errOut)
	}
	if len(args) > 5 && !strings.Contains(errOut, "/dev/zero: is a device or a socket, not a file") {
		t.Errorf("/dev/zero: %s", errOut)
	}
	if took := time.Since(start); took > 20*time.Second {
		t.Errorf("took %v", took)
	}
}

// Ctrl-C ends an import that waits on its input (a pipe whose writer sends nothing more).
func TestImportStopsReadingWhenInterrupted(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	done := make(chan struct{})
	defer close(done)
	go func() {
		w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		w.Write([]byte(`{"cache": {`))
		<-done
		w.Close()
	}()
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancel)
	var stdout, stderr bytes.Buffer
	start := time.Now()
	code := run(ctx, []string{"import", fifo, "--db", filepath.Join(t.TempDir(), "k.db")}, &stdout, &stderr)
	if code != 130 {
		t.Errorf("exit %d, want 130\n%s%s", code, stdout.String(), stderr.String())
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("stopped %v after the start, interrupted at 300ms", took)
	}
}

// Every command that reads recorded files reads them as import does: a device is refused
// at once, and a file past $KTUNE_MAX_RECORDING too, with its name.
func TestEveryCommandThatReadsRecordingsBoundsWhatItReads(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	dir := t.TempDir()
	big := filepath.Join(dir, "big.json")
	if err := os.WriteFile(big, bytes.Repeat([]byte(" "), 2<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("KTUNE_MAX_RECORDING", "1MiB")
	for _, cmd := range [][]string{
		{"import", "--db", filepath.Join(dir, "k.db")}, {"export", "--format", "t4"}, {"simulate"}, {"bench", "--repeats", "2"},
		{"hypertune", "--strategy", "firstmls"}, {"analyze"}, {"report", "-o", filepath.Join(dir, "r.html")}, {"space"},
	} {
		for path, want := range map[string]string{"/dev/zero": "/dev/zero: is a device or a socket, not a file", big: big + ": is larger than 1.0 MiB"} {
			start := time.Now()
			_, errOut, code := ktune(t, append([]string{cmd[0], path}, cmd[1:]...)...)
			if code == 0 || !strings.Contains(errOut, want) || time.Since(start) > 5*time.Second {
				t.Errorf("%s %s: exit %d after %v: %s", cmd[0], path, code, time.Since(start), errOut)
			}
		}
	}
}
