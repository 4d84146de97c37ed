package jsonio

import (
	"bytes"
	"encoding/json"
	"runtime"
	"sync"
)

// Extent is where a value lies in content: Data[Start:End].
type Extent struct{ Start, End int }

// eachBatch is how many values DecodeEach decodes at once: enough for every core to have
// a share worth starting, few enough that one batch's decoded values are a small part of
// what reading a large file holds.
const eachBatch = 1024

// DecodeEach decodes the values of data at extents (found by a Scanner, so valid JSON)
// each into a zero T with encoding/json, numbers kept as json.Number as Input.Decoder keeps
// them, on every core, and hands them to use in order. It decodes a batch at a time and
// reuses the batch once use has seen it, so that the decoded values of a large file are
// never held all at once (a 100k-result T4 file's decoded results took four times the
// file's bytes); use must therefore not keep v itself, only what it points to. It stops at
// the first value that does not decode or that use refuses (false), and reports whether it
// got through all of them.
func DecodeEach[T any](data []byte, extents []Extent, use func(i int, v *T) bool) bool {
	if len(extents) == 0 {
		return true
	}
	batch := make([]T, min(eachBatch, len(extents)))
	failed := make([]bool, len(batch))
	workers := min(runtime.GOMAXPROCS(0), len(batch))
	for from := 0; from < len(extents); from += len(batch) {
		n := min(len(batch), len(extents)-from)
		clear(batch)
		var wg sync.WaitGroup
		for w := range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for k := w; k < n; k += workers {
					e := extents[from+k]
					dec := json.NewDecoder(bytes.NewReader(data[e.Start:e.End]))
					dec.UseNumber()
					failed[k] = dec.Decode(&batch[k]) != nil
				}
			}()
		}
		wg.Wait()
		for k := range n {
			if failed[k] || !use(from+k, &batch[k]) {
				return false
			}
		}
	}
	return true
}
