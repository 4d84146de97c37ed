package ktt_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/ktune/ktune/format"
	"github.com/ktune/ktune/format/internal/formattest"
	"github.com/ktune/ktune/format/ktt"
	"github.com/ktune/ktune/result"
)

// Reading a large file holds the file's bytes and the evaluations made so far, and a batch
// of decoded results besides, not every result decoded: those were held until the
// recording was built, some 2.5 KB a result, and the garbage collector let the heap grow
// to twice that (a file of 100k results peaked at ten times its size).
func TestReadHoldsTheFileAndTheEvaluationsNotEveryDecodedResult(t *testing.T) {
	const n = 20000
	var b bytes.Buffer
	if err := ktt.Write(&b, formattest.Synthetic(n)); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "large.json")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	size := int64(b.Len())
	b = bytes.Buffer{}
	var rec *result.Recording
	var err error
	peak, kept := formattest.PeakLiveHeap(func() {
		rec, err = format.Open(path) // as ktune reads a file: into a buffer of its size
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(rec.Evaluations) < n*8/10 {
		t.Fatalf("%d evaluations of %d", len(rec.Evaluations), n)
	}
	// beyond the file's bytes and the recording (what is still held after reading)
	if extra := peak - size - kept; extra > n*1000 {
		t.Errorf("reading a file of %d bytes and %d results held %d bytes at most, %d beyond the file's bytes and the %d of the recording (%d a result)",
			size, n, peak, extra, kept, extra/n)
	} else {
		t.Logf("file %d bytes, peak live %d, recording %d, beyond both %d (%d a result)", size, peak, kept, extra, extra/n)
	}
}
