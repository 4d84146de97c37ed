//go:build linux

package hostc

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// toolchain is a compiler (C or C++) and everything besides the source that decides what
// it produces.
type toolchain struct {
	lang    string   // "c" or "c++"
	cc      []string // the compiler (absolute path) and the arguments $CC (or $CXX) carries
	version string   // the compiler's --version output
	cpu     string   // the CPU identity -march=native depends on
}

// compilerKind is how a language's compiler is found: the variable that names it, the
// programs tried on PATH when it is unset, and what to call it and install in messages.
type compilerKind struct {
	env   string
	names []string
	what  string // "C compiler"
	pkg   string // the Debian/Ubuntu package that provides one
}

var compilerKinds = map[string]compilerKind{
	"c":   {"CC", []string{"cc", "gcc", "clang"}, "C compiler", "gcc"},
	"c++": {"CXX", []string{"c++", "g++", "clang++"}, "C++ compiler", "g++"},
}

// findCompiler resolves the compiler of lang ("c" or "c++"): $CC, else cc, gcc or clang
// on PATH for C; $CXX, else c++, g++ or clang++ for C++. The variable may carry arguments
// ("ccache gcc", "g++ -m64"); one that names no program is an error rather than a reason
// to fall back, since the user asked for it.
func findCompiler(lang string) ([]string, error) {
	k := compilerKinds[lang]
	if cc := strings.Fields(os.Getenv(k.env)); len(cc) > 0 {
		p, err := exec.LookPath(cc[0])
		if err != nil {
			return nil, fmt.Errorf("$%s=%q: %v; install that compiler or point $%s at one", k.env, os.Getenv(k.env), err, k.env)
		}
		return append([]string{p}, cc[1:]...), nil
	}
	for _, name := range k.names {
		if p, err := exec.LookPath(name); err == nil {
			return []string{p}, nil
		}
	}
	return nil, fmt.Errorf("no %s: $%s is unset and none of %s is on PATH; install one (Debian/Ubuntu: apt-get install %s)",
		k.what, k.env, strings.Join(k.names, ", "), k.pkg)
}

var versions struct {
	sync.Mutex
	byTool map[string]string // compiler argv, size and mtime → --version output
}

// compilerVersion runs `cc --version` once per compiler binary and remembers the answer;
// a replaced binary (new size or mtime) is asked again.
func compilerVersion(cc []string) (string, error) {
	st, err := os.Stat(cc[0])
	if err != nil {
		return "", err
	}
	id := fmt.Sprintf("%q %d %d", cc, st.Size(), st.ModTime().UnixNano())
	versions.Lock()
	v, ok := versions.byTool[id]
	versions.Unlock()
	if ok {
		return v, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, cc[0], append(cc[1:], "--version")...)
	cmd.Env = append(os.Environ(), "LC_ALL=C")
	out, err := cmd.CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("%s --version: %v: %s", strings.Join(cc, " "), err, bytes.TrimSpace(out))
	}
	v = strings.TrimSpace(string(out))
	versions.Lock()
	if versions.byTool == nil {
		versions.byTool = map[string]string{}
	}
	versions.byTool[id] = v
	versions.Unlock()
	return v, nil
}

// resolveToolchain finds the compiler of lang ("c" or "c++") and what identifies its
// output on this machine; an error says what is missing and what to install.
func resolveToolchain(lang string) (*toolchain, error) {
	cc, err := findCompiler(lang)
	if err != nil {
		return nil, err
	}
	v, err := compilerVersion(cc)
	if err != nil {
		return nil, fmt.Errorf("the %s does not run: %v", compilerKinds[lang].what, err)
	}
	return &toolchain{lang: lang, cc: cc, version: v, cpu: cpuIdentity()}, nil
}

// versionLine is the first line of the compiler's --version output: "gcc (Debian
// 12.2.0-14) 12.2.0".
func (t *toolchain) versionLine() string {
	line, _, _ := strings.Cut(t.version, "\n")
	return line
}

// CacheDir returns the directory where compiled kernels are kept: $KTUNE_CACHE/hostc, or
// ktune/hostc in the user's cache directory ($XDG_CACHE_HOME or ~/.cache). It does not
// create it.
func CacheDir() (string, error) {
	if d := os.Getenv("KTUNE_CACHE"); d != "" {
		return filepath.Join(d, "hostc"), nil
	}
	d, err := os.UserCacheDir()
	if err != nil {
		// No shared fallback under /tmp: a directory others can write would let them
		// plant the shared objects this process loads.
		return "", fmt.Errorf("no cache directory: %v; set KTUNE_CACHE", err)
	}
	return filepath.Join(d, "ktune", "hostc"), nil
}

// cpuinfo returns the fields of the first processor in /proc/cpuinfo.
func cpuinfo() map[string]string {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return nil
	}
	defer f.Close()
	m := map[string]string{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20) // the flags line is long
	for sc.Scan() {
		line := sc.Text()
		if strings.TrimSpace(line) == "" {
			if len(m) > 0 {
				break // end of the first processor's block
			}
			continue
		}
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		k = strings.TrimSpace(k)
		if _, dup := m[k]; !dup {
			m[k] = strings.TrimSpace(v)
		}
	}
	return m
}

// cpuIdentity is what -march=native depends on: model and feature flags, not the fields
// that change from one reading to the next (clock, bogomips, core ids).
func cpuIdentity() string {
	info := cpuinfo()
	var b strings.Builder
	for _, k := range []string{
		"vendor_id", "cpu family", "model", "model name", "stepping", "flags", // x86
		"CPU implementer", "CPU architecture", "CPU variant", "CPU part", "CPU revision", "Features", // arm
		"isa", "uarch", // riscv
	} {
		if v, ok := info[k]; ok {
			fmt.Fprintf(&b, "%s=%s\n", k, v)
		}
	}
	return b.String()
}

// dataLimit is the process's data limit (RLIMIT_DATA, ulimit -d), 0 when it has none.
func dataLimit() int64 {
	var rl unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_DATA, &rl); err != nil || rl.Cur >= math.MaxInt64 {
		return 0
	}
	return int64(rl.Cur)
}
