//go:build linux

package hostc

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/ktune/ktune/device"
)

// cType is how a parameter type is spelled in C and how many bytes a scalar of it takes;
// shown is how messages spell it (<stdint.h>'s name).
type cType struct {
	name  string
	size  int
	shown string
}

// cTypes spells the parameter types with the compiler's predefined macros rather than
// <stdint.h>, so the wrapper includes no header: a header included after the user's code
// would be subject to their feature-test macros, -std and -nostdinc.
//
// float16 is _Float16, C23's (and GCC's and Clang's extension in C++) IEEE half type, on
// the targets where the compiler has it (x86-64 with SSE2, AArch64): a compiler without
// it fails on the wrapper's line, and the log then says so (float16Missing).
var cTypes = map[string]cType{
	"float16": {"_Float16", 2, "_Float16"},
	"float32": {"float", 4, "float"},
	"float64": {"double", 8, "double"},
	"int8":    {"__INT8_TYPE__", 1, "int8_t"},
	"int16":   {"__INT16_TYPE__", 2, "int16_t"},
	"int32":   {"__INT32_TYPE__", 4, "int32_t"},
	"int64":   {"__INT64_TYPE__", 8, "int64_t"},
	"uint8":   {"__UINT8_TYPE__", 1, "uint8_t"},
	"uint16":  {"__UINT16_TYPE__", 2, "uint16_t"},
	"uint32":  {"__UINT32_TYPE__", 4, "uint32_t"},
	"uint64":  {"__UINT64_TYPE__", 8, "uint64_t"},
}

var identifier = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// cxxKernelName is what a C++ kernel's name may be: a function's name, qualified
// (ns::scale) and with template arguments (matmul<float, 16>), which the wrapper calls as
// written. Statement syntax (;, braces, quotes, comments) and line breaks are not
// allowed, so that the name cannot turn the call into other code.
var cxxKernelName = regexp.MustCompile(`^(::)?[A-Za-z_][A-Za-z0-9_]*(::[A-Za-z_][A-Za-z0-9_]*)*(<[A-Za-z0-9_:<>,.+\-*&()\[\] ]*>)?$`)

// symbolPart is kernel as it may appear in a C symbol: its characters that cannot are
// underscores ("matmul<float, 16>" gives "matmul_float__16_").
func symbolPart(kernel string) string {
	return strings.Map(func(r rune) rune {
		if r == '_' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' {
			return r
		}
		return '_'
	}, kernel)
}

// openMPSpellings are the ways users of other compilers ask for OpenMP; the C compilers
// the backend drives (GCC, Clang) spell it -fopenmp.
var openMPSpellings = []string{"-fopenmp", "-openmp", "-qopenmp", "--openmp", "openmp"}

// preloadedSanitizer names the sanitizer an option asks for whose runtime must be in the
// program from its start (AddressSanitizer, ThreadSanitizer, MemorySanitizer), or is "":
// an object built with it, loaded into a running process, ends that process (ASan) or
// does not load (TSan's static TLS, MSan's undefined symbols).
func preloadedSanitizer(opt string) string {
	list, ok := strings.CutPrefix(opt, "-fsanitize=")
	if !ok {
		return ""
	}
	for _, s := range strings.Split(list, ",") {
		switch s {
		case "address", "hwaddress", "kernel-address":
			return "AddressSanitizer"
		case "thread":
			return "ThreadSanitizer"
		case "memory":
			return "MemorySanitizer"
		}
	}
	return ""
}

// unit is one translation unit ready for the compiler: the user's source followed by a
// call wrapper for each function called, and the flags that build it.
type unit struct {
	lang    string // "c" or "c++"
	kernel  string // the first function's name, for messages about the build
	calls   []*call
	text    string   // the translation unit
	flags   []string // before the source file
	libs    []string // after it: -l options, whose position matters to the linker
	display string   // the file name messages use
	base    string   // the file name the compiler gets, without its extension
}

// call is the wrapper of one function of a unit.
type call struct {
	kernel string
	params []device.Param
	symbol string // the wrapper's name
	file   string // the wrapper's name in the compiler's messages (#line)
	// argLines holds the line of the wrapper (in file) that passes each argument to the
	// kernel, so that a message about that line can name the argument
	argLines []int
	// callLine is the line of the wrapper that names the kernel in the call, where Clang
	// reports a C++ call that no function matches, naming the argument by its position
	callLine int
}

// newUnit checks src and builds its translation unit, which calls src.Kernel.
func newUnit(src device.Source) (*unit, error) {
	u, _, err := newUnitOf(src, []device.Function{{Name: src.Kernel, Params: src.Params}})
	return u, err
}

// newUnitOf checks src and builds its translation unit, with a wrapper for each of fns.
// A function whose name or parameters cannot be called is returned with the error; a
// failure of the source's, -1.
func newUnitOf(src device.Source, fns []device.Function) (*unit, int, error) {
	lang := cmp.Or(src.Language, "c")
	if lang != "c" && lang != "c++" {
		return nil, -1, fmt.Errorf("the host C backend compiles C and C++, not %q", src.Language)
	}
	if len(fns) == 0 {
		return nil, -1, errors.New("no function to call")
	}
	u := &unit{lang: lang, kernel: fns[0].Name, display: src.File}
	for j, f := range fns {
		switch {
		case lang == "c" && !identifier.MatchString(f.Name):
			return nil, j, fmt.Errorf("kernel name %q is not a C identifier (a C++ kernel's name may be qualified or name a template's instance: set kernel.language: c++)", f.Name)
		case lang == "c++" && !cxxKernelName.MatchString(f.Name):
			return nil, j, fmt.Errorf("kernel name %q is not the name of a C++ function: expected a name, qualified or not (ns::scale), with template arguments or not (matmul<float, 16>)", f.Name)
		}
		for i, p := range f.Params {
			if _, ok := cTypes[p.Type]; !ok && !p.Pointer {
				return nil, j, fmt.Errorf("parameter %d (%s): scalar type %q is not one of %s", i, p.Name, p.Type, strings.Join(slices.Sorted(maps.Keys(cTypes)), ", "))
			}
		}
		c := &call{kernel: f.Name, params: slices.Clone(f.Params), symbol: "ktune_call_" + symbolPart(f.Name), file: wrapperFile}
		if len(fns) > 1 {
			// symbolPart may give two names one symbol (f<1>, f_1_)
			c.symbol = fmt.Sprintf("ktune_call_%d_%s", j, symbolPart(f.Name))
			c.file = "<ktune call wrapper of " + f.Name + ">"
		}
		u.calls = append(u.calls, c)
	}
	u.base = symbolPart(u.kernel)
	if u.display == "" {
		u.display = u.base + u.ext()
	}

	u.flags = []string{"-O3", "-march=native", "-fPIC", "-shared", "-fdiagnostics-color=never"}
	for _, opt := range src.Options {
		for _, f := range strings.Fields(opt) { // "-O2 -ffast-math" written as one option
			switch {
			case slices.Contains(openMPSpellings, f):
				u.flags = append(u.flags, "-fopenmp")
			case strings.HasPrefix(f, "-l"):
				u.libs = append(u.libs, f)
			case preloadedSanitizer(f) != "":
				return nil, -1, fmt.Errorf("option %s: %s's runtime must be in a program from its start, and ktune loads each kernel into a running worker process, where it cannot work (AddressSanitizer's ends the process, ThreadSanitizer's and MemorySanitizer's objects do not load); run the kernel under it in a C program of its own, or use -fsanitize=undefined here (with -fno-sanitize-recover=all, a finding fails the configuration)",
					f, preloadedSanitizer(f))
			default:
				u.flags = append(u.flags, f)
			}
		}
	}
	// Definitions come after the user's options: the tuner's values win over a -D the
	// user wrote.
	for _, d := range src.Defines {
		if !identifier.MatchString(d.Name) {
			return nil, -1, fmt.Errorf("definition name %q is not a C identifier", d.Name)
		}
		if strings.ContainsAny(d.Value, "\r\n") {
			return nil, -1, fmt.Errorf("definition %s: value spans lines", d.Name)
		}
		// An empty value defines the name as nothing, as the OpenCL and CUDA backends do:
		// a string parameter "" beside "restrict" or a pragma means leave it out, where
		// -DNAME would define it as 1.
		u.flags = append(u.flags, "-D"+d.Name+"="+d.Value)
	}
	if src.File != "" {
		dir, err := filepath.Abs(filepath.Dir(src.File))
		if err != nil {
			return nil, -1, err
		}
		u.flags = append(u.flags, "-I", dir)
	}
	u.libs = append(u.libs, "-lm") // libm is not in the process unless asked for

	var b strings.Builder
	// The user's line numbers in messages; code that does not start at the file's first
	// line (a spec's inline code) starts with a #line directive of its own.
	fmt.Fprintf(&b, "#line 1 %s\n", cString(u.display))
	b.WriteString(src.Code)
	if !strings.HasSuffix(src.Code, "\n") {
		b.WriteString("\n")
	}
	writeWrapper(&b, u)
	u.text = b.String()
	return u, -1, nil
}

// ext is the extension of u's source file, which tells the compiler its language.
func (u *unit) ext() string {
	if u.lang == "c++" {
		return ".cpp"
	}
	return ".c"
}

// wrapperFile names the wrapper in the compiler's messages, where a unit calls one
// function; the wrappers of a unit that calls several are "<ktune call wrapper of NAME>".
const wrapperFile = "<ktune call wrapper>"

// signature lists the parameters as the wrapper passes them, for messages.
func (c *call) signature() string {
	parts := make([]string, len(c.params))
	for i, p := range c.params {
		parts[i] = cDecl(p)
	}
	return strings.Join(parts, ", ")
}

// cDecl declares p as the wrapper passes it, in <stdint.h>'s names: "double *out",
// "int64_t n".
func cDecl(p device.Param) string {
	t := p.Type
	if ct, ok := cTypes[p.Type]; ok {
		t = ct.shown
	}
	if p.Pointer {
		return t + " *" + p.Name
	}
	return t + " " + p.Name
}

// writeWrapper writes the call wrapper: void ktune_call_K(void **args, int64_t *ns)
// reads each argument through its pointer, calls K and stores the call's duration in *ns.
// Its names carry a ktune_ prefix and a trailing underscore, and attribute names their
// reserved spelling (__visibility__), so that the user's macros (every tuning parameter is
// one) do not rename them. It is C90 with GNU extensions in their reserved spellings (no
// long long), so that a kernel built with -std=c89 -pedantic-errors builds.
//
// The call passes each argument on a line of its own (argLines), and conversions that
// can change a value are errors there: a scalar reaching a pointer parameter or an array
// an integer one (GCC 12 and Clang 14 only warn: the kernel crashed, or read an address
// as a number), and a scalar the spec declares float64 reaching a float parameter,
// float32 an int, int64 an int, which would reach the kernel changed without a word.
// Conversions that keep every value (int32 to int64 or double, float32 to double) pass,
// as does a change of sign alone, as the OpenCL backend's check allows: of a scalar, or
// of an array's elements (an int8 array declared char *), even under the user's -Wall
// -Werror.
//
// For C++ the wrapper is C++ with C linkage (extern "C"), so that its symbol is
// ktune_call_ and the kernel's name as a symbol can hold (symbolPart), and it calls the
// kernel as written: a function of C or C++ linkage, overloaded or not, qualified, or a
// template's instance (matmul<float, 16>), the call deducing a template's arguments as a
// call in C++ code would. C++ refuses a pointer for an integer, and an integer for a
// pointer, by itself, and an array whose elements differ in sign (an int8 array declared
// char *) as well; -Wconversion catches the lossy scalars as in C.
//
// A unit that calls several functions has a wrapper for each, each under a #line of its
// own, after the declarations they share.
func writeWrapper(b *strings.Builder, u *unit) {
	fmt.Fprintf(b, "\n#line 1 \"%s\"\n", u.calls[0].file)
	var w strings.Builder // the wrapper from its line 1
	if u.lang == "c++" {
		// An array of an element type the wrapper does not know converts from void *
		// as C converts it, which C++ does only through a cast to the parameter's type:
		// ktune_void_ptr_ casts to whatever pointer the kernel takes.
		w.WriteString(`#pragma GCC diagnostic error "-Wconversion"
#pragma GCC diagnostic ignored "-Wsign-conversion"
typedef char ktune_lp64_[sizeof(long) == 8 ? 1 : -1];
struct ktune_void_ptr_ { void *ktune_p_; template <class ktune_T_> operator ktune_T_ *() const { return static_cast<ktune_T_ *>(ktune_p_); } };
extern "C" {
`)
	} else {
		w.WriteString(`#pragma GCC diagnostic error "-Wimplicit-function-declaration"
#pragma GCC diagnostic error "-Wincompatible-pointer-types"
#pragma GCC diagnostic error "-Wint-conversion"
#pragma GCC diagnostic error "-Wconversion"
#pragma GCC diagnostic ignored "-Wsign-conversion"
#pragma GCC diagnostic ignored "-Wpointer-sign"
typedef char ktune_lp64_[sizeof(long) == 8 ? 1 : -1];
`)
	}
	w.WriteString(`struct ktune_timespec_ { long ktune_sec_; long ktune_nsec_; };
extern int ktune_clock_gettime_(int, struct ktune_timespec_ *) __asm__("clock_gettime");
`)
	for i, c := range u.calls {
		if i > 0 {
			b.WriteString(w.String())
			w.Reset()
			fmt.Fprintf(b, "#line 1 \"%s\"\n", c.file)
		}
		writeCall(&w, c, u.lang == "c++")
	}
	if u.lang == "c++" {
		w.WriteString("}\n") // extern "C"
	}
	b.WriteString(w.String())
}

// writeCall writes c's wrapper function to w, which holds its file's lines before it;
// cxx: in C++.
func writeCall(w *strings.Builder, c *call, cxx bool) {
	fmt.Fprintf(w, `__attribute__((__visibility__("default"))) void %[1]s(void **ktune_args_, __INT64_TYPE__ *ktune_ns_);
__attribute__((__visibility__("default"))) void %[1]s(void **ktune_args_, __INT64_TYPE__ *ktune_ns_)
{
	struct ktune_timespec_ ktune_t0_, ktune_t1_;
`, c.symbol)
	for i, p := range c.params {
		t, known := cTypes[p.Type]
		switch {
		case p.Pointer && known:
			fmt.Fprintf(w, "\t%[1]s *ktune_a%[2]d_ = (%[1]s *)ktune_args_[%[2]d];\n", t.name, i)
		case p.Pointer && cxx:
			fmt.Fprintf(w, "\tktune_void_ptr_ ktune_a%[1]d_ = { ktune_args_[%[1]d] };\n", i)
		case p.Pointer: // an element type we do not know: let C convert void *
			fmt.Fprintf(w, "\tvoid *ktune_a%[1]d_ = ktune_args_[%[1]d];\n", i)
		default:
			fmt.Fprintf(w, "\t%[1]s ktune_a%[2]d_ = *(const %[1]s *)ktune_args_[%[2]d];\n", t.name, i)
		}
	}
	// CLOCK_MONOTONIC is 1 on Linux. The empty asm statements keep the compiler from
	// moving the kernel's memory traffic out of the timed region.
	w.WriteString("\tktune_clock_gettime_(1, &ktune_t0_);\n\t__asm__ __volatile__(\"\" ::: \"memory\");\n")
	c.callLine = strings.Count(w.String(), "\n") + 1
	fmt.Fprintf(w, "\t%s(", c.kernel)
	c.argLines = make([]int, len(c.params))
	for i := range c.params {
		if i > 0 {
			w.WriteString(",")
		}
		w.WriteString("\n\t\t")
		c.argLines[i] = strings.Count(w.String(), "\n") + 1
		fmt.Fprintf(w, "ktune_a%d_", i)
	}
	w.WriteString(");\n\t__asm__ __volatile__(\"\" ::: \"memory\");\n\tktune_clock_gettime_(1, &ktune_t1_);\n")
	w.WriteString("\t*ktune_ns_ = (ktune_t1_.ktune_sec_ - ktune_t0_.ktune_sec_) * 1000000000L + (ktune_t1_.ktune_nsec_ - ktune_t0_.ktune_nsec_);\n}\n")
}

// wrapperDiagnostic matches a compiler's error or warning at a line of a wrapper.
var wrapperDiagnostic = regexp.MustCompile(`(?m)^(<ktune call wrapper(?: of [^\n]*?)?>):([0-9]+):(?:[0-9]+:)? (?:error|warning)`)

// candidateArgument matches Clang's note on a C++ function a call could not use, which
// names the argument by its position: "no known conversion from 'long' to 'long *' for
// 3rd argument".
var candidateArgument = regexp.MustCompile(`no known conversion from .* for ([0-9]+)(?:st|nd|rd|th) argument`)

// argumentNotes names the argument each of the wrappers' lines that log reports passes,
// with its type in the spec and in C: the compiler names the wrapper's variables, not the
// spec's arguments. "" when log reports none of those lines.
func (u *unit) argumentNotes(log string) string {
	var b strings.Builder
	seen := map[string]bool{}
	for _, m := range wrapperDiagnostic.FindAllStringSubmatch(log, -1) {
		j := slices.IndexFunc(u.calls, func(c *call) bool { return c.file == m[1] })
		if j < 0 {
			continue
		}
		c := u.calls[j]
		line, _ := strconv.Atoi(m[2])
		i := slices.Index(c.argLines, line)
		if line == c.callLine && u.lang == "c++" {
			for _, cm := range candidateArgument.FindAllStringSubmatch(log, -1) {
				if n, _ := strconv.Atoi(cm[1]); n >= 1 && n <= len(c.argLines) {
					i, line = n-1, c.argLines[n-1]
					break
				}
			}
		}
		if key := fmt.Sprint(j, i); i < 0 || seen[key] {
			continue
		} else {
			seen[key] = true
		}
		p := c.params[i]
		kind := "scalar"
		if p.Pointer {
			kind = "array"
		}
		fmt.Fprintf(&b, "note: %s:%d passes the spec's argument %s (%s %s) as parameter %d of %s: declare it `%s`, or give the argument the C parameter's type\n",
			c.file, line, p.Name, p.Type, kind, i+1, c.kernel, cDecl(p))
	}
	return b.String()
}

// reported returns the calls whose wrapper log reports, in order.
func (u *unit) reported(log string) []int {
	var out []int
	for j, c := range u.calls {
		if strings.Contains(log, c.file+":") {
			out = append(out, j)
		}
	}
	return out
}

// cString quotes s as a C string literal.
func cString(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)
	return `"` + r.Replace(s) + `"`
}

// float16Missing reports whether a compile log says that the compiler has no _Float16,
// or none for its target: GCC's "'_Float16' is not supported on this target", Clang's
// "_Float16 is not supported on this target", and a compiler that does not know the
// name at all ("unknown type name", "does not name a type").
func float16Missing(log string) bool {
	for _, line := range strings.Split(log, "\n") {
		if strings.Contains(line, "_Float16") && (strings.Contains(line, "not supported on this target") ||
			strings.Contains(line, "unknown type name") || strings.Contains(line, "does not name a type")) {
			return true
		}
	}
	return false
}
