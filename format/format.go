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
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/ktune/ktune/result"
	"github.com/ktune/ktune/space"
)

// Format describes one registered file format.
type Format struct {
	// Name identifies the format ("kerneltuner", "t4", "ktt"); it is what Recording.Format holds.
	Name string
	// Sniff reports whether data, a file's complete content after decompression, is in this
	// format. It must be cheap (no full decode) and must not claim files of other formats.
	Sniff func(data []byte) bool
	// SniffKeys, for a format told by the names of a JSON object's top-level members, is
	// Sniff of those names (nil when the content is no JSON object): Detect lists them once
	// for every format that has it, where each Sniff would scan the whole content again.
	// A format gives Sniff or SniffKeys; Detect uses SniffKeys when it has both.
	SniffKeys func(keys []string) bool
	// Looks says, for errors, what Sniff looks for ("top-level tune_params and cache").
	Looks string
	// Read decodes a recording; it accepts gzip-compressed and plain input.
	Read func(r io.Reader, source string) (*result.Recording, error)
	// Write encodes a recording; nil for formats ktune only imports.
	Write func(w io.Writer, rec *result.Recording) error
	// Losses says what Write leaves out of a recording because the format has no place
	// for it, each as a phrase ("the problem size [4096,4096]"); nil for a format that
	// keeps everything.
	Losses func(rec *result.Recording) []string
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
	case f.Sniff == nil && f.SniffKeys == nil || f.Read == nil:
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
	return OpenContext(context.Background(), path)
}

// OpenContext is Open that stops reading when ctx is done, returning ctx's error. It reads
// regular files and pipes (a device such as /dev/zero is refused), at most MaxSize() bytes
// of them once decompressed (a *TooLargeError beyond).
func OpenContext(ctx context.Context, path string) (*result.Recording, error) {
	f, err := openFile(ctx, path, path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadContext(ctx, f, path)
}

// Stdin names standard input in the errors of OpenStdin and in the Recording.Source it
// returns.
const Stdin = "standard input"

// OpenStdin is OpenContext of standard input: a pipe or a file redirected to it, named
// Stdin. A terminal or another device is refused, as OpenContext refuses one: a
// recording is never typed in.
func OpenStdin(ctx context.Context) (*result.Recording, error) {
	f, err := openStdin(ctx)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadContext(ctx, f, Stdin)
}

// devStdin is where Unix systems name standard input as a file.
const devStdin = "/dev/stdin"

// openStdin opens standard input with openFile's checks. It is opened anew as devStdin
// where that exists, so that a read waiting on a pipe ends with ctx as a named pipe's
// does (os.Stdin's reads cannot be cut short); elsewhere os.Stdin is read as it is.
func openStdin(ctx context.Context) (io.ReadCloser, error) {
	if _, err := os.Stat(devStdin); err == nil {
		return openFile(ctx, devStdin, Stdin)
	}
	fi, err := os.Stdin.Stat()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", Stdin, err)
	}
	if err := checkMode(fi, Stdin); err != nil {
		return nil, err
	}
	return io.NopCloser(os.Stdin), nil
}

// ReadFile reads the file at path as it is stored (compressed or not) for commands that
// look at an input before they read it as a recording: with OpenContext's checks, and
// within MaxSize() bytes.
func ReadFile(ctx context.Context, path string) ([]byte, error) {
	f, err := openFile(ctx, path, path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	limit, err := MaxSize()
	if err != nil {
		return nil, err
	}
	data, over, err := readLimited(ctx, f, nil, limit)
	switch {
	case err != nil:
		return nil, fmt.Errorf("%s: %w", path, err)
	case over:
		return nil, &TooLargeError{Source: path, Limit: limit}
	}
	return data, nil
}

// openFile opens path for reading, refusing what is neither a regular file nor a pipe (a
// folder, a device: /dev/zero would be read for ever) and a regular file larger than
// MaxSize(); its errors call the file name. A read blocked on a pipe ends when ctx is
// done.
func openFile(ctx context.Context, path, name string) (io.ReadCloser, error) {
	if _, err := MaxSize(); err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		if name != path {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if err := checkMode(fi, name); err != nil {
		f.Close()
		return nil, err
	}
	if fi.Mode()&fs.ModeNamedPipe != 0 {
		// a pipe (standard input, <(zcat ...)): read within the limit, and a read that
		// waits for a writer ends with ctx
		stop := context.AfterFunc(ctx, func() { f.SetReadDeadline(time.Now()) })
		return &cancelFile{File: f, stop: stop}, nil
	}
	return f, nil
}

// checkMode refuses a file that is neither a regular file nor a pipe, or a regular file
// larger than MaxSize(); name calls it.
func checkMode(fi fs.FileInfo, name string) error {
	limit, err := MaxSize()
	if err != nil {
		return err
	}
	switch m := fi.Mode(); {
	case m.IsDir():
		return fmt.Errorf("%s: is a folder, not a file", name)
	case m.IsRegular():
		if fi.Size() > limit {
			return &TooLargeError{Source: name, Limit: limit}
		}
	case m&fs.ModeNamedPipe != 0:
	case m&fs.ModeCharDevice != 0 && name == Stdin:
		return fmt.Errorf("%s is a terminal or another device, not a file or a pipe: redirect a recording to it (< FILE) or pipe one in", Stdin)
	default:
		return fmt.Errorf("%s: is a device or a socket, not a file: ktune reads recordings from files and pipes", name)
	}
	return nil
}

// cancelFile is an open pipe whose reads end when a context is done.
type cancelFile struct {
	*os.File
	stop func() bool
}

func (f *cancelFile) Close() error {
	f.stop()
	return f.File.Close()
}

// MaxSizeEnv names the environment variable that sets MaxSize: a size such as 4GiB
// (space.ParseBytes).
const MaxSizeEnv = "KTUNE_MAX_RECORDING"

// DefaultMaxSize is the most a recording may hold once decompressed, unless
// $KTUNE_MAX_RECORDING says otherwise: 1 GiB, 23 times the largest recording in ktune's
// test data (a KTT output of 6,768 configurations with 33 profiling counters each, 44 MB;
// a Kernel Tuner cache of 17,956 configurations is 17 MB; a million configurations would
// be about 1 GB), and what a machine can hold while reading it: reading up to the limit
// takes twice the limit at most, a recording's decoded form a few times its size.
const DefaultMaxSize int64 = 1 << 30

// MaxSize is the most a recording may hold once decompressed: $KTUNE_MAX_RECORDING, or
// DefaultMaxSize; an invalid value there is the error.
func MaxSize() (int64, error) {
	env := os.Getenv(MaxSizeEnv)
	if env == "" {
		return DefaultMaxSize, nil
	}
	n, err := space.ParseBytes(env)
	if err == nil && n <= 0 {
		err = errors.New("want a size above 0")
	}
	if err != nil {
		return 0, fmt.Errorf("$%s=%s: %w", MaxSizeEnv, env, err)
	}
	return n, nil
}

// A TooLargeError is the error for an input that holds more than MaxSize() bytes (once
// decompressed): reading on would take as much memory, and a recording that large is more
// likely a gzip bomb or no recording at all.
type TooLargeError struct {
	Source string
	Limit  int64
	Gzip   bool // the limit was passed while decompressing
}

// Error names the input and the limit and says how to read a larger recording.
func (e *TooLargeError) Error() string {
	what := "is larger than"
	if e.Gzip {
		what = "decompresses to more than"
	}
	return fmt.Sprintf("%s: %s %s, the most ktune reads from a recording; if it is a recording that large, set %s to a larger size (%s=%s) on a machine with several times that memory",
		e.Source, what, space.FormatBytes(e.Limit), MaxSizeEnv, MaxSizeEnv, space.FormatBytes(4*e.Limit))
}

// Read reads a recording from r, detecting the format from the content; source names the
// input in errors and in Recording.Source. A configuration measured more than once keeps
// its last measurement (Recording.KeepLast), and a time of zero or less counts as a
// runtime error (Recording.RejectNonPositiveTimes).
func Read(r io.Reader, source string) (*result.Recording, error) {
	return ReadContext(context.Background(), r, source)
}

// ReadContext is Read that stops reading when ctx is done, returning ctx's error, and reads
// at most MaxSize() bytes once decompressed (a *TooLargeError beyond).
func ReadContext(ctx context.Context, r io.Reader, source string) (*result.Recording, error) {
	data, gz, err := readAll(ctx, r, source)
	cut := err // a truncated gzip stream, read as far as it goes
	if err != nil && (!errors.Is(err, io.ErrUnexpectedEOF) || len(data) == 0) {
		return nil, err
	}
	// A byte order mark, which Windows editors put before UTF-8 text and JSON does not
	// allow (RFC 8259 lets a reader ignore it), becomes whitespace: the file reads as it
	// did before it was saved so, and the offsets in errors stay those of the file.
	if bytes.HasPrefix(data, utf8BOM) {
		copy(data, "   ")
	}
	f, err := Detect(data, source)
	if err != nil {
		if cut != nil {
			return nil, cut
		}
		return nil, err
	}
	if err := checkUTF8(data, source, gz); err != nil {
		return nil, err
	}
	rec, err := f.Read(&inMemory{Reader: bytes.NewReader(data), data: data, gzip: gz}, source)
	if err != nil {
		if cut != nil {
			return nil, fmt.Errorf("%w (what it holds before the cut does not read either: %v)", cut, err)
		}
		return nil, err
	}
	if cut != nil {
		rec.Warnings = append([]string{cut.Error() + "; read up to there"}, rec.Warnings...)
		rec.Truncated = true
	}
	rec.KeepLast()
	rec.RejectNonPositiveTimes()
	return rec, nil
}

// utf8BOM is the byte order mark in UTF-8.
var utf8BOM = []byte("\xef\xbb\xbf")

// checkUTF8 refuses content that is not UTF-8, naming the first byte that is not, with
// its line and column (in the decompressed content, when gz). JSON text is UTF-8 and the
// tuners write nothing else (Python's json escapes every non-ASCII character), so such a
// byte is a file damaged or re-encoded (Latin-1); the JSON decoder would turn it into
// U+FFFD without a word, and two parameter values that differ only there into one. An
// incomplete character at the very end is left to the format (a file cut short there).
func checkUTF8(data []byte, source string, gz bool) error {
	if utf8.Valid(data) {
		return nil
	}
	off := 0
	for off < len(data) {
		r, n := utf8.DecodeRune(data[off:])
		if r == utf8.RuneError && n <= 1 {
			break
		}
		off += n
	}
	if off >= len(data) || !utf8.FullRune(data[off:]) {
		return nil
	}
	line, col := Position(data, int64(off))
	where := ""
	if gz {
		where = " (offsets count decompressed bytes)"
	}
	return &Error{Source: source, Offset: int64(off), Line: line, Column: col,
		Err: fmt.Errorf("byte 0x%02x is not UTF-8%s: JSON files are UTF-8, and the tuners write nothing else; the file was damaged, or re-encoded (from Latin-1, convert it back with iconv -f latin1 -t utf-8)", data[off], where)}
}

// ErrUnknown is what Detect's error wraps when no registered format claims a file.
var ErrUnknown = errors.New("unknown file format")

// ErrAmbiguous is what Detect's error wraps when more than one registered format claims a
// file: it has the top-level members of several formats (a Kernel Tuner cache and a T4
// results file merged into one object), and reading it as either would silently leave out
// what the other holds.
var ErrAmbiguous = errors.New("file in more than one format")

// Detect returns the registered format whose Sniff accepts data, the decompressed content
// of source; the error names source and the formats tried, or the formats that claim it
// when more than one does (ErrAmbiguous).
func Detect(data []byte, source string) (Format, error) {
	all := Formats()
	names := make([]string, len(all))
	var claim []Format
	var keys []string
	listed := false
	for i, f := range all {
		var ok bool
		if f.SniffKeys != nil {
			if !listed {
				keys, listed = TopLevelKeys(data), true
			}
			ok = f.SniffKeys(keys)
		} else {
			ok = f.Sniff(data)
		}
		if ok {
			claim = append(claim, f)
		}
		names[i] = f.Name
	}
	switch len(claim) {
	case 1:
		return claim[0], nil
	case 0:
	default:
		var what []string
		for _, f := range claim {
			what = append(what, f.Name+" ("+f.Looks+")")
		}
		return Format{}, fmt.Errorf("%s: %w: it has the top-level members of %s; reading it as one would leave out what the other holds: keep one format's members, or split it into one file per format",
			source, ErrAmbiguous, strings.Join(what, " and of "))
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
	if why := NotJSONObject(data); why != "" {
		return why
	}
	var obj map[string]any
	json.Unmarshal(data, &obj) // NotJSONObject found it an object
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
// bytes 1f 8b, not the file name, because recorded files are often renamed or piped); at
// most MaxSize() bytes of either (a *TooLargeError beyond).
func ReadAll(r io.Reader, source string) ([]byte, error) {
	return ReadAllContext(context.Background(), r, source)
}

// ReadAllContext is ReadAll that stops reading when ctx is done, returning ctx's error.
func ReadAllContext(ctx context.Context, r io.Reader, source string) ([]byte, error) {
	data, _, err := readAll(ctx, r, source)
	return data, err
}

// inMemory is a recording ReadContext has read (and decompressed) already, handed to a
// format's Read: ReadAll and InMemory give its bytes back rather than copy them again (a
// second buffer of the whole file, which doubles as it grows: gigabytes for a recording
// of a million configurations).
type inMemory struct {
	*bytes.Reader
	data []byte
	gzip bool // it was compressed
}

// InMemory returns the content of r and whether it was compressed, without reading it,
// when r is a recording ReadContext read into memory and nothing has been read from it
// yet; ok is false otherwise.
func InMemory(r io.Reader) (data []byte, gzip, ok bool) {
	m, is := r.(*inMemory)
	if !is || m.Len() != len(m.data) {
		return nil, false, false
	}
	m.Seek(0, io.SeekEnd) // read
	return m.data, m.gzip, true
}

// readAll is ReadAllContext saying whether the content was compressed.
func readAll(ctx context.Context, r io.Reader, source string) (_ []byte, gz bool, _ error) {
	if data, gz, ok := InMemory(r); ok {
		return data, gz, nil
	}
	limit, err := MaxSize()
	if err != nil {
		return nil, false, err
	}
	// A file's size spares the buffer its doublings (and their copies) where it is known.
	var buf []byte
	if st, ok := r.(interface{ Stat() (os.FileInfo, error) }); ok {
		if fi, err := st.Stat(); err == nil && fi.Mode().IsRegular() && fi.Size() > 0 {
			buf = make([]byte, 0, min(fi.Size(), limit)+1)
		}
	}
	data, over, err := readLimited(ctx, r, buf, limit)
	if err != nil {
		if ctx.Err() != nil {
			return nil, false, ctx.Err()
		}
		return nil, false, fmt.Errorf("%s: %w", source, err)
	}
	if over {
		return nil, false, &TooLargeError{Source: source, Limit: limit}
	}
	if !IsGzip(data) {
		return data, false, nil
	}
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, true, fmt.Errorf("%s: gzip: %w", source, err)
	}
	// The gzip trailer's last four bytes hold the uncompressed size (modulo 2^32, of the
	// last member): a hint that spares the repeated growth of io.ReadAll's buffer (tens
	// of megabytes for a recorded space). A corrupt trailer must not make us allocate
	// gigabytes, so it is trusted only within the ratios JSON compresses at (under 256)
	// and up to 1 GiB; beyond, the buffer grows as the content comes.
	hint := 512
	if n := len(data); n >= 18 {
		size := int(binary.LittleEndian.Uint32(data[n-4:]))
		if size >= n/2 && size <= 256*n && size <= 1<<30 && int64(size) <= limit {
			hint = size + 1 // one more byte, so the final read sees EOF without growing
		}
	}
	out, over, err := readLimited(ctx, zr, make([]byte, 0, hint), limit)
	if ctx.Err() != nil {
		return nil, true, ctx.Err()
	}
	if over {
		return nil, true, &TooLargeError{Source: source, Limit: limit, Gzip: true}
	}
	if err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) {
			// What came out before the cut is returned too: Read reads it as it reads an
			// interrupted recording (a cache copied while Kernel Tuner still wrote it).
			return out, true, fmt.Errorf("%s: gzip stream truncated after %d decompressed bytes: %w", source, len(out), err)
		}
		return nil, true, fmt.Errorf("%s: gzip, after %d decompressed bytes: %w", source, len(out), err)
	}
	return out, true, nil
}

// readLimited appends r to buf, growing it only when full, until r ends or buf holds more
// than limit bytes (over), and looks at ctx before each read: its error is ctx's when
// ctx ended it. The buffer doubles, but never past limit+1 bytes: reading up to the limit
// takes at most one and a half times the limit at once.
func readLimited(ctx context.Context, r io.Reader, buf []byte, limit int64) (_ []byte, over bool, _ error) {
	for {
		if err := ctx.Err(); err != nil {
			return buf, false, err
		}
		if len(buf) == cap(buf) {
			size := max(2*int64(cap(buf)), 512)
			if size >= limit {
				size = limit + 1 // one byte more tells that the limit is passed
			}
			grown := make([]byte, len(buf), size)
			copy(grown, buf)
			buf = grown
		}
		// no further than one byte past the limit, which tells that it is passed
		room := buf[len(buf):cap(buf)]
		if left := limit + 1 - int64(len(buf)); int64(len(room)) > left {
			room = room[:left]
		}
		n, err := r.Read(room)
		buf = buf[:len(buf)+n]
		if int64(len(buf)) > limit {
			return buf, true, nil
		}
		if err == io.EOF {
			return buf, false, nil
		}
		if err != nil {
			if ctx.Err() != nil {
				err = ctx.Err() // a pipe's read ended by the context
			}
			return buf, false, err
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
