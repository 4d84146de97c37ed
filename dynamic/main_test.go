package dynamic_test

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/ktune/ktune/spec"
)

// specRoot holds the specs and kernels the tests write, a folder per distinct set of
// files: OpenCL runtimes such as PoCL cache a program by its source and build options,
// which name the kernel's folder (-I, #line), so tests that write the same kernel share
// its compiled builds, as an application's calls do, instead of compiling it afresh in a
// folder of their own.
var (
	specRoot   string
	specRootMu sync.Mutex
)

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "ktune-dynamic-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "dynamic tests: a folder for the specs:", err)
		os.Exit(1)
	}
	specRoot = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// loadSpec writes files (name to text) into the folder of specRoot that these very files
// name, unless they are there already, and loads the spec named main from it. Tests must
// not write into that folder: it is shared.
func loadSpec(t testing.TB, main string, files map[string]string) *spec.Spec {
	t.Helper()
	h := sha256.New()
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		fmt.Fprintf(h, "%q %d\n%s", name, len(files[name]), files[name])
	}
	dir := filepath.Join(specRoot, hex.EncodeToString(h.Sum(nil))[:16])
	specRootMu.Lock()
	if _, err := os.Stat(dir); err != nil {
		tmp, err := os.MkdirTemp(specRoot, "new-")
		if err == nil {
			for _, name := range names {
				if err = os.WriteFile(filepath.Join(tmp, name), []byte(files[name]), 0o644); err != nil {
					break
				}
			}
		}
		if err == nil {
			err = os.Rename(tmp, dir)
		}
		if err != nil {
			specRootMu.Unlock()
			t.Fatalf("write the spec's files into %s: %v", dir, err)
		}
	}
	specRootMu.Unlock()
	s, err := spec.Load(filepath.Join(dir, main))
	if err != nil {
		t.Fatal(err)
	}
	return s
}
