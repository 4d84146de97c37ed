//go:build linux

package hostc

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/ktune/ktune/device"
)

// formatVersion changes whenever the wrapper or the cache layout changes, so that old
// objects are not mistaken for new ones.
const formatVersion = "ktune-hostc-3"

// objectCache keeps compiled shared objects in a directory shared by processes.
//
// A configuration's key hashes what is known before compiling (source, flags, compiler,
// CPU). The headers the source includes are only known after: the compiler lists them
// (-MD) and the key's manifest, <key>.deps, records them. The object's own name hashes
// the key together with the headers' contents, so an edited header gives a new object
// under a new name; a name is never reused for different content, which also keeps
// dlopen from handing back a stale handle for it. Beside each object, <name>.sha256 holds
// the hash of its bytes: an object damaged in place (a truncated copy, a full disk) can
// still look like ELF and crash the loader of the process that dlopens it (SIGBUS in
// ktune itself, which probes the device with a kernel), so one whose bytes do not match
// is rebuilt rather than loaded. <name>.log, where the build printed anything, holds what
// the compiler printed (its warnings), so that a kernel from the cache says what its
// build said.
type objectCache struct {
	dir string
}

func openCache(dir string) (*objectCache, error) {
	if err := os.MkdirAll(filepath.Join(dir, "locks"), 0o755); err != nil {
		return nil, &device.EnvironmentError{Place: cachePlace(dir), Err: err}
	}
	c := &objectCache{dir: dir}
	c.sweep(time.Hour)
	return c, nil
}

// sweep removes build directories and temporary files older than age: what builders
// killed mid-compile (a worker process stopped by its supervisor) left behind. Live
// builds are younger than any sensible age.
func (c *objectCache) sweep(age time.Duration) {
	entries, err := os.ReadDir(c.dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), "build-") && !strings.HasPrefix(e.Name(), ".tmp-") {
			continue
		}
		if info, err := e.Info(); err == nil && time.Since(info.ModTime()) > age {
			os.RemoveAll(filepath.Join(c.dir, e.Name()))
		}
	}
}

// key hashes what decides the object apart from included headers.
func (t *toolchain) key(u *unit) string {
	h := sha256.New()
	field := func(s string) { fmt.Fprintf(h, "%d:%s\n", len(s), s) }
	field(formatVersion)
	for _, s := range t.cc {
		field(s)
	}
	field(t.version)
	field(t.cpu)
	// Variables that change where the compiler finds headers and libraries.
	vars := []string{"CPATH", "C_INCLUDE_PATH", "LIBRARY_PATH", "GCC_EXEC_PREFIX", "COMPILER_PATH"}
	if u.lang == "c++" {
		// C's keys stay as they were: a C++ unit's alone name the language, and the
		// variable only C++ reads.
		field("language=c++")
		vars = append(vars, "CPLUS_INCLUDE_PATH")
	}
	for _, v := range vars {
		field(v + "=" + os.Getenv(v))
	}
	for _, s := range u.flags {
		field(s)
	}
	for _, s := range u.libs {
		field(s)
	}
	field(u.text)
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// builder compiles into dir and returns the object's path, the headers it included and
// what the compiler printed.
type builder func(dir string) (object string, deps []string, log string, err error)

// get returns the object for key, building it when the cache lacks it, and what its
// build printed. hit reports that no build was needed, including when another process
// finished the build while this one waited for it; image is then the object's bytes as
// lookup read and checked them (nil after a build), so that loading it need not read the
// file again.
func (c *objectCache) get(ctx context.Context, key string, build builder) (path string, image []byte, log string, hit bool, err error) {
	if p, img, ok := c.lookup(key); ok {
		return p, img, c.buildLog(p), true, nil
	}
	unlock, err := c.lock(ctx, key)
	if errors.Is(err, fs.ErrNotExist) {
		// The cache was deleted under this process (a cleaner, rm -rf ~/.cache): make
		// it again rather than fail every configuration from now on.
		if err = os.MkdirAll(filepath.Join(c.dir, "locks"), 0o755); err == nil {
			unlock, err = c.lock(ctx, key)
		}
	}
	if err != nil {
		return "", nil, "", false, err
	}
	defer unlock()
	if p, img, ok := c.lookup(key); ok {
		return p, img, c.buildLog(p), true, nil
	}
	dir, err := os.MkdirTemp(c.dir, "build-")
	if err != nil {
		return "", nil, "", false, err
	}
	defer os.RemoveAll(dir)
	obj, deps, log, err := build(dir)
	if err != nil {
		return "", nil, "", false, err
	}
	p, err := c.store(key, obj, deps, log)
	return p, nil, log, false, err
}

// logSuffix names the file beside an object that holds what its build printed.
const logSuffix = ".log"

// buildLog is what the build of the object at p printed: "" when nothing, or when the
// file is unreadable (it says nothing about the object, which stays usable).
func (c *objectCache) buildLog(p string) string {
	data, err := os.ReadFile(p + logSuffix)
	if err != nil {
		return ""
	}
	return string(data)
}

// lookup finds key's object if its manifest exists and the headers it names still hash
// to an object that exists and has the bytes it was stored with; it returns those bytes
// too.
func (c *objectCache) lookup(key string) (string, []byte, bool) {
	deps, err := c.readManifest(key)
	if err != nil {
		return "", nil, false
	}
	p := filepath.Join(c.dir, objectName(key, deps))
	want, err := os.ReadFile(p + sumSuffix)
	if err != nil {
		return "", nil, false
	}
	img, err := os.ReadFile(p)
	if err != nil || sumOf(img) != strings.TrimSpace(string(want)) {
		return "", nil, false
	}
	return p, img, true
}

// sumSuffix names the file beside an object that holds the hash of its bytes.
const sumSuffix = ".sha256"

// fileSum is the hex SHA-256 of the file at path.
func fileSum(path string) (string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	return sumOf(data), nil
}

// sumOf is the hex SHA-256 of data.
func sumOf(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// store moves a freshly built object into the cache and records its hash, headers and
// what its build printed.
func (c *objectCache) store(key, obj string, deps []string, log string) (string, error) {
	p := filepath.Join(c.dir, objectName(key, deps))
	sum, err := fileSum(obj)
	if err != nil {
		return "", err
	}
	// The log before the object: a name is never reused for other content, so a reader
	// finding the object finds its build's log beside it.
	if log != "" {
		if err := writeAtomic(p+logSuffix, []byte(log)); err != nil {
			return "", err
		}
	}
	// The hash first: a reader that sees the new hash beside the old object (or the
	// reverse) misses and waits for this build's lock.
	if err := writeAtomic(p+sumSuffix, []byte(sum+"\n")); err != nil {
		return "", err
	}
	if err := os.Rename(obj, p); err != nil {
		return "", err
	}
	var b bytes.Buffer
	b.WriteString(formatVersion + "\n")
	for _, d := range deps {
		b.WriteString(strconv.Quote(d) + "\n")
	}
	if err := writeAtomic(filepath.Join(c.dir, key+".deps"), b.Bytes()); err != nil {
		return "", err
	}
	return p, nil
}

// evict forgets key's object, one that exists but would not load.
func (c *objectCache) evict(key, path string) {
	os.Remove(filepath.Join(c.dir, key+".deps"))
	os.Remove(path)
	os.Remove(path + sumSuffix)
	os.Remove(path + logSuffix)
}

func (c *objectCache) readManifest(key string) ([]string, error) {
	data, err := os.ReadFile(filepath.Join(c.dir, key+".deps"))
	if err != nil {
		return nil, err
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if lines[0] != formatVersion {
		return nil, errors.New("manifest of another format")
	}
	deps := make([]string, 0, len(lines)-1)
	for _, l := range lines[1:] {
		d, err := strconv.Unquote(l)
		if err != nil {
			return nil, fmt.Errorf("manifest: %w", err)
		}
		deps = append(deps, d)
	}
	return deps, nil
}

// objectName hashes the key with the current contents of the included files. A file
// that cannot be read hashes as missing, so the name stays the same while it stays so.
func objectName(key string, deps []string) string {
	h := sha256.New()
	io.WriteString(h, key)
	for _, d := range deps {
		fmt.Fprintf(h, "\n%d:%s\n", len(d), d)
		f, err := os.Open(d)
		if err != nil {
			io.WriteString(h, "missing")
			continue
		}
		fh := sha256.New()
		_, err = io.Copy(fh, f)
		f.Close()
		if err != nil {
			io.WriteString(h, "unreadable")
			continue
		}
		h.Write(fh.Sum(nil))
	}
	return hex.EncodeToString(h.Sum(nil)[:16]) + ".so"
}

// lock takes the build lock for key, shared with other processes through flock, waiting
// for it no longer than ctx allows. Two opens of the lock file exclude each other even in
// one process, so goroutines serialise on it too.
func (c *objectCache) lock(ctx context.Context, key string) (unlock func(), err error) {
	f, err := os.OpenFile(filepath.Join(c.dir, "locks", key+".lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	wait := time.Millisecond
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return func() {
				syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
				f.Close()
			}, nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) && !errors.Is(err, syscall.EINTR) {
			f.Close()
			return nil, fmt.Errorf("lock %s: %w", f.Name(), err)
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, ctx.Err()
		case <-time.After(wait):
		}
		wait = min(2*wait, 50*time.Millisecond)
	}
}

// writeAtomic writes a file that readers see whole or not at all.
func writeAtomic(path string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), ".tmp-*")
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}

// parseDeps reads the make rule the compiler wrote with -MD and returns the files it
// names other than the translation unit itself, as absolute paths.
func parseDeps(rule []byte, unitPath string) []string {
	s := strings.ReplaceAll(string(rule), "\\\r\n", " ")
	s = strings.ReplaceAll(s, "\\\n", " ")
	// The target is our own output path; the prerequisites follow the first ": ".
	if _, rest, ok := strings.Cut(s, ": "); ok {
		s = rest
	}
	var deps []string
	seen := map[string]bool{unitPath: true}
	var cur strings.Builder
	flush := func() {
		if cur.Len() == 0 {
			return
		}
		d := cur.String()
		cur.Reset()
		if a, err := filepath.Abs(d); err == nil {
			d = a
		}
		if !seen[d] {
			seen[d] = true
			deps = append(deps, d)
		}
	}
	for i := 0; i < len(s); i++ {
		switch ch := s[i]; {
		case ch == '\\' && i+1 < len(s) && (s[i+1] == ' ' || s[i+1] == '#'):
			cur.WriteByte(s[i+1])
			i++
		case ch == '$' && i+1 < len(s) && s[i+1] == '$':
			cur.WriteByte('$')
			i++
		case ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r':
			flush()
		default:
			cur.WriteByte(ch)
		}
	}
	flush()
	return deps
}
