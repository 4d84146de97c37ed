package ktt

import (
	"bytes"
	"encoding/json"

	"github.com/ktune/ktune/format/internal/jsonio"
	"github.com/ktune/ktune/result"
)

// readFast reads a whole, well-formed KTT file that reads without an error: one
// validating pass over the top level finds the metadata and each result, which scanResult
// (or, for what it gives up on, encoding/json) then decodes on every core at once, each a
// value of its own, a batch at a time, each result made an evaluation and let go before the
// next batch. Decoding the results one after another took most of the second a
// 6,768-result file with profiling counters took to read; holding them all decoded took
// four times the file's bytes. On anything else, an error included, it gives up (false),
// and parse reads the file and reports what is wrong; both give the same recordings
// (tested on testdata and by fuzzing).
func readFast(in *jsonio.Input) (*result.Recording, bool) {
	s := &jsonio.Scanner{Data: in.Data}
	var top topLevel
	var elems []jsonio.Extent
	scanned := jsonio.Scan(func() {
		s.Object(func(a, b int) {
			var key string
			if json.Unmarshal(s.Data[a:b], &key) != nil {
				s.Fail()
			}
			switch key {
			case "Metadata":
				va, vb := s.Skip()
				top.metaOff = int64(va)
				dec := json.NewDecoder(bytes.NewReader(s.Data[va:vb]))
				dec.UseNumber()
				if dec.Decode(&top.meta) != nil {
					s.Fail()
				}
			case "Results":
				if top.haveResults {
					s.Fail() // twice: parse decodes (and checks) both
				}
				top.haveResults = true
				s.Array(func() {
					ea, eb := s.Skip()
					elems = append(elems, jsonio.Extent{Start: ea, End: eb})
				})
			default:
				s.Skip()
			}
		})
		s.End()
	})
	if !scanned {
		return nil, false
	}
	unit, err := top.check(in)
	if err != nil {
		return nil, false
	}
	var b *builder
	ok := jsonio.DecodeEach(in.Data, elems, scanResult, func(i int, r *rawResult) bool {
		r.offset = int64(elems[i].Start)
		if i == 0 {
			if b, err = newBuilder(in, top.meta, unit, r, len(elems)); err != nil {
				return false
			}
		}
		return b.add(r, i) == nil
	})
	if !ok {
		return nil, false
	}
	if b == nil {
		if b, err = newBuilder(in, top.meta, unit, nil, 0); err != nil {
			return nil, false
		}
	}
	return b.finish(), true
}
