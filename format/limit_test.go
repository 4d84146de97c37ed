package format_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ktune/ktune/format"
	_ "github.com/ktune/ktune/format/all"
	"github.com/ktune/ktune/format/t1"
)

const pnpolyKTT = "../testdata/benchmark_hub/ktt_pnpoly/RTX_2080_Ti.json.gz"

// A real recording reads with a limit of exactly its decompressed size, and is refused,
// naming the file, the limit and how to raise it, with one byte less.
func TestARecordingIsReadWithinTheLimitAndRefusedPastIt(t *testing.T) {
	f, err := os.Open(pnpolyKTT)
	if err != nil {
		t.Fatal(err)
	}
	data, err := format.ReadAll(f, pnpolyKTT)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	size := int64(len(data))
	t.Setenv(format.MaxSizeEnv, strconv.FormatInt(size, 10))
	rec, err := format.Open(pnpolyKTT)
	if err != nil || len(rec.Evaluations) == 0 {
		t.Fatalf("with a limit of its %d bytes: %v", size, err)
	}
	t.Setenv(format.MaxSizeEnv, strconv.FormatInt(size-1, 10))
	_, err = format.Open(pnpolyKTT)
	var tl *format.TooLargeError
	if !errors.As(err, &tl) || !tl.Gzip || tl.Limit != size-1 || tl.Source != pnpolyKTT {
		t.Fatalf("with a limit of a byte less: %v, want a *format.TooLargeError while decompressing", err)
	}
	for _, want := range []string{pnpolyKTT + ": decompresses to more than", "KTUNE_MAX_RECORDING="} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("message %q lacks %q", err, want)
		}
	}
}

// A gzip bomb, an endless stream and a file larger than the limit are refused when the
// limit is reached, having read no more than that.
func TestInputsPastTheLimitAreRefusedWithoutReadingThemWhole(t *testing.T) {
	t.Setenv(format.MaxSizeEnv, "1MiB")
	dir := t.TempDir()
	var bomb bytes.Buffer
	zw := gzip.NewWriter(&bomb)
	zw.Write(make([]byte, 64<<20)) // 64 MiB of zeros in 64 KiB
	zw.Close()
	bombPath := filepath.Join(dir, "bomb.json.gz")
	big := filepath.Join(dir, "big.json")
	if err := os.WriteFile(bombPath, bomb.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(big, bytes.Repeat([]byte(" "), 2<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		path string
		gzip bool
	}{{bombPath, true}, {big, false}} {
		_, err := format.Open(tc.path)
		var tl *format.TooLargeError
		if !errors.As(err, &tl) || tl.Gzip != tc.gzip || tl.Limit != 1<<20 {
			t.Errorf("%s: %v, want a *format.TooLargeError", tc.path, err)
		}
	}
	endless := &zeros{}
	if _, err := format.Read(endless, "endless"); !errors.As(err, new(*format.TooLargeError)) || endless.n > 2<<20 {
		t.Errorf("an endless stream: %v after %d bytes, want a *format.TooLargeError after about 1 MiB", err, endless.n)
	}
	t.Setenv(format.MaxSizeEnv, "lots")
	if _, err := format.Open(big); err == nil || !strings.Contains(err.Error(), "$KTUNE_MAX_RECORDING=lots") {
		t.Errorf("an invalid limit: %v", err)
	}
}

// zeros is an endless stream of zero bytes that counts what was read.
type zeros struct{ n int64 }

func (z *zeros) Read(p []byte) (int, error) {
	clear(p)
	z.n += int64(len(p))
	return len(p), nil
}

func TestReadStopsWhenTheContextIsDone(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	r := &cancelAfter{n: 4 << 20, cancel: cancel}
	start := time.Now()
	_, err := format.ReadContext(ctx, r, "endless")
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if r.read > 64<<20 || time.Since(start) > 5*time.Second {
		t.Errorf("stopped after %d bytes and %v, cancelled after 4 MiB", r.read, time.Since(start))
	}
}

// cancelAfter is an endless stream that cancels a context once n bytes are read.
type cancelAfter struct {
	n, read int64
	cancel  func()
}

func (c *cancelAfter) Read(p []byte) (int, error) {
	p = p[:min(len(p), 64<<10)]
	clear(p)
	if c.read += int64(len(p)); c.read >= c.n {
		c.cancel()
	}
	return len(p), nil
}

// A device is refused before it is read (/dev/zero was read until the memory ran out),
// and so is a folder.
func TestOpenRefusesDevicesAndFolders(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	for path, want := range map[string]string{"/dev/zero": "/dev/zero: is a device or a socket, not a file", t.TempDir(): "is a folder"} {
		if _, err := format.Open(path); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", path, err, want)
		}
		if _, err := format.ReadFile(context.Background(), path); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ReadFile %s: %v, want %q", path, err, want)
		}
	}
}

// Every registered format's own reader, and T1's, reads within the limit too.
func TestEveryReaderReadsWithinTheLimit(t *testing.T) {
	t.Setenv(format.MaxSizeEnv, "1MiB")
	for _, f := range format.Formats() {
		if f.Name == "test-format" {
			continue // format_test.go's, which reads nothing
		}
		z := &zeros{}
		if _, err := f.Read(z, "endless"); !errors.As(err, new(*format.TooLargeError)) || z.n > 2<<20 {
			t.Errorf("%s: %v after %d bytes, want a *format.TooLargeError after about 1 MiB", f.Name, err, z.n)
		}
	}
	z := &zeros{}
	if _, err := t1.Read(z, "endless"); !errors.As(err, new(*format.TooLargeError)) || z.n > 2<<20 {
		t.Errorf("t1: %v after %d bytes, want a *format.TooLargeError after about 1 MiB", err, z.n)
	}
}

// Reading up to the limit allocates about twice the limit in all (a buffer that doubles),
// and never a buffer past it: a gzip bomb refused at 1 GiB used to grow a buffer by
// quarters, allocating some five times the limit.
func TestReadingToTheLimitAllocatesAboutTwiceIt(t *testing.T) {
	const limit = 64 << 20
	t.Setenv(format.MaxSizeEnv, strconv.Itoa(limit))
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := format.ReadAll(&zeros{}, "endless")
	runtime.ReadMemStats(&after)
	if !errors.As(err, new(*format.TooLargeError)) {
		t.Fatalf("err = %v, want a *format.TooLargeError", err)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 2*limit+limit/4 {
		t.Errorf("allocated %d MiB to read %d MiB", got>>20, limit>>20)
	}
}
