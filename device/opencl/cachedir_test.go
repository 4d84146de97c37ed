package opencl

import "testing"

// PoCL's cache folder, where it writes every build and whose filling kills the process
// (LLVM's "IO failure on output stream"), is known, so that a message about it can name
// it; other platforms keep theirs to themselves.
func TestPoCLsCacheFolderIsKnown(t *testing.T) {
	cases := []struct {
		name, platform, pocl, xdg, home, want string
	}{
		{"POCL_CACHE_DIR", "Portable Computing Language", "/p", "/x", "/h", "/p"},
		{"XDG_CACHE_HOME", "Portable Computing Language", "", "/x", "/h", "/x/pocl/kcache"},
		{"home", "Portable Computing Language", "", "", "/h", "/h/.cache/pocl/kcache"},
		{"another platform", "NVIDIA CUDA", "/p", "/x", "/h", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv("POCL_CACHE_DIR", c.pocl)
			t.Setenv("XDG_CACHE_HOME", c.xdg)
			t.Setenv("HOME", c.home)
			if got := cacheDir(c.platform); got != c.want {
				t.Errorf("cacheDir(%q) = %q, want %q", c.platform, got, c.want)
			}
		})
	}
}
