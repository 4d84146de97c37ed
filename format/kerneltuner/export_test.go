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
	return read(in, false)
}

// ReadsFast reports whether the fast reader reads r by itself.
func ReadsFast(r io.Reader) bool {
	in, err := jsonio.Load(r, "x")
	if err != nil {
		return false
	}
	_, ok, _ := readFast(in)
	return ok
}
