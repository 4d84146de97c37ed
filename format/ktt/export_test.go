package ktt

import (
	"io"

	"github.com/ktune/ktune/format/internal/jsonio"
	"github.com/ktune/ktune/result"
)

// ReadWithDecoder is Read by the decoder-based parse alone, to check readFast against.
func ReadWithDecoder(r io.Reader, source string) (*result.Recording, error) {
	in, err := jsonio.Load(r, source)
	if err != nil {
		return nil, err
	}
	return read(in, false)
}

// ReadsFast reports whether readFast reads r by itself.
func ReadsFast(r io.Reader) bool {
	in, err := jsonio.Load(r, "x")
	if err != nil {
		return false
	}
	_, ok := readFast(in)
	return ok
}
