package t4

import (
	"bytes"
	"encoding/json"

	"github.com/ktune/ktune/format/internal/jsonio"
	"github.com/ktune/ktune/result"
)

// readFast reads a whole, well-formed T4 file that reads without an error: one validating
// pass over the top level finds the metadata and each result, and the results are then
// decoded (on every core) and made evaluations a batch at a time, so that what is held
// is the file's bytes and the evaluations, not every result's decoded tree besides (which
// took four times the file's bytes, holding a 66 MB file peaked at ten times its size).
// On anything else, an error included, it gives up (false), and parse reads the file
// and says what is wrong; both give the same recordings (tested on testdata and by
// fuzzing).
func readFast(in *jsonio.Input) (*result.Recording, bool) {
	s := &jsonio.Scanner{Data: in.Data}
	var meta metadata
	var metaOff int64 = -1
	var elems []jsonio.Extent
	haveResults := false
	scanned := jsonio.Scan(func() {
		s.Object(func(a, b int) {
			var key string
			if json.Unmarshal(s.Data[a:b], &key) != nil {
				s.Fail()
			}
			switch key {
			case "metadata":
				// each in turn, into the same metadata, as parse decodes them
				va, vb := s.Skip()
				metaOff = int64(b)
				if decodeMetadata(valueDecoder(s.Data[va:vb]), &meta) != nil {
					s.Fail()
				}
			case "results":
				if haveResults {
					s.Fail() // twice: parse decodes (and checks) both
				}
				haveResults = true
				s.Array(func() {
					ea, eb := s.Skip()
					elems = append(elems, jsonio.Extent{Start: ea, End: eb})
				})
			case "schema_version":
				va, vb := s.Skip()
				var v any
				if valueDecoder(s.Data[va:vb]).Decode(&v) != nil || !supported(v) {
					s.Fail()
				}
			default:
				s.Skip()
			}
		})
		s.End()
	})
	if !scanned || !haveResults {
		return nil, false
	}
	var b *builder
	ok := jsonio.DecodeEach(in.Data, elems, scanResult, func(i int, r *rawResult) bool {
		r.offset = int64(elems[i].Start)
		if i == 0 {
			var err error
			if b, err = newBuilder(in, &meta, metaOff, r, len(elems)); err != nil {
				return false
			}
		}
		return b.add(r, i) == nil
	})
	if !ok {
		return nil, false
	}
	if b == nil {
		var err error
		if b, err = newBuilder(in, &meta, metaOff, nil, 0); err != nil {
			return nil, false
		}
	}
	return b.finish(), true
}

// valueDecoder decodes one value, numbers kept as json.Number as Input.Decoder keeps them.
func valueDecoder(value []byte) *json.Decoder {
	dec := json.NewDecoder(bytes.NewReader(value))
	dec.UseNumber()
	return dec
}
