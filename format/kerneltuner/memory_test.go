package kerneltuner_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/ktune/ktune/format"
	"github.com/ktune/ktune/format/internal/formattest"
	"github.com/ktune/ktune/format/kerneltuner"
	"github.com/ktune/ktune/result"
)

// Reading a large cache holds the file's bytes and the evaluations made so far, and one
// entry's fields besides, not every entry's fields: those were held until the first
// evaluation was built, some 1.2 KB an entry of 21 fields, and the garbage collector let
// the heap grow to twice what reading held.
func TestReadHoldsTheFileAndTheEvaluationsNotEveryEntrysFields(t *testing.T) {
	const n = 20000
	var b bytes.Buffer
	if err := kerneltuner.Write(&b, formattest.Synthetic(n)); err != nil {
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
	if len(rec.Evaluations) != n {
		t.Fatalf("%d evaluations of %d", len(rec.Evaluations), n)
	}
	// beyond the file's bytes and the recording (what is still held after reading): the
	// entries' places and the key index, 100-200 bytes an entry (1.4 KB before)
	if extra := peak - size - kept; extra > n*600 {
		t.Errorf("reading a file of %d bytes and %d entries held %d bytes at most, %d beyond the file's bytes and the %d of the recording (%d an entry)",
			size, n, peak, extra, kept, extra/n)
	} else {
		t.Logf("file %d bytes, peak live %d, recording %d, beyond both %d (%d an entry)", size, peak, kept, extra, extra/n)
	}
}
