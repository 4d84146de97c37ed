package ktt_test

import (
	"testing"

	"github.com/ktune/ktune/format/internal/formattest"
	"github.com/ktune/ktune/format/ktt"
)

// Reading a large file holds the file's bytes and the evaluations made so far, and a batch
// of decoded results besides, not every result decoded: those were held until the
// recording was built, some 1.7 KB a result, and the garbage collector let the heap grow
// to twice that. KTT output leaves out the restricted configurations, hence fewer
// evaluations than written.
func TestReadHoldsTheFileAndTheEvaluationsNotEveryDecodedResult(t *testing.T) {
	const n = 20000
	formattest.ReadHolds(t, ktt.Write, n, n*8/10, 1000)
}
