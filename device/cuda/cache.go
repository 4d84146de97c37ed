package cuda

import (
	"bytes"
	"crypto/sha256"
	"encoding/gob"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// cacheFormat changes whenever what is cached or how it is keyed changes.
const cacheFormat = "ktune-cuda-1"

// CacheEnv names the environment variable that sets the compile cache's directory; "off"
// disables the cache. By default it is ktune/cuda under the user's cache directory.
const CacheEnv = "KTUNE_CUDA_CACHE"

// moduleCache keeps NVRTC's output on disk, shared by processes: the worker that compiles
// configurations ahead (package worker's pre-compiler) fills it, and the worker that
// measures then loads the module in milliseconds instead of compiling again. Only
// self-contained sources are cached: one that includes a file of its own (#include "x.h")
// may change without its text changing, so it is compiled every time.
type moduleCache struct {
	dir string
}

// openModuleCache returns the cache named by CacheEnv or the default, or nil when caching
// is off or no directory can be made.
func openModuleCache() *moduleCache {
	dir := os.Getenv(CacheEnv)
	if dir == "off" {
		return nil
	}
	if dir == "" {
		base, err := os.UserCacheDir()
		if err != nil {
			return nil
		}
		dir = filepath.Join(base, "ktune", "cuda")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil
	}
	return &moduleCache{dir: dir}
}

// localInclude matches an #include of a file by quotes, which NVRTC resolves against the
// include path and the source's directory.
var localInclude = regexp.MustCompile(`(?m)^\s*#\s*include\s*"`)

// key returns the cache key of compiling code's kernel with opts by NVRTC at path and
// version, and whether the source may be cached.
func (c *moduleCache) key(code, kernel string, opts []string, nvrtcID string) (string, bool) {
	if c == nil || localInclude.MatchString(code) {
		return "", false
	}
	h := sha256.New()
	field := func(s string) { fmt.Fprintf(h, "%d:%s\n", len(s), s) }
	field(cacheFormat)
	field(nvrtcID)
	field(kernel)
	for _, o := range opts {
		field(o)
	}
	field(code)
	return hex.EncodeToString(h.Sum(nil)), true
}

// load returns the cached output for key.
func (c *moduleCache) load(key string) (compiled, bool) {
	raw, err := os.ReadFile(filepath.Join(c.dir, key+".mod"))
	if err != nil {
		return compiled{}, false
	}
	var out compiled
	if err := gob.NewDecoder(bytes.NewReader(raw)).Decode(&out); err != nil || len(out.Image) == 0 || out.Lowered == "" {
		return compiled{}, false
	}
	return out, true
}

// store writes out under key, atomically: a reader sees the whole entry or none.
func (c *moduleCache) store(key string, out compiled) error {
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(out); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(c.dir, ".tmp-*")
	if err != nil {
		return err
	}
	if _, err := tmp.Write(buf.Bytes()); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	if err := os.Rename(tmp.Name(), filepath.Join(c.dir, key+".mod")); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return nil
}

// nvrtcID identifies the compiler for the cache: the library's path and version.
func (a *nvrtcAPI) id() string {
	return strings.Join([]string{a.path, a.version()}, "|")
}
