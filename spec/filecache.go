package spec

import (
	"io"
	"io/fs"
	"os"
	"sync"
	"time"
)

// fileCache keeps the files a spec reads (its kernel sources, the headers of its .npy
// files) for the specs WithConstants derives from it: an application that tunes each
// input size (package dynamic) derives a spec per size, and the files are the same.
// An entry is used while the file's size and modification time are those it was read
// at, so that an edited file is read again.
type fileCache struct {
	mu      sync.Mutex
	sources map[string]cachedFile
	headers map[string]cachedHeader
}

// fileStamp is what tells a file's versions apart: its size and modification time.
type fileStamp struct {
	size int64
	mod  time.Time
}

func stampOf(fi fs.FileInfo) fileStamp { return fileStamp{fi.Size(), fi.ModTime()} }

type cachedFile struct {
	stamp fileStamp
	data  []byte
}

type cachedHeader struct {
	stamp fileStamp
	typ   string
	shape []int
}

func newFileCache() *fileCache {
	return &fileCache{sources: map[string]cachedFile{}, headers: map[string]cachedHeader{}}
}

// readFile returns the contents of path, read now or kept from an earlier read of the
// same version. The bytes are shared: callers must not change them.
func (c *fileCache) readFile(path string) ([]byte, error) {
	if c == nil {
		return os.ReadFile(path)
	}
	fi, err := os.Stat(path)
	if err != nil {
		return os.ReadFile(path) // its error says "open PATH", as Load's always did
	}
	c.mu.Lock()
	e, ok := c.sources[path]
	c.mu.Unlock()
	if ok && e.stamp == stampOf(fi) {
		return e.data, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	// the stamp of the version read: a file written between Stat and Open is read again
	// next time rather than kept under the stamp of an older version
	if fi, err = f.Stat(); err != nil {
		return nil, err
	}
	data, err := io.ReadAll(f)
	if err != nil {
		return nil, err
	}
	if int64(len(data)) != fi.Size() {
		// changed while it was read: use what was read, keep nothing
		return data, nil
	}
	c.mu.Lock()
	c.sources[path] = cachedFile{stamp: stampOf(fi), data: data}
	c.mu.Unlock()
	return data, nil
}

// npyHeader returns the element type and shape of the .npy file f (opened at path), read
// now or kept from an earlier read of the same version.
func (c *fileCache) npyHeader(path string, f *os.File) (string, []int, error) {
	fi, err := f.Stat()
	if c == nil || err != nil {
		return ReadNPYHeader(f)
	}
	c.mu.Lock()
	e, ok := c.headers[path]
	c.mu.Unlock()
	if ok && e.stamp == stampOf(fi) {
		return e.typ, e.shape, nil
	}
	typ, shape, err := ReadNPYHeader(f)
	if err == nil {
		c.mu.Lock()
		c.headers[path] = cachedHeader{stamp: stampOf(fi), typ: typ, shape: shape}
		c.mu.Unlock()
	}
	return typ, shape, err
}
