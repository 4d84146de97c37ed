//go:build linux

package hostc

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/ktune/ktune/device"
	"github.com/ktune/ktune/internal/testfs"
)

// sayingCompiler writes a compiler that prints the message of a file in msgs and exits 1
// when given -DFAIL=name (the file name.txt, with @OUT@ replaced by the object it was to
// write and @TMP@ by $TMPDIR), and is gcc otherwise.
func sayingCompiler(t *testing.T, msgs map[string]string) string {
	t.Helper()
	gcc, err := exec.LookPath("gcc")
	if err != nil {
		t.Skip(err)
	}
	dir := t.TempDir()
	for name, msg := range msgs {
		if err := os.WriteFile(filepath.Join(dir, name+".txt"), []byte(msg), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cc := filepath.Join(dir, "saying-cc")
	script := `#!/bin/sh
out=; prev=; fail=
for a in "$@"; do
	[ "$prev" = -o ] && out=$a
	case "$a" in -DFAIL=*) fail=${a#-DFAIL=};; esac
	prev=$a
done
if [ -n "$fail" ]; then sed -e "s|@OUT@|$out|g" -e "s|@TMP@|$TMPDIR|g" "` + dir + `/$fail.txt" >&2; exit 1; fi
exec ` + gcc + ` "$@"
`
	if err := os.WriteFile(cc, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return cc
}

// A build that fails because the machine cannot take it (a full, read-only or
// over-quota disk, a cache folder this user cannot write, a compiler killed for memory)
// is an environment error naming the folder, never a compile error of the configuration,
// which was recorded, counted against the budget and never measured again. A source whose
// own diagnostics carry those words is still a compile error.
func TestFailuresOfTheMachineAreNotCompileErrors(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	cases := []struct {
		name, msg string
		errno     syscall.Errno // 0: a compile error, else an environment error with it
		place     string        // the start of the environment error's place
	}{
		{"linker_full", "/usr/bin/ld: final link failed: No space left on device\ncollect2: error: ld returned 1 exit status\n",
			syscall.ENOSPC, "$KTUNE_CACHE ("},
		{"gcc_depfile_full", "k.c:1:1: fatal error: closing dependency file @OUT@.d: No space left on device\n    1 | void k(void) {}\n      | ^\ncompilation terminated.\n",
			syscall.ENOSPC, "$KTUNE_CACHE ("},
		{"gcc_temp_full", "k.c:1:1: fatal error: error closing @TMP@/ccFyqg9d.s: No space left on device\ncompilation terminated.\n",
			syscall.ENOSPC, "$TMPDIR (" + tmp + ")"},
		{"clang_backend_full", "fatal error: error in backend: IO failure on output stream: No space left on device\n",
			syscall.ENOSPC, "$KTUNE_CACHE ("},
		{"clang_quota", "error: unable to open output file '@OUT@': 'Disk quota exceeded'\n1 error generated.\n",
			syscall.EDQUOT, "$KTUNE_CACHE ("},
		{"linker_read_only", "/usr/bin/ld: cannot open output file @OUT@: Read-only file system\n",
			syscall.EROFS, "$KTUNE_CACHE ("},
		{"linker_denied_in_cache", "/usr/bin/ld: cannot open output file @OUT@: Permission denied\ncollect2: error: ld returned 1 exit status\n",
			syscall.EACCES, "$KTUNE_CACHE ("},
		{"gcc_oom_killed", "gcc: fatal error: Killed signal terminated program cc1\ncompilation terminated.\n", 0, ""}, // the configuration's, with a note
		{"error_directive", "k.c:3:2: error: #error No space left on device\n    3 | #error No space left on device\n      |  ^~~~~\n", 0, ""},
		{"static_assertion", "k.c:2:1: error: static assertion failed: \"Read-only file system\"\n", 0, ""},
		{"fatal_error_of_the_source", "k.c:9:2: fatal error: Disk quota exceeded\n", 0, ""},
		{"unreadable_header", "k.c:1:10: fatal error: /root/secret.h: Permission denied\ncompilation terminated.\n", 0, ""},
		{"header_in_tmp_denied", "k.c:1:10: fatal error: @TMP@/h.h: Permission denied\n", 0, ""},
	}
	msgs := map[string]string{}
	for _, c := range cases {
		msgs[c.name] = c.msg
	}
	t.Setenv("CC", sayingCompiler(t, msgs))
	cache := t.TempDir()
	t.Setenv("KTUNE_CACHE", cache)
	d := openHost(t)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := d.Compile(context.Background(), device.Source{Code: "void k(void) {}", Kernel: "k",
				Defines: []device.Define{{Name: "FAIL", Value: c.name}}})
			var env *device.EnvironmentError
			var ce *device.CompileError
			switch {
			case c.place == "":
				if !errors.As(err, &ce) {
					t.Fatalf("error %v (%T), want a compile error", err, err)
				}
				if killed := strings.Contains(ce.Log, "out-of-memory killer"); killed != (c.name == "gcc_oom_killed") {
					t.Errorf("log %q: a note on the out-of-memory killer %v, want %v", ce.Log, killed, !killed)
				}
			case !errors.As(err, &env):
				t.Fatalf("error %v (%T), want an environment error", err, err)
			case !strings.HasPrefix(env.Place, c.place):
				t.Errorf("place %q, want %q...", env.Place, c.place)
			case c.errno != 0 && !errors.Is(err, c.errno):
				t.Errorf("error %v is not %v", err, c.errno)
			case c.place == "$KTUNE_CACHE (" && env.Place != "$KTUNE_CACHE ("+filepath.Join(cache, "hostc")+")":
				t.Errorf("place %q, want the cache folder %s", env.Place, filepath.Join(cache, "hostc"))
			}
		})
	}
}

// A cache folder that cannot hold the probe's kernel makes the backend unavailable
// naming the folder and why: it blamed the compiler ("the C compiler /usr/bin/cc cannot
// build kernels this process can run").
func TestAnUnusableCacheFolderIsNamedNotTheCompiler(t *testing.T) {
	gcc, err := exec.LookPath("gcc")
	if err != nil {
		t.Skip(err)
	}
	full := filepath.Join(t.TempDir(), "full-cc")
	script := "#!/bin/sh\ncase \"$1\" in --version) exec " + gcc + " --version;; esac\n" +
		"echo '/usr/bin/ld: final link failed: No space left on device' >&2\nexit 1\n"
	if err := os.WriteFile(full, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	notDir := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(notDir, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, cc, cache, want string
	}{
		{"full", full, t.TempDir(), "no space left on device"},
		{"a file", gcc, notDir, "not a directory"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv("CC", c.cc)
			t.Setenv("KTUNE_CACHE", c.cache)
			b, _ := device.Lookup(Name)
			_, err := b.Devices()
			if err == nil {
				t.Fatal("Devices succeeded")
			}
			msg := err.Error()
			if !strings.Contains(msg, "$KTUNE_CACHE ("+filepath.Join(c.cache, "hostc")+")") || !strings.Contains(msg, c.want) ||
				strings.Contains(msg, "cannot build kernels") || !errors.Is(err, device.ErrUnavailable) {
				t.Errorf("Devices: %v\nwant it unavailable for $KTUNE_CACHE (%s): ...%s, the compiler not blamed", err, filepath.Join(c.cache, "hostc"), c.want)
			}
		})
	}
}

// fill leaves about free bytes on the file system of dir, and returns a function that
// frees the space again.
func fill(t *testing.T, dir string, free int64) func() {
	t.Helper()
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "fill")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	n := int64(st.Bavail)*st.Bsize - free
	chunk := make([]byte, 4096)
	for ; n > 0; n -= int64(len(chunk)) {
		if _, err := f.Write(chunk[:min(int64(len(chunk)), n)]); err != nil {
			break // full already
		}
	}
	f.Close()
	return func() { os.Remove(p) }
}

// On a real full disk the compiler's own messages (the linker's, gcc's) and ktune's writes
// give environment errors of the cache folder, and once space is freed the same source
// builds: nothing about it was wrong.
func TestARealFullCacheIsTheMachinesFault(t *testing.T) {
	small := testfs.Small(t, "1m")
	t.Setenv("KTUNE_CACHE", small)
	d := openHost(t)
	for i, free := range []int64{0, 60 << 10} {
		t.Run(fmt.Sprintf("%d KiB free", free>>10), func(t *testing.T) {
			src := device.Source{Code: fmt.Sprintf("int big[%d] = {1};\nvoid k%d(int *x) { x[0] = big[x[0]]; }\n", 64<<10, i),
				Kernel: fmt.Sprintf("k%d", i), Params: []device.Param{{Name: "x", Type: "int32", Pointer: true}}}
			free := fill(t, small, free)
			_, err := d.Compile(context.Background(), src)
			var env *device.EnvironmentError
			if !errors.As(err, &env) || !errors.Is(err, syscall.ENOSPC) || env.Place != "$KTUNE_CACHE ("+filepath.Join(small, "hostc")+")" {
				t.Fatalf("error %v (%T), want an environment error of $KTUNE_CACHE: no space left on device", err, err)
			}
			t.Log(err)
			free()
			k, err := d.Compile(context.Background(), src)
			if err != nil {
				t.Fatalf("with room again: %v", err)
			}
			k.Release()
		})
	}
}

// A compiler that no longer starts (removed since the device was opened) is no fault of
// the source: an environment error naming the compiler.
func TestACompilerThatDoesNotStartIsTheMachinesFault(t *testing.T) {
	gcc, err := exec.LookPath("gcc")
	if err != nil {
		t.Skip(err)
	}
	cc := filepath.Join(t.TempDir(), "cc")
	if err := os.WriteFile(cc, []byte("#!/bin/sh\nexec "+gcc+" \"$@\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("CC", cc)
	d := openHost(t)
	os.Remove(cc)
	_, err = d.Compile(context.Background(), device.Source{Code: "void gone(void) {}", Kernel: "gone"})
	var env *device.EnvironmentError
	if !errors.As(err, &env) || env.Place != "the compiler "+cc || !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("error %v (%T), want an environment error of the compiler %s: no such file", err, err, cc)
	}
}
