// Package format imports and exports recordings in the file formats of other auto-tuners
// (Kernel Tuner caches, T4 results, KTT output).
//
// Formats register themselves in the database/sql style: each format package calls
// Register from its init function, and this package never imports them, so that they can
// import it without an import cycle. A program that wants every format blank-imports
// github.com/ktune/ktune/format/all; Open then detects a file's format from its content.
package format

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"sync"

	"github.com/ktune/ktune/result"
)

// Format describes one registered file format.
type Format struct {
	// Name identifies the format ("kerneltuner", "t4", "ktt"); it is what Recording.Format holds.
	Name string
	// Sniff reports whether data, a file's complete content after decompression, is in this
	// format. It must be cheap (no full decode) and must not claim files of other formats.
	Sniff func(data []byte) bool
	// Looks says, for errors, what Sniff looks for ("top-level tune_params and cache").
	Looks string
	// Read decodes a recording; it accepts gzip-compressed and plain input.
	Read func(r io.Reader, source string) (*result.Recording, error)
	// Write encodes a recording; nil for formats ktune only imports.
	Write func(w io.Writer, rec *result.Recording) error
}

var (
	mu      sync.RWMutex
	formats = map[string]Format{}
)

// Register makes a format available to Open, Read, Lookup and Formats. It panics when the
// name is empty or taken, or Sniff or Read is nil, because those are programming errors
// that must show up at start-up, not when a user opens a file.
func Register(f Format) {
	mu.Lock()
	defer mu.Unlock()
	switch {
	case f.Name == "":
		panic("format: Register with an empty name")
	case f.Sniff == nil || f.Read == nil:
		panic("format: Register " + f.Name + " without Sniff or Read")
	}
	if _, dup := formats[f.Name]; dup {
		panic("format: Register called twice for " + f.Name)
	}
	formats[f.Name] = f
}

// Formats returns the registered formats sorted by name, so that detection and listings
// are deterministic.
func Formats() []Format {
	mu.RLock()
	defer mu.RUnlock()
	out := make([]Format, 0, len(formats))
	for _, f := range formats {
		out = append(out, f)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Lookup returns the registered format with the given name.
func Lookup(name string) (Format, bool) {
	mu.RLock()
	defer mu.RUnlock()
	f, ok := formats[name]
	return f, ok
}

// Open reads the recording in the file at path, detecting its format from the content.
func Open(path string) (*result.Recording, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Read(f, path)
}

// Read reads a recording from r, detecting the format from the content; source names the
// input in errors and in Recording.Source. A configuration measured more than once keeps
// its last measurement (Recording.KeepLast), and a time of zero or less counts as a
// runtime error (Recording.RejectNonPositiveTimes).
func Read(r io.Reader, source string) (*result.Recording, error) {
	data, err := ReadAll(r, source)
	cut := err // a truncated gzip stream, read as far as it goes
	if err != nil && (!errors.Is(err, io.ErrUnexpectedEOF) || len(data) == 0) {
		return nil, err
	}
	f, err := Detect(data, source)
	if err != nil {
		if cut != nil {
			return nil, cut
		}
		return nil, err
	}
	rec, err := f.Read(bytes.NewReader(data), source)
	if err != nil {
		if cut != nil {
			return nil, fmt.Errorf("%w (what it holds before the cut does not read either: %v)", cut, err)
		}
		return nil, err
	}
	if cut != nil {
		rec.Warnings = append([]string{cut.Error() + "; read up to there"}, rec.Warnings...)
	}
	rec.KeepLast()
	rec.RejectNonPositiveTimes()
	return rec, nil
}

// ErrUnknown is what Detect's error wraps when no registered format claims a file.
var ErrUnknown = errors.New("unknown file format")

// Detect returns the first registered format (by name) whose Sniff accepts data, the
// decompressed content of source; the error names source and the formats tried.
func Detect(data []byte, source string) (Format, error) {
	all := Formats()
	names := make([]string, len(all))
	for i, f := range all {
		if f.Sniff(data) {
			return f, nil
		}
		names[i] = f.Name
	}
	if len(all) == 0 {
		return Format{}, fmt.Errorf("%s: cannot detect the format: no formats are registered (import github.com/ktune/ktune/format/all)", source)
	}
	var want []string
	for _, f := range all {
		if f.Looks != "" {
			want = append(want, f.Name+": "+f.Looks)
		}
	}
	hint := ""
	if len(want) > 0 {
		hint = " (" + strings.Join(want, "; ") + ")"
	}
	return Format{}, fmt.Errorf("%s: %w: %s; tried %s%s", source, ErrUnknown, describe(data), strings.Join(names, ", "), hint)
}

// describe says what data is, for a file no format claims: empty, not JSON, JSON broken
// at a line and column, or the top-level keys it has.
func describe(data []byte) string {
	t := bytes.TrimSpace(data)
	if len(t) == 0 {
		return "the file is empty"
	}
	if t[0] != '{' && t[0] != '[' {
		return fmt.Sprintf("not JSON (it starts with %q)", string(t[:min(len(t), 16)]))
	}
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			if int(se.Offset) >= len(data) {
				return fmt.Sprintf("not valid JSON: it ends inside a value after %d bytes (a file cut short?)", len(data))
			}
			at := max(int(se.Offset)-1, 0) // Offset counts the offending byte
			line := 1 + bytes.Count(data[:at], []byte("\n"))
			col := at - bytes.LastIndexByte(data[:at], '\n')
			return fmt.Sprintf("not valid JSON: %v at line %d, column %d", se, line, col)
		}
		return "not valid JSON: " + err.Error()
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return "JSON whose top level is not an object"
	}
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if len(keys) == 0 {
		return "an empty JSON object"
	}
	if len(keys) > 8 {
		keys = append(keys[:8], "...")
	}
	return "a JSON object with the top-level keys " + strings.Join(keys, ", ")
}

// ReadAll reads all of r and transparently decompresses gzip input (detected by the magic
// bytes 1f 8b, not the file name, because recorded files are often renamed or piped).
func ReadAll(r io.Reader, source string) ([]byte, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", source, err)
	}
	if !IsGzip(data) {
		return data, nil
	}
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("%s: gzip: %w", source, err)
	}
	// The gzip trailer's last four bytes hold the uncompressed size (modulo 2^32, of the
	// last member): a hint that spares the repeated growth of io.ReadAll's buffer (tens
	// of megabytes for a recorded space). A corrupt trailer must not make us allocate
	// gigabytes, so it is trusted only within the ratios JSON compresses at (under 256)
	// and up to 1 GiB; beyond, the buffer grows as the content comes.
	hint := 512
	if n := len(data); n >= 18 {
		size := int(binary.LittleEndian.Uint32(data[n-4:]))
		if size >= n/2 && size <= 256*n && size <= 1<<30 {
			hint = size + 1 // one more byte, so the final read sees EOF without growing
		}
	}
	out, err := readAllInto(zr, make([]byte, 0, hint))
	if err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) {
			// What came out before the cut is returned too: Read reads it as it reads an
			// interrupted recording (a cache copied while Kernel Tuner still wrote it).
			return out, fmt.Errorf("%s: gzip stream truncated after %d decompressed bytes: %w", source, len(out), err)
		}
		return nil, fmt.Errorf("%s: gzip, after %d decompressed bytes: %w", source, len(out), err)
	}
	return out, nil
}

// readAllInto appends all of r to buf, growing it only when full.
func readAllInto(r io.Reader, buf []byte) ([]byte, error) {
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
	}
}

// IsGzip reports whether data starts with the gzip magic bytes.
func IsGzip(data []byte) bool { return len(data) >= 2 && data[0] == 0x1f && data[1] == 0x8b }

// Error is a problem in an input file, located as precisely as the reader could.
type Error struct {
	Source string // file name or other reference to the input
	Offset int64  // byte offset in the (decompressed) content; -1 when unknown
	Line   int    // 1-based line of Offset; 0 when unknown
	Column int    // 1-based column (in bytes) of Offset; 0 when unknown
	Err    error  // the problem
}

// Error formats the problem as "source:line:column (byte N): problem", the form editors and
// terminals turn into links.
func (e *Error) Error() string {
	switch {
	case e.Line > 0:
		return fmt.Sprintf("%s:%d:%d (byte %d): %v", e.Source, e.Line, e.Column, e.Offset, e.Err)
	case e.Offset >= 0:
		return fmt.Sprintf("%s: byte %d: %v", e.Source, e.Offset, e.Err)
	}
	return fmt.Sprintf("%s: %v", e.Source, e.Err)
}

// Unwrap returns the underlying problem, so errors.Is sees io.ErrUnexpectedEOF and the like.
func (e *Error) Unwrap() error { return e.Err }

// Position returns the 1-based line and byte column of offset in data (clamped to data).
func Position(data []byte, offset int64) (line, col int) {
	if offset < 0 {
		return 0, 0
	}
	if offset > int64(len(data)) {
		offset = int64(len(data))
	}
	before := data[:offset]
	line = bytes.Count(before, []byte{'\n'}) + 1
	col = int(offset) - (bytes.LastIndexByte(before, '\n') + 1) + 1
	return line, col
}
