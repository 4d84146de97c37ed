package cuda

import (
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unsafe"

	"github.com/ktune/ktune/device"
)

// nvrtcCompilation is NVRTC_ERROR_COMPILATION: the source did not compile (the log says
// why).
const nvrtcCompilation = 6

// version returns NVRTC's version as "major.minor".
func (a *nvrtcAPI) version() string {
	var major, minor int32
	if a.Version(&major, &minor) != 0 {
		return "unknown"
	}
	return fmt.Sprintf("%d.%d", major, minor)
}

// supportedArchs returns the real architectures NVRTC can generate code for (75 for
// sm_75), ascending, or nil when this NVRTC cannot say (before CUDA 11.2).
func (a *nvrtcAPI) supportedArchs() []int {
	if a.GetNumSupportedArchs == nil || a.GetSupportedArchs == nil {
		return nil
	}
	var n int32
	if a.GetNumSupportedArchs(&n) != 0 || n <= 0 {
		return nil
	}
	archs := make([]int32, n)
	if a.GetSupportedArchs(&archs[0]) != 0 {
		return nil
	}
	out := make([]int, n)
	for i, v := range archs {
		out[i] = int(v)
	}
	slices.Sort(out)
	return out
}

// target is what NVRTC compiles for: the -arch option and whether the result is a CUBIN
// for the device (sm_XY) or PTX that the driver compiles when it loads the module.
type target struct {
	option string
	cubin  bool
}

// chooseArch picks the target for a device of compute capability cc (major*10 + minor)
// when the options name none: the device's own sm_XY when NVRTC supports it (supported
// nil: assumed), else PTX for the newest virtual architecture below it that NVRTC has,
// which the driver then compiles for the device. A device older than everything NVRTC
// supports cannot be compiled for.
func chooseArch(cc int, supported []int) (target, error) {
	if supported == nil || slices.Contains(supported, cc) {
		return target{option: fmt.Sprintf("-arch=sm_%d", cc), cubin: true}, nil
	}
	best := -1
	for _, a := range supported {
		if a <= cc {
			best = a
		}
	}
	if best < 0 {
		return target{}, fmt.Errorf("this NVRTC compiles for sm_%d to sm_%d, not for the device's sm_%d: use an older CUDA toolkit's NVRTC (set %s)",
			supported[0], supported[len(supported)-1], cc, NVRTCEnv)
	}
	return target{option: fmt.Sprintf("-arch=compute_%d", best)}, nil
}

// userArch returns the target the user's options name (-arch=X, -arch X,
// --gpu-architecture=X, --gpu-architecture X), and whether they name one.
func userArch(opts []string) (target, bool) {
	for i, o := range opts {
		var v string
		switch {
		case strings.HasPrefix(o, "-arch="):
			v = strings.TrimPrefix(o, "-arch=")
		case strings.HasPrefix(o, "--gpu-architecture="):
			v = strings.TrimPrefix(o, "--gpu-architecture=")
		case (o == "-arch" || o == "--gpu-architecture") && i+1 < len(opts):
			v = opts[i+1]
		default:
			continue
		}
		return target{option: "-arch=" + v, cubin: strings.HasPrefix(v, "sm_")}, true
	}
	return target{}, false
}

// nvrtcOptions assembles NVRTC's options: the user's options as written (split at white
// space, since NVRTC takes one option per string; a lone -arch X pair is kept as is),
// the target unless the user named one, -D NAME=VALUE for each define in order, -I for
// the source file's directory so that #include "x.h" finds files next to the kernel, and
// -I for include, the CUDA toolkit's include folder (where nvcc finds cuda_fp16.h; NVRTC
// 13 has it neither built in nor on a search path), unless it is "". NVRTC takes each
// option whole, so define values need no quoting.
func nvrtcOptions(src device.Source, arch target, include string) ([]string, target, error) {
	var opts []string
	for _, o := range src.Options {
		opts = append(opts, strings.Fields(o)...)
	}
	if t, ok := userArch(opts); ok {
		arch = t
	} else {
		opts = append(opts, arch.option)
	}
	for _, d := range src.Defines {
		if !device.IsIdentifier(d.Name) {
			return nil, arch, fmt.Errorf("define %q: the name is not a C identifier", d.Name)
		}
		if strings.ContainsAny(d.Value, "\r\n\x00") {
			return nil, arch, fmt.Errorf("define %s: the value %q holds a line break or NUL, which a definition cannot carry", d.Name, d.Value)
		}
		opts = append(opts, "-D"+d.Name+"="+d.Value)
	}
	if src.File != "" {
		dir := filepath.Dir(src.File)
		if abs, err := filepath.Abs(dir); err == nil {
			dir = abs
		}
		opts = append(opts, "-I"+dir)
	}
	if include != "" {
		opts = append(opts, "-I"+include)
	}
	return opts, arch, nil
}

// compiled is NVRTC's output for one or more kernels of a source (exported fields: the
// module cache stores it).
type compiled struct {
	Image   []byte // CUBIN, or NUL-terminated PTX
	Lowered string // the kernel's name in the module (mangled for templates and C++ names)
	// Others are the names in the module of the further kernels, where one build has
	// several (device.MultiCompiler), in order.
	Others []string
	Log    string // the compiler's messages (warnings), may be empty
	Cached bool   `gob:"-"` // read from the module cache
}

// lowered is the name in the module of the build's i-th kernel.
func (c compiled) lowered(i int) string {
	if i == 0 {
		return c.Lowered
	}
	return c.Others[i-1]
}

// compile runs NVRTC on src for arch, for the kernels names (src.Kernel is ignored). A
// source the compiler rejects gives a *device.CompileError with the log, or a
// *device.LimitError when the log says the kernel needs more shared or local memory than
// the architecture has; a kernel the program lacks gives its index with the error (-1
// for the others).
func (a *nvrtcAPI) compile(src device.Source, names []string, arch target, cache *moduleCache) (compiled, int, error) {
	opts, arch, err := nvrtcOptions(src, arch, a.include)
	if err != nil {
		return compiled{}, -1, err
	}
	// Names hold no line break: the key's field for several is each on a line.
	key, cacheable := cache.key(src.Code, strings.Join(names, "\n"), opts, a.id())
	if cacheable {
		if out, ok := cache.load(key); ok && len(out.Others) == len(names)-1 {
			out.Cached = true
			return out, -1, nil
		}
	}
	out, failed, err := a.run(src, names, opts, arch)
	if err == nil && cacheable {
		cache.store(key, out) // a full disk only costs the next compilation
	}
	return out, failed, err
}

// run compiles with NVRTC.
func (a *nvrtcAPI) run(src device.Source, names []string, opts []string, arch target) (compiled, int, error) {
	name := "kernel.cu"
	if src.File != "" {
		name = filepath.Base(src.File)
	}
	var prog uintptr
	if r := a.CreateProgram(&prog, src.Code, name, 0, nil, nil); r != 0 {
		return compiled{}, -1, a.err("nvrtcCreateProgram", r)
	}
	defer a.DestroyProgram(&prog)
	// Each kernel's name, with template arguments if any, is a name expression: NVRTC then
	// instantiates the template and reports the name it has in the module.
	for i, name := range names {
		if r := a.AddNameExpression(prog, name); r != 0 {
			return compiled{}, i, a.err("nvrtcAddNameExpression("+name+")", r)
		}
	}

	// NVRTC reads the options as an array of C strings; the strings and the array stay
	// referenced until the call returns.
	cstrs := make([][]byte, len(opts))
	ptrs := make([]*byte, len(opts)+1)
	for i, o := range opts {
		cstrs[i] = cBytes(o)
		ptrs[i] = &cstrs[i][0]
	}
	r := a.CompileProgram(prog, int32(len(opts)), unsafe.Pointer(&ptrs[0]))
	log := a.programLog(prog)
	if r != 0 {
		if r == nvrtcCompilation {
			if le := resourceOveruse(log); le != nil {
				return compiled{}, -1, le
			}
			if i := missingNameExpression(log, names); i >= 0 {
				return compiled{}, i, &device.CompileError{Log: fmt.Sprintf("no kernel named %s in the program\n%s", names[i], log), Err: a.err("nvrtcCompileProgram", r)}
			}
			return compiled{}, -1, &device.CompileError{Log: log, Err: a.err("nvrtcCompileProgram", r)}
		}
		e := a.err("nvrtcCompileProgram", r)
		return compiled{}, -1, &device.CompileError{Log: strings.TrimSpace(log + "\n" + e.Error() + "\noptions: " + strings.Join(opts, " ")), Err: e}
	}
	out := compiled{Log: log}
	for i, name := range names {
		var lowered *byte
		if r := a.GetLoweredName(prog, name, &lowered); r != 0 || lowered == nil {
			return compiled{}, i, &device.CompileError{Log: fmt.Sprintf("no kernel named %s in the program", name), Err: a.err("nvrtcGetLoweredName", r)}
		}
		if i == 0 {
			out.Lowered = goString(lowered)
		} else {
			out.Others = append(out.Others, goString(lowered))
		}
	}
	var err error
	if arch.cubin && a.GetCUBINSize != nil && a.GetCUBIN != nil {
		out.Image, err = a.output(prog, "CUBIN", a.GetCUBINSize, a.GetCUBIN)
	} else {
		out.Image, err = a.output(prog, "PTX", a.GetPTXSize, a.GetPTX)
	}
	return out, -1, err
}

// nameExpressionError is NVRTC's complaint about a name expression it cannot look up,
// in the pseudo-file of name expressions: `__nv_name_map(2): error: Error in parsing
// name expression for lowered name lookup. Input name expression was: " no_such_function"`
// (NVRTC 13.0). NVRTC 12 and 13 fail the whole build over it.
var nameExpressionError = regexp.MustCompile(`Input name expression was:\s*"\s*([^"]*?)\s*"`)

// diagnosticError is an error line of NVRTC's log: "kernel.cu(3): error: ..." (or
// "catastrophic error").
var diagnosticError = regexp.MustCompile(`^\S.*\([0-9]+\): (catastrophic )?error`)

// missingNameExpression is the index in names of the kernel whose name expression a
// failed build's log complains of, when every error of the log is about name
// expressions (an error in the code itself comes first); -1 otherwise.
func missingNameExpression(log string, names []string) int {
	m := nameExpressionError.FindStringSubmatch(log)
	if m == nil {
		return -1
	}
	for _, line := range strings.Split(log, "\n") {
		if diagnosticError.MatchString(line) && !strings.HasPrefix(line, "__nv_name_map(") {
			return -1
		}
	}
	for i, n := range names {
		if strings.TrimSpace(n) == m[1] {
			return i
		}
	}
	return -1
}

// output reads the compiled program through a size and a copy entry point.
func (a *nvrtcAPI) output(prog uintptr, what string, size func(uintptr, *uintptr) int32, get func(uintptr, *byte) int32) ([]byte, error) {
	var n uintptr
	if r := size(prog, &n); r != 0 {
		return nil, a.err("nvrtcGet"+what+"Size", r)
	}
	if n == 0 {
		return nil, fmt.Errorf("cuda: NVRTC produced an empty %s", what)
	}
	buf := make([]byte, n)
	if r := get(prog, &buf[0]); r != 0 {
		return nil, a.err("nvrtcGet"+what, r)
	}
	return buf, nil
}

// programLog returns the compiler's log, trimmed.
func (a *nvrtcAPI) programLog(prog uintptr) string {
	var n uintptr
	if a.GetProgramLogSize(prog, &n) != 0 || n <= 1 {
		return ""
	}
	buf := make([]byte, n)
	if a.GetProgramLog(prog, &buf[0]) != 0 {
		return ""
	}
	return strings.TrimSpace(nulTerminated(buf))
}

func (a *nvrtcAPI) err(call string, r int32) error {
	return fmt.Errorf("%s: %s", call, a.GetErrorString(r))
}

// overuse matches ptxas's reports of a kernel that needs more of a per-block resource than
// the architecture has, e.g. "ptxas error   : Entry function '_Z4gemmPf' uses too much
// shared data (0xc004 bytes, 0xc000 max)".
var overuse = regexp.MustCompile(`(?m)uses too much (shared|local|param) data \((0x[0-9a-fA-F]+) bytes, (0x[0-9a-fA-F]+) max\)`)

// resourceOveruse returns the device limit a compile failure reports, or nil.
func resourceOveruse(log string) *device.LimitError {
	m := overuse.FindStringSubmatch(log)
	if m == nil {
		return nil
	}
	want, err1 := strconv.ParseInt(m[2], 0, 64)
	limit, err2 := strconv.ParseInt(m[3], 0, 64)
	if errors.Join(err1, err2) != nil {
		return &device.LimitError{What: "the kernel uses too much " + m[1] + " memory: " + strings.TrimSpace(m[0])}
	}
	return &device.LimitError{
		What:  fmt.Sprintf("the kernel needs %d bytes of %s memory per block; the architecture allows %d (ptxas)", want, m[1], limit),
		Limit: limit, Want: want,
	}
}
