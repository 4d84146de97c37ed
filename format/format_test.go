package format_test

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"io"
	"math/rand/v2"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/ktune/ktune/format"
	"github.com/ktune/ktune/result"
)

func TestPosition(t *testing.T) {
	data := []byte("ab\ncde\n\nf")
	tests := []struct {
		offset    int64
		line, col int
	}{
		{0, 1, 1}, {1, 1, 2}, {2, 1, 3}, {3, 2, 1}, {5, 2, 3}, {7, 3, 1}, {8, 4, 1}, {9, 4, 2}, {100, 4, 2}, {-1, 0, 0},
	}
	for _, tt := range tests {
		if line, col := format.Position(data, tt.offset); line != tt.line || col != tt.col {
			t.Errorf("Position(%d) = %d:%d, want %d:%d", tt.offset, line, col, tt.line, tt.col)
		}
	}
}

func TestErrorNamesFilePositionAndProblem(t *testing.T) {
	problem := errors.New("bad value")
	tests := []struct {
		err  format.Error
		want string
	}{
		{format.Error{Source: "a.json", Offset: 41, Line: 3, Column: 7, Err: problem}, "a.json:3:7 (byte 41): bad value"},
		{format.Error{Source: "a.json", Offset: 41, Err: problem}, "a.json: byte 41: bad value"},
		{format.Error{Source: "a.json", Offset: -1, Err: problem}, "a.json: bad value"},
	}
	for _, tt := range tests {
		if got := tt.err.Error(); got != tt.want {
			t.Errorf("got %q, want %q", got, tt.want)
		}
		if !errors.Is(&tt.err, problem) {
			t.Error("Unwrap lost the problem")
		}
	}
}

func TestReadAllDecompressesByContent(t *testing.T) {
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write([]byte(`{"a": 1}`))
	zw.Close()
	gz := b.Bytes()
	tests := []struct {
		name  string
		input []byte
		want  string
		err   string
	}{
		{"plain", []byte(`{"a": 1}`), `{"a": 1}`, ""},
		{"gzip", gz, `{"a": 1}`, ""},
		{"two gzip members", append(append([]byte{}, gz...), gz...), `{"a": 1}{"a": 1}`, ""},
		{"truncated gzip", gz[:len(gz)-6], "", "truncated"},
		{"gzip magic only", gz[:2], "", "gzip"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := format.ReadAll(bytes.NewReader(tt.input), "in.gz")
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) || !strings.Contains(err.Error(), "in.gz") {
					t.Errorf("error %v, want one naming in.gz and %q", err, tt.err)
				}
				return
			}
			if err != nil || string(got) != tt.want {
				t.Errorf("got %q, %v", got, err)
			}
		})
	}
}

var (
	registerOnce sync.Once
	read         = func(io.Reader, string) (*result.Recording, error) { return nil, nil }
	sniff        = func([]byte) bool { return false }
)

// registerTestFormat registers a format that claims nothing, once per test binary.
func registerTestFormat() {
	registerOnce.Do(func() { format.Register(format.Format{Name: "test-format", Sniff: sniff, Read: read}) })
}

func TestRegisterRejectsProgrammingErrors(t *testing.T) {
	registerTestFormat()
	tests := []struct {
		name string
		f    format.Format
	}{
		{"empty name", format.Format{Sniff: sniff, Read: read}},
		{"no Read", format.Format{Name: "x1", Sniff: sniff}},
		{"no Sniff", format.Format{Name: "x2", Read: read}},
		{"duplicate", format.Format{Name: "test-format", Sniff: sniff, Read: read}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Error("no panic")
				}
			}()
			format.Register(tt.f)
		})
	}
	if _, ok := format.Lookup("test-format"); !ok {
		t.Error("registered format not found")
	}
}

func TestDetectNamesSourceAndFormatsTried(t *testing.T) {
	registerTestFormat()
	_, err := format.Detect([]byte("{}"), "x.json")
	if err == nil || !strings.Contains(err.Error(), "x.json") || !strings.Contains(err.Error(), "test-format") {
		t.Errorf("error %v", err)
	}
}

// A gzip trailer claiming 4 GiB of content does not make ReadAll allocate it: the size is
// a hint trusted only within plausible ratios, and the stream's own check then fails.
func TestReadAllDistrustsACorruptGzipTrailer(t *testing.T) {
	// 5 MB that do not compress: at deflate's largest ratio (1032) they could stand for
	// 4 GiB, at JSON's they cannot
	content := make([]byte, 5<<20)
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < len(content); i += 8 {
		binary.LittleEndian.PutUint64(content[i:], r.Uint64())
	}
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write(content)
	zw.Close()
	data := b.Bytes()
	binary.LittleEndian.PutUint32(data[len(data)-4:], 0xffffffff)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := format.ReadAll(bytes.NewReader(data), "corrupt.json.gz")
	runtime.ReadMemStats(&after)
	if err == nil {
		t.Fatal("a wrong size in the trailer went unnoticed")
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 64<<20 {
		t.Errorf("reading %d bytes allocated %d MiB", len(data), grew>>20)
	}
}
