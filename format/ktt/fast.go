package ktt

import (
	"bytes"
	"encoding/json"
	"runtime"
	"sync"

	"github.com/ktune/ktune/format/internal/jsonio"
)

// parseFast reads a whole, well-formed KTT file: one validating pass over the top level
// finds the results, which encoding/json then decodes (numbers kept as json.Number, as
// parse decodes them) on every core at once, each a value of its own. Decoding the results
// one after another took most of the second a 6,768-result file with profiling counters
// took to read. On anything else it gives up (false), and parse reads the file and
// reports what is wrong; both give the same results (tested on testdata and by fuzzing).
func parseFast(in *jsonio.Input) (top topLevel, ok bool) {
	s := &jsonio.Scanner{Data: in.Data}
	type extent struct{ start, end int }
	var elems []extent
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
					elems = append(elems, extent{ea, eb})
				})
			default:
				s.Skip()
			}
		})
		s.End()
	})
	if !scanned {
		return topLevel{}, false
	}
	top.results = make([]rawResult, len(elems))
	failed := make([]bool, len(elems))
	next := make(chan int, len(elems))
	for i := range elems {
		next <- i
	}
	close(next)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), max(len(elems), 1)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				e := elems[i]
				dec := json.NewDecoder(bytes.NewReader(in.Data[e.start:e.end]))
				dec.UseNumber()
				if dec.Decode(&top.results[i]) != nil {
					failed[i] = true
				}
				top.results[i].offset = int64(e.start)
			}
		}()
	}
	wg.Wait()
	for _, f := range failed {
		if f {
			return topLevel{}, false
		}
	}
	return top, true
}
