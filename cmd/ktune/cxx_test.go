package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// ktune devices names the host C backend's C++ compiler, or says why C++ kernels cannot
// run ($CXX naming none) while C ones still can.
func TestDevicesNamesTheCXXCompiler(t *testing.T) {
	needBackend(t, "c")
	t.Setenv("CXX", filepath.Join(t.TempDir(), "no-such-c++"))
	out, _, code := ktune(t, "devices")
	if code != 0 || !strings.Contains(out, "c (languages: [c c++]): available") || !strings.Contains(out, `no C++ kernels: $CXX="`) {
		t.Errorf("exit %d:\n%s\nwant the host C backend available, without C++ kernels and why", code, out)
	}
	t.Setenv("CXX", "")
	out, _, _ = ktune(t, "devices")
	if !strings.Contains(out, "C++ compiler /") && !strings.Contains(out, "no C++ kernels: no C++ compiler") {
		t.Errorf("devices says nothing of the C++ compiler:\n%s", out)
	}
}
