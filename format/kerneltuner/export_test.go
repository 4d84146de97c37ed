package kerneltuner

import (
	"io"

	"github.com/ktune/ktune/format/internal/jsonio"
	"github.com/ktune/ktune/result"
)

// ReadWithDecoder is Read by the decoder-based reader alone, to check the fast one
// against.
func ReadWithDecoder(r io.Reader, source string) (*result.Recording, error) {
	in, err := jsonio.Load(r, source)
	if err != nil {
		return nil, err
	}
	var h header
	entries, warning, err := parse(in, &h)
	if err != nil {
		return nil, err
	}
	rec, err := build(in, &h, entries)
	if err != nil {
		return nil, err
	}
	if warning != "" {
		rec.Warnings = append([]string{warning}, rec.Warnings...)
	}
	return rec, nil
}

// ReadsFast reports whether the fast reader reads r by itself.
func ReadsFast(r io.Reader) bool {
	in, err := jsonio.Load(r, "x")
	if err != nil {
		return false
	}
	_, ok := parseFast(in, &header{})
	return ok
}
