package formattest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"testing"

	"github.com/ktune/ktune/format/internal/jsonio"
)

// ScanAgrees checks a reader's Scanner-based decoding of one JSON value against
// encoding/json's (with UseNumber, as the readers decode): scanned says whether scan
// decoded data by itself, and err how the two differ when it did (nil when they agree).
// data that is not one JSON value is left to encoding/json alone (scanned false).
func ScanAgrees[T any](data []byte, scan func(*jsonio.Scanner, *T)) (scanned bool, err error) {
	if !json.Valid(data) {
		return false, nil
	}
	var got T
	s := &jsonio.Scanner{Data: data}
	if !jsonio.Scan(func() { scan(s, &got); s.End() }) {
		return false, nil
	}
	var want T
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if derr := dec.Decode(&want); derr != nil {
		return true, fmt.Errorf("the scanner decoded what encoding/json refuses (%v): %#v", derr, got)
	}
	if !reflect.DeepEqual(got, want) {
		return true, fmt.Errorf("the scanner decoded\n%#v\nencoding/json\n%#v", got, want)
	}
	return true, nil
}

// BenchmarkScan times scan over the elements of the array that is the top-level member key
// of the JSON file at path, one after another on one goroutine: the part of a fast
// reader's work that its Scanner-based decoding does, apart from the rest.
func BenchmarkScan[T any](b *testing.B, path, key string, scan func(*jsonio.Scanner, *T)) {
	elems, err := Elements(path, key)
	if err != nil {
		b.Fatal(err)
	}
	s := &jsonio.Scanner{}
	for b.Loop() {
		for i, e := range elems {
			var v T
			s.Data, s.I = e, 0
			if !jsonio.Scan(func() { scan(s, &v); s.End() }) {
				b.Fatalf("%s: element %d of %s: the scanner gave up", path, i, key)
			}
		}
	}
}

// Elements returns the elements of the array that is the top-level member key of a JSON
// file (gzip or plain), each as it is written in the file.
func Elements(path, key string) ([]json.RawMessage, error) {
	data, err := readMaybeGzip(path)
	if err != nil {
		return nil, err
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var elems []json.RawMessage
	if err := json.Unmarshal(top[key], &elems); err != nil {
		return nil, fmt.Errorf("%s: %s: %w", path, key, err)
	}
	return elems, nil
}
