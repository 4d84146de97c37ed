package tuner

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/ktune/ktune/device"
	"github.com/ktune/ktune/spec"
)

// A run's inputs are what decides its measurements besides its space, device, strategy,
// options and seed (which select the run in the store): a run is resumed only when they
// are all as they were, so that a run never mixes measurements of different inputs.
// Each is stored in the run's settings ("inputs") by a short hash of its content, under a
// name the user knows it by:
//
//   - "spec FILE": the spec file;
//   - "kernel source" and "reference kernel source": the code as the spec loads it (its
//     source files, or its inline code);
//   - "header FILE": each file that this code includes, with #include "name" or
//     #include <name>, found in the include folders, and the files those include in turn:
//     a quoted name is looked for first in the including header's folder, then, as
//     every name, in the folders that the kernel's compiler options name with -I (relative
//     to the spec's folder, as the spec makes them) and in the folder of the
//     kernel's first source file (of the spec, for inline code), which every backend
//     passes with -I. A name found in none of them is a system header, which belongs to
//     the compiler. Includes that a macro names, and folders from CPATH or the like, are
//     not followed;
//   - "data FILE": each .npy file that fills an argument or holds a reference output;
//   - "device software": the device's version and driver as the backend reports them
//     ('ktune devices'): for host C, the compiler's path, arguments ($CC) and version
//     line, and for host C++ (a kernel or reference kernel) the C++ compiler's ($CXX)
//     besides; for OpenCL, the device's OpenCL version and its driver's version; for CUDA,
//     the driver's CUDA version and the compute capability;
//   - "reference compiler": for a C or C++ reference of an OpenCL or CUDA kernel, which
//     runs on the host (spec.HostReference), the host C or C++ compiler's path,
//     arguments and version line (addReferenceCompiler);
//   - "verification function NAME (FILE)": each verification function's code, whose
//     headers count as the kernel's do; and "verification function compiler": where they
//     run on the host beside an OpenCL or CUDA kernel, the host C or C++ compilers that
//     build them (addVerifyFunctions);
//   - "environment NAME": for a host C kernel built with OpenMP, each OpenMP variable set
//     in the environment (OMP_NUM_THREADS, OMP_PROC_BIND, GOMP_SPINCOUNT, KMP_...), which
//     the workers inherit and which decide how many threads run and how they wait.
//
// The run's spec_hash hashes them all. Runs stored by a ktune before the inputs were
// recorded hash the spec and kernel code only: they are not resumed (their inputs cannot
// be compared), and Tune says so (RunStart.Stale) when it starts a new run beside one.

// inputSet is a run's inputs: name to content hash.
type inputSet map[string]string

// maxHeaders bounds the headers followed, against include cycles through links.
const maxHeaders = 2000

// runInputs reads the inputs of a run of s on the device info describes.
func runInputs(s *spec.Spec, text []byte, info device.Info) (inputSet, error) {
	in := inputSet{}
	data := text // a spec given in memory (Options.SpecData)
	if data == nil {
		var err error
		if data, err = os.ReadFile(s.File); err != nil {
			return nil, err
		}
	}
	in["spec "+s.File] = hashBytes(data)
	// The code as the spec loads it, not as a device gets it (which starts inline code
	// with a #line directive): the same code hashes the same whatever ktune adds to it.
	in["kernel source"] = hashBytes([]byte(s.Kernel.Code))
	sources := []device.Source{s.Source()}
	if ref, ok := s.ReferenceSource(); ok {
		in["reference kernel source"] = hashBytes([]byte(s.Verification.Kernel.Code))
		sources = append(sources, ref)
	}
	for i, l := range s.Launches {
		if l.OwnSource { // a launch's function in a source of its own
			in[fmt.Sprintf("launch source %d", i)] = hashBytes([]byte(l.Kernel.Code))
			sources = append(sources, s.LaunchSource(i))
		}
	}
	for _, src := range sources {
		if err := addHeaders(in, src); err != nil {
			return nil, err
		}
	}
	var npy []string
	for _, a := range s.Arguments {
		if a.Fill.Kind == spec.FillNPY {
			npy = append(npy, a.Fill.Path)
		}
	}
	if v := s.Verification; v != nil {
		for _, p := range v.NPY {
			npy = append(npy, p)
		}
	}
	for _, p := range npy {
		h, err := hashFile(p)
		if err != nil {
			return nil, err
		}
		in["data "+p] = h
	}
	software := info.Version + "\x00" + info.Driver + "\x00" + info.Extra["compiler"]
	if usesCXX(s) {
		// a C++ kernel is the C++ compiler's code (a C one's inputs stay as they were)
		software += "\x00" + info.Extra["cxx_compiler"] + "\x00" + info.Extra["cxx_version"]
	}
	in["device software"] = hashBytes([]byte(software))
	if info.Backend == "c" && usesOpenMP(s) {
		for _, kv := range os.Environ() {
			name, value, _ := strings.Cut(kv, "=")
			if strings.HasPrefix(name, "OMP_") || strings.HasPrefix(name, "GOMP_") || strings.HasPrefix(name, "KMP_") {
				in["environment "+name] = hashBytes([]byte(value))
			}
		}
	}
	return in, nil
}

// usesCXX reports whether s's kernel, reference kernel or a verification function is
// host C++ built on the kernel's device: a C++ reference or function of an OpenCL or
// CUDA kernel is the host's (addReferenceCompiler, addVerifyFunctions).
func usesCXX(s *spec.Spec) bool {
	if s.Kernel.Language == "c++" || s.Kernel.Language == "c" && functionsUseCXX(s) {
		return true
	}
	return s.Verification != nil && s.Verification.Kernel != nil && s.Verification.Kernel.Language == "c++" && !s.HostReference()
}

// usesOpenMP reports whether s's kernel or reference kernel is built with OpenMP.
func usesOpenMP(s *spec.Spec) bool {
	kernels := []*spec.Kernel{&s.Kernel}
	if s.Verification != nil && s.Verification.Kernel != nil {
		kernels = append(kernels, s.Verification.Kernel)
	}
	for _, k := range kernels {
		if k.OpenMP || slices.ContainsFunc(k.CompilerOptions, func(o string) bool { return strings.Contains(o, "openmp") }) {
			return true
		}
	}
	return false
}

// hash is the run's spec_hash: all its inputs, in order of name.
func (in inputSet) hash() string {
	names := make([]string, 0, len(in))
	for n := range in {
		names = append(names, n)
	}
	slices.Sort(names)
	h := sha256.New()
	io.WriteString(h, "ktune run inputs 2\n")
	for _, n := range names {
		fmt.Fprintf(h, "%d:%s=%s\n", len(n), n, in[n])
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// changed names the inputs that differ between a run's stored inputs and now, sorted, a
// file's name relative to dir where it lies below it.
func (in inputSet) changed(stored inputSet, dir string) []string {
	var out []string
	for n, h := range in {
		if stored[n] != h {
			out = append(out, displayInput(n, dir))
		}
	}
	for n := range stored {
		if _, ok := in[n]; !ok {
			out = append(out, displayInput(n, dir)+" (no longer read)")
		}
	}
	slices.Sort(out)
	return out
}

func displayInput(name, dir string) string {
	kind, path, ok := strings.Cut(name, " ")
	if !ok || !filepath.IsAbs(path) {
		return name
	}
	if rel, err := filepath.Rel(dir, path); err == nil && !strings.HasPrefix(rel, "..") {
		path = rel
	}
	return kind + " " + path
}

var includeLine = regexp.MustCompile(`^\s*#\s*include\s*([<"])([^">]+)[">]`)

// addHeaders adds the headers that src's code includes, and those they include, to in.
func addHeaders(in inputSet, src device.Source) error {
	dirs := includeDirs(src)
	seen := map[string]bool{}
	var follow func(code []byte, own string) error
	follow = func(code []byte, own string) error {
		sc := bufio.NewScanner(bytes.NewReader(code))
		sc.Buffer(nil, 1<<24)
		for sc.Scan() {
			m := includeLine.FindSubmatch(sc.Bytes())
			if m == nil {
				continue
			}
			name := string(m[2])
			search := dirs
			if m[1][0] == '"' && own != "" {
				search = append([]string{own}, dirs...)
			}
			path := findHeader(name, search)
			if path == "" || seen[path] {
				continue
			}
			if len(seen) >= maxHeaders {
				return fmt.Errorf("%s: more than %d headers included", src.File, maxHeaders)
			}
			seen[path] = true
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			in["header "+path] = hashBytes(data)
			if err := follow(data, filepath.Dir(path)); err != nil {
				return err
			}
		}
		return sc.Err()
	}
	return follow([]byte(src.Code), "")
}

// includeDirs are the folders a backend's compiler searches for src's headers: those
// its options name with -I, then the source's folder.
func includeDirs(src device.Source) []string {
	var dirs []string
	add := func(d string) {
		if abs, err := filepath.Abs(d); err == nil {
			d = abs
		}
		dirs = append(dirs, d)
	}
	for i := 0; i < len(src.Options); i++ {
		o := src.Options[i]
		switch {
		case o == "-I" && i+1 < len(src.Options):
			i++
			add(src.Options[i])
		case strings.HasPrefix(o, "-I") && len(o) > 2:
			add(o[2:])
		}
	}
	if src.File != "" {
		add(filepath.Dir(src.File))
	}
	return dirs
}

// findHeader is the first regular file name names in dirs, or "".
func findHeader(name string, dirs []string) string {
	if filepath.IsAbs(name) {
		dirs = []string{""}
	}
	for _, d := range dirs {
		p := filepath.Join(d, name)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			return p
		}
	}
	return ""
}

func hashBytes(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:8])
}

func hashFile(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)[:8]), nil
}
