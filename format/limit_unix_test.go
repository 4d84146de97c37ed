//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package format_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/ktune/ktune/format"
)

// A pipe is read (standard input, <(zcat ...)), and a read that waits on its writer ends
// when the context is done, as Ctrl-C does.
func TestOpenOfAPipeStopsWaitingWhenTheContextIsDone(t *testing.T) {
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
		w.Write([]byte(`{"cache": {`)) // a start, and then nothing until the reader gives up
		<-done
		w.Close()
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := format.OpenContext(ctx, fifo)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want the context's deadline", err)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("stopped %v after the start, the deadline was 200ms", took)
	}
}
