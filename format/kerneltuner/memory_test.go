package kerneltuner_test

import (
	"testing"

	"github.com/ktune/ktune/format/internal/formattest"
	"github.com/ktune/ktune/format/kerneltuner"
)

// Reading a large cache holds the file's bytes and the evaluations made so far, and one
// entry's fields besides, not every entry's fields: those were held until the first
// evaluation was built, some 1.2 KB an entry of 21 fields, and the garbage collector let
// the heap grow to twice what reading held.
func TestReadHoldsTheFileAndTheEvaluationsNotEveryEntrysFields(t *testing.T) {
	const n = 20000
	// beyond the file and the recording: the entries' places and the key index, 100-200
	// bytes an entry (1.4 KB before)
	formattest.ReadHolds(t, kerneltuner.Write, n, n, 600)
}
