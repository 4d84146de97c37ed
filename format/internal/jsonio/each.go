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
// each into a zero T, as encoding/json decodes them with numbers kept as json.Number (as
// Input.Decoder keeps them), on every core, and hands them to use in order. scan, when not
// nil, decodes a value with the Scanner it is given, placed at the value, into the same T
// as encoding/json would, or gives up on the value, which encoding/json then decodes. It
// decodes a batch at a time and reuses the batch once use has seen it, so that the
// decoded values of a large file are never held all at once (a 100k-result T4 file's
// decoded results took four times the file's bytes); use must therefore not keep v itself,
// only what it points to. It stops at the first value that does not decode or that use
// refuses (false), and reports whether it got through all of them.
func DecodeEach[T any](data []byte, extents []Extent, scan func(*Scanner, *T), use func(i int, v *T) bool) bool {
	if len(extents) == 0 {
		return true
	}
	batch := make([]T, min(eachBatch, len(extents)))
	failed := make([]bool, len(batch))
	workers := min(runtime.GOMAXPROCS(0), len(batch))
	scanners := make([]Scanner, workers) // one each, for the names it interns
	for from := 0; from < len(extents); from += len(batch) {
		n := min(len(batch), len(extents)-from)
		clear(batch)
		var wg sync.WaitGroup
		for w := range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				s := &scanners[w]
				for k := w; k < n; k += workers {
					failed[k] = !decodeOne(data, extents[from+k], s, scan, &batch[k])
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

// decodeOne decodes the value at e into the zero *v with scan, or when that gives up (or
// is nil), with encoding/json; false when encoding/json fails too.
func decodeOne[T any](data []byte, e Extent, s *Scanner, scan func(*Scanner, *T), v *T) bool {
	if scan != nil {
		// what a value given up on left in the scanner goes with it
		s.Data, s.I, s.depth = data[:e.End], e.Start, 0
		clear(s.members)
		s.members = s.members[:0]
		if Scan(func() { scan(s, v); s.End() }) {
			return true
		}
		var zero T
		*v = zero
	}
	dec := json.NewDecoder(bytes.NewReader(data[e.Start:e.End]))
	dec.UseNumber()
	return dec.Decode(v) == nil
}
