//go:build unix

package testfs

import (
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// ReadFIFO makes a FIFO named "pipe" in a temporary folder and reads it whole in a
// goroutine. The function it returns waits for what was read (failing the test after 30
// s) and checks that the FIFO is still one, not replaced by a file.
func ReadFIFO(t testing.TB) (string, func() string) {
	t.Helper()
	fifo := filepath.Join(t.TempDir(), "pipe")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("mkfifo:", err)
	}
	got := make(chan string, 1)
	go func() {
		f, err := os.Open(fifo)
		if err != nil {
			got <- "open: " + err.Error()
			return
		}
		defer f.Close()
		b, _ := io.ReadAll(f)
		got <- string(b)
	}()
	return fifo, func() string {
		t.Helper()
		select {
		case s := <-got:
			if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
				t.Errorf("the FIFO was replaced: %v %v", fi, err)
			}
			return s
		case <-time.After(30 * time.Second):
			t.Fatal("the FIFO's reader got nothing")
			return ""
		}
	}
}
