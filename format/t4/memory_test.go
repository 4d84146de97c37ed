package t4_test

import (
	"testing"

	"github.com/ktune/ktune/format/internal/formattest"
	"github.com/ktune/ktune/format/t4"
)

// Reading a large file holds the file's bytes and the evaluations made so far, and a batch
// of decoded results besides, not every result decoded: those were held until the
// recording was built, some 2.5 KB a result, and the garbage collector let the heap grow
// to twice that (a file of 100k results peaked at ten times its size).
func TestReadHoldsTheFileAndTheEvaluationsNotEveryDecodedResult(t *testing.T) {
	const n = 20000
	formattest.ReadHolds(t, t4.Write, n, n*8/10, 1000)
}
