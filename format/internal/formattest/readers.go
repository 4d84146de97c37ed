package formattest

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/ktune/ktune/format"
	"github.com/ktune/ktune/result"
)

// Codec is a format's two readers and its writer: the fast reader (Read), the
// decoder-based one it must agree with (ReadWithDecoder), and Write.
type Codec struct {
	Read, ReadWithDecoder func(r io.Reader, source string) (*result.Recording, error)
	Write                 func(w io.Writer, rec *result.Recording) error
}

// Disagree reads data with both of c's readers and says how they disagree: "" when they
// give the same recording and warnings, or the same error. rec is what the fast reader
// read, nil where it refused data.
func (c Codec) Disagree(data []byte, source string) (rec *result.Recording, disagreement string) {
	rec, err := c.Read(bytes.NewReader(data), source)
	slow, serr := c.ReadWithDecoder(bytes.NewReader(data), source)
	switch {
	case (err == nil) != (serr == nil) || err != nil && err.Error() != serr.Error():
		return rec, fmt.Sprintf("Read: %v; the decoder-based reader: %v", err, serr)
	case err == nil:
		if d := Diff(slow, rec); d != "" || !slices.Equal(slow.Warnings, rec.Warnings) {
			return rec, fmt.Sprintf("the readers differ:\n%s\n%q\n%q", d, slow.Warnings, rec.Warnings)
		}
	}
	if err != nil {
		return nil, ""
	}
	return rec, ""
}

// RoundTrip writes rec with c's writer and reads it back with its fast reader, and says
// what went wrong: "" when what it read back is rec.
func (c Codec) RoundTrip(rec *result.Recording) string {
	var b bytes.Buffer
	if err := c.Write(&b, rec); err != nil {
		return fmt.Sprintf("Write of a recording Read accepted: %v", err)
	}
	back, err := c.Read(bytes.NewReader(b.Bytes()), "fuzz.json")
	if err != nil {
		return fmt.Sprintf("Read of what Write wrote: %v\n%s", err, b.String())
	}
	if d := Diff(rec, back); d != "" {
		return fmt.Sprintf("round trip differs:\n%s\n%s", d, b.String())
	}
	return ""
}

// Fuzz adds each seed to f's corpus as it is and gzipped (the readers take both), and
// fuzzes c: its two readers agree on every input, and what they accept Write writes and
// Read reads back the same. check, where not nil, looks at each accepted recording too.
func (c Codec) Fuzz(f *testing.F, seeds []string, check func(t *testing.T, rec *result.Recording)) {
	for _, s := range seeds {
		f.Add([]byte(s))
		var b bytes.Buffer
		zw := gzip.NewWriter(&b)
		zw.Write([]byte(s))
		zw.Close()
		f.Add(b.Bytes())
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		rec, d := c.Disagree(data, "fuzz.json")
		if d != "" {
			t.Fatal(d)
		}
		if rec == nil {
			return
		}
		if check != nil {
			check(t, rec)
		}
		if d := c.RoundTrip(rec); d != "" {
			t.Fatal(d)
		}
	})
}

// BenchmarkRead reads the file at path with c's fast reader and with its decoder-based one
// alone, as sub-benchmarks fast and decoder, for the ratio between them.
func (c Codec) BenchmarkRead(b *testing.B, path string) {
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	for _, r := range []struct {
		name string
		read func(io.Reader, string) (*result.Recording, error)
	}{{"fast", c.Read}, {"decoder", c.ReadWithDecoder}} {
		b.Run(r.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := r.read(bytes.NewReader(data), "bench"); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// Refused checks that err, a reader's answer to a bad file, is a *format.Error and says
// each of want.
func Refused(t *testing.T, err error, want []string) {
	t.Helper()
	if err == nil {
		t.Fatal("no error")
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q lacks %q", err, w)
		}
	}
	var fe *format.Error
	if !errors.As(err, &fe) {
		t.Errorf("error %T is not a *format.Error", err)
	}
}

// ReadWithEach reads the file at path with each of c's readers, failing t where one
// refuses it, and returns the two recordings, the fast reader's first.
func (c Codec) ReadWithEach(t *testing.T, path string) []*result.Recording {
	t.Helper()
	var recs []*result.Recording
	for _, read := range []func(io.Reader, string) (*result.Recording, error){c.Read, c.ReadWithDecoder} {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		rec, err := read(f, path)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		recs = append(recs, rec)
	}
	return recs
}
