package spec

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/ktune/ktune/device"
	"github.com/ktune/ktune/expr"
	"github.com/ktune/ktune/result"
	"github.com/ktune/ktune/space"
)

// Spec is a kernel spec: the kernel, its tunable parameters and restrictions, its launch
// geometry and arguments, how to verify its output and what to optimise. Parse and Load
// fill and check it; it is read-only afterwards, and its methods may then be called from
// several goroutines at once. A Spec made otherwise (a struct literal) has no compiled
// expressions: its methods return ErrNotParsed; a program that builds a spec writes it as
// YAML or JSON and parses it (Parse), then reads the kernel sources it names (ReadFiles).
type Spec struct {
	File string // the spec file as given; relative paths in the spec are resolved against its directory

	Kernel            Kernel
	Constants         []Constant    // named numbers (problem sizes), in the file's order
	Parameters        []space.Param // tunable parameters, in the file's order
	Restrictions      []string      // restriction expressions over the parameters
	ProblemSize       []string      // 1 to 3 expressions; empty when not given (an explicit Grid needs none)
	BlockSizeNames    [3]string     // the parameters that give the block size per dimension
	GridDiv           [3][]string   // grid divisors per dimension; nil means Kernel Tuner's default (the block size)
	Grid, Block       []string      // explicit launch expressions (3 each, "1" padded); nil when derived
	SharedMemoryBytes string        // dynamic shared memory in bytes per block (CUDA), an expression; "" for none
	Arguments         []Argument    // the kernel's arguments, in call order
	Verification      *Verification // nil when outputs are not checked
	Metrics           []Metric      // derived results, evaluated in order
	// Essential are the operations the task essentially needs (essential_ops), from which
	// efficiency against a device's peaks is computed; nil when the spec declares none.
	Essential      *EssentialOps
	Iterations     int           // timed runs per configuration
	Statistic      string        // how the runs combine into one time: "mean", "median" or "min"
	Timeout        time.Duration // per configuration: from the kernel's first launch to its last timed run
	MinTime        time.Duration // timed runs go on, in rounds of Iterations, until they last this long; 0: off
	CompileTimeout time.Duration // per configuration: compiling the kernel
	Default        []space.Value // a baseline configuration; nil when not given
	Seed           uint64        // seed of the generated input data
	// Warnings are what Parse found likely wrong but not wrong enough to refuse: a
	// restriction comparing a parameter with a value it never takes (a misspelled string
	// quietly removes configurations). Callers show them; the spec works as written.
	Warnings []*Error
	// Launches is the sequence of launches a configuration runs (launches:), nil for the
	// kernel launched once with the spec's geometry and every argument.
	Launches []Launch

	objective string
	maximize  bool
	c         *compiled
	files     map[string][]string // the field paths naming each kernel's source files, by kernel field
	lines     map[string]int      // the line of each field path that names a file
	argsLine  int                 // the line of the arguments key
	// refArgsLine is the line of the reference kernel's own arguments, or 0
	refArgsLine int
	argLines    []int // the line of each argument, by index
	// raw is the text Parse was given, from which WithConstants derives a spec with
	// other constants; filesRead says ReadFiles has read the kernel sources.
	raw       []byte
	filesRead bool
	// read keeps the files ReadFiles read, shared with the specs WithConstants derives
	read *fileCache
}

// fileAt records that the field path field, at line, names a file.
func (s *Spec) fileAt(field string, line int) {
	if s.lines == nil {
		s.lines = map[string]int{}
	}
	s.lines[field] = line
}

// Kernel is kernel source and how to compile it.
type Kernel struct {
	Name     string   // the function to launch
	Language string   // "opencl", "cuda", "c" or "c++"
	Files    []string // source files, resolved against the spec's directory, concatenated in order
	Code     string   // the source text: inline code, or the files' contents once Load has read them
	// CodeLine is the line of the spec on which inline code's first line sits (for a
	// block, code: |, the line after it); 0 when the code comes from files.
	CodeLine        int
	CompilerOptions []string // passed to the compiler as written
	Defines         bool     // inject the parameters (and derived sizes) as preprocessor definitions
	OpenMP          bool     // host C: compile with OpenMP
	// DefineList is a defines mapping, Kernel Tuner's defines dict: exactly these
	// definitions, in order, for each configuration, instead of the parameters (Defines
	// is then false); nil without one.
	DefineList []KernelDefine
	// Grid and Block are a reference kernel's own launch (expressions, 3 each, or nil for
	// the tuned kernel's at the reference configuration).
	Grid, Block []string
}

// KernelDefine is one definition of a kernel's defines mapping.
type KernelDefine struct {
	Name string
	Expr string // a number, or an expression over parameters, constants and launch sizes
}

// Constant is a named number the expressions of a spec may read, such as a problem size.
type Constant struct {
	Name  string
	Value float64
}

// ArgKind is how an argument is passed to the kernel.
type ArgKind string

// Argument kinds.
const (
	ArgArray  ArgKind = "array"  // a device buffer, passed as a pointer
	ArgScalar ArgKind = "scalar" // a value
	ArgLocal  ArgKind = "local"  // OpenCL only: local memory allocated per work-group (a __local pointer)
	// ArgConstant is an array copied into the module variable of the argument's name (a
	// CUDA __constant__ array) instead of being passed: Kernel Tuner's cmem_args.
	ArgConstant ArgKind = "constant"
)

// Argument is one kernel argument.
type Argument struct {
	Name   string
	Kind   ArgKind
	Type   string // element type (arrays, local) or value type (scalars): float32, int32, uint8...
	Length string // arrays and local: element count, an expression
	Value  string // scalars: the value, an expression
	Fill   Fill   // arrays: initial contents
	Output bool   // arrays: the kernel writes it; verification compares it
	// Scratch marks an array the kernel may write without it being an output (a buffer
	// of intermediate results, a counter of atomics): verification neither compares it
	// nor checks that the kernel left it unchanged, as it checks other inputs.
	Scratch bool
}

// FillKind names how an array's initial contents are made.
type FillKind string

// Fill kinds.
const (
	FillZeros    FillKind = "zeros"
	FillRandom   FillKind = "random"
	FillConstant FillKind = "constant"
	FillRange    FillKind = "range"
	FillNPY      FillKind = "npy"
	// FillFrom takes the elements of another array argument (Fill.From), every
	// FromStride-th from FromStart: one field of an array of structures, or a copy.
	FillFrom FillKind = "from"
)

// Fill describes an array's initial contents.
type Fill struct {
	Kind         FillKind
	Distribution string  // random: "uniform" or "normal"
	Low, High    float64 // random: uniform bounds, or the bounds normal values are clamped to (±Inf when not given)
	Mean, Stddev float64 // random, normal
	Seed         *uint64 // random: a seed of its own instead of the spec's
	Value        float64 // constant
	Start, Step  float64 // range: element i is Start + i*Step
	Path         string  // npy: the file, resolved against the spec's directory
	// From names the argument whose generated data a from fill takes: element i is
	// From's element FromStart + i*FromStride, converted exactly to this argument's type.
	From                  string
	FromStart, FromStride int
}

// Verification says how a configuration's outputs are checked.
type Verification struct {
	Kernel *Kernel // a reference kernel; nil when the reference is the tuned kernel itself or files
	// KernelArgs are the arguments the reference kernel takes (indices into Arguments,
	// in its parameter order); nil when it takes the kernel's. Constant-memory
	// arguments are not passed, and are copied for it as for the kernel; a reference on
	// the host (HostReference) takes them as arrays, and its KernelArgs are never nil:
	// every argument, in the spec's order, where it names none.
	KernelArgs []int
	Config     []space.Value  // the configuration the reference runs at; nil: Default, else the space's first
	NPY        map[int]string // expected contents by argument index, from .npy files
	Outputs    []int          // compared arguments (indices into Arguments)
	Atol       float64        // absolute tolerance for float outputs; integer outputs compare exactly
	Rtol       float64        // relative tolerance for float outputs: |got-want| <= Atol + Rtol*|want|
	Checks     []Check        // how each of Outputs is compared, in its order (see Check)
	// HalfAtol and HalfRtol are the tolerances of float16 outputs: the spec's atol and
	// rtol where it gives them, else DefaultHalfAtol and DefaultHalfRtol.
	HalfAtol, HalfRtol float64
}

// Tolerance returns the atol and rtol that outputs of element type typ are compared
// with: HalfAtol and HalfRtol for float16, Atol and Rtol otherwise.
func (v *Verification) Tolerance(typ string) (atol, rtol float64) {
	if typ == "float16" {
		return v.HalfAtol, v.HalfRtol
	}
	return v.Atol, v.Rtol
}

// Metric is a value derived from a measurement, such as GFLOP/s.
type Metric struct {
	Name string
	Expr string // over parameters, constants, problem_size_*, grid and block sizes and time (ms)
	// Maximize says higher is better: as the spec's maximize says, or when it says nothing,
	// as result.HigherIsBetter guesses from the name (rates such as GB/s, GFLOP/s,
	// GFLOPS/W and items_per_second are maximised, anything else, such as ns/step,
	// minimised), the rule by which imported files' objectives get their direction.
	Maximize bool
	// MaximizeWritten tells a maximize: false in the spec from none: only the second
	// takes the direction from the name.
	MaximizeWritten bool
}

// Defaults.
const (
	DefaultIterations = 32
	DefaultStatistic  = "mean"
	DefaultTimeout    = 10 * time.Second
	// DefaultCompileTimeout bounds a compilation that never ends (a compiler stuck on an
	// #include of a pipe, a pathological unroll): long, since real builds of large
	// kernels take minutes.
	DefaultCompileTimeout = 5 * time.Minute
	DefaultAtol           = 1e-6
	DefaultRtol           = 1e-5
	// DefaultHalfAtol and DefaultHalfRtol are the tolerances of float16 outputs when the
	// spec gives none, PyTorch's for float16 (torch.testing.assert_close): a half holds
	// about 3 decimal digits, so results that differ in their last bit (a relative 2^-10
	// at most, for normal numbers) pass, and DefaultAtol would fail them.
	DefaultHalfAtol = 1e-5
	DefaultHalfRtol = 1e-3
)

var topFields = []string{
	"kernel", "constants", "parameters", "restrictions", "problem_size", "block_size_names",
	"grid_div_x", "grid_div_y", "grid_div_z", "grid", "block", "shared_memory_bytes",
	"arguments", "launches", "verification", "objective", "metrics", "iterations", "statistic",
	"min_time", "timeout", "compile_timeout", "default_config", "seed", "essential_ops",
}

// kernelTunerNames maps Kernel Tuner's argument names to the spec's fields.
var kernelTunerNames = map[string]string{
	"kernel_name": "kernel.name", "kernel_source": "kernel.source", "lang": "kernel.language",
	"compiler_options": "kernel.compiler_options", "tune_params": "parameters",
	"restrict": "restrictions", "answer": "verification.reference", "atol": "verification.atol",
	"smem_args": "shared_memory_bytes", "objective_higher_is_better": "metrics[].maximize",
	"defines": "kernel.defines", "verify": "verification.function", "cmem_args": "arguments[].kind: constant",
}

// kernelTunerElsewhere says where ktune takes Kernel Tuner's arguments that are no field
// of a spec: a flag, a command, or nothing.
var kernelTunerElsewhere = map[string]string{
	"strategy":         "a flag of ktune tune: --strategy NAME",
	"strategy_options": "flags of ktune tune: --option NAME=VALUE, once for each",
	"device":           "a flag of ktune tune: --device BACKEND:INDEX ('ktune devices' lists them)",
	"platform":         "a flag of ktune tune: --device BACKEND:INDEX ('ktune devices' lists them)",
	"cache":            "the results database (ktune tune --db; the same command resumes a run), which 'ktune export --format kerneltuner' writes as a cache file",
	"verbose":          "a flag of ktune: --log-level debug",
	"quiet":            "a flag of ktune: --log-level error",
	"simulation_mode":  "the command ktune simulate, which replays a recorded space or cache file",
	"observers":        "metrics that read energy, power, core_clock, memory_clock, registers or shared_memory",
	"texmem_args":      "not supported: ktune has no texture memory; pass the array as an ordinary argument",
}

// Load reads a spec file (YAML or JSON), checks it, and reads the kernel sources and the
// headers of the .npy files it names.
func Load(path string) (*Spec, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	s, err := Parse(data, path)
	if err != nil {
		return nil, err
	}
	if err := s.ReadFiles(); err != nil {
		return nil, err
	}
	return s, nil
}

// Parse reads and checks a spec from data; path names it in errors and anchors relative
// paths. Parse touches no files: kernel sources and .npy files are read by Load (sources)
// and Generate (fills). A program that builds a spec in memory, naming kernel source
// files, calls ReadFiles before the spec's kernel is compiled (or gives the code inline,
// kernel.code); Load is Parse of a file's content then ReadFiles.
func Parse(data []byte, path string) (*Spec, error) {
	d := &decoder{file: path}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, syntaxError(path, data, err)
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return nil, &Error{File: path, Msg: "empty spec; expected a mapping with at least kernel and parameters"}
	}
	return parseDoc(d, &doc, data, path)
}

// parseDoc decodes and checks the parsed document of data.
func parseDoc(d *decoder, doc *yaml.Node, data []byte, path string) (*Spec, error) {
	s := &Spec{File: path, Iterations: DefaultIterations, Statistic: DefaultStatistic, Timeout: DefaultTimeout,
		CompileTimeout: DefaultCompileTimeout, objective: "time", raw: data}
	p := &parser{d: d, s: s, dir: filepath.Dir(path)}
	p.top(doc.Content[0])
	if err := d.err(); err != nil {
		return nil, err
	}
	return s, nil
}

// parser holds what decoding one spec needs beyond the Spec itself.
type parser struct {
	d        *decoder
	s        *Spec
	dir      string
	c        *compiled
	paramsOK bool // parameters decoded without error: expressions over them can be checked
	// consts are the constants' values by name, for the parameters' value lists, which
	// are read before the constants get their slots (after the parameters').
	consts map[string]float64
	// defines is the tuned kernel's defines mapping, compiled once the launch sizes
	// have their slots (the kernel is read before the parameters)
	defines      []entry
	definesField string
	refArgs      *yaml.Node // verification.reference.kernel.arguments
	// refLaunch are the lines of the reference kernel's grid and block, by key
	refLaunch map[string]int
	// launchesGiven says the spec has launches, whose functions the kernel's name is not;
	// problemMissing that it has neither problem_size nor grid, which its launches must
	// then give.
	launchesGiven, problemMissing bool
}

func (p *parser) resolvePath(f string) string {
	if filepath.IsAbs(f) {
		return f
	}
	return filepath.Join(p.dir, f)
}

// pathOptions are the compiler options whose next argument is a path (the C compilers',
// NVRTC's and the OpenCL runtimes'); -I and -L also take it joined (-Iinc).
var pathOptions = []string{"-I", "-L", "-isystem", "-iquote", "-idirafter", "-include", "-imacros", "--include-path"}

// resolveOptionPaths makes the relative paths that options name (-I inc, -Iinc,
// -include x.h, --include-path=inc) relative to the spec's folder, as every path of a
// spec is, rather than to the folder ktune runs in, where the compiler would look for
// them. An option written as "-I" with its path in the next item counts too. An item
// with quotes or backslashes is left as written, since a runtime may parse them, and so
// is a path that would hold white space.
func (p *parser) resolveOptionPaths(opts []string) []string {
	out := make([]string, len(opts))
	pending := false // the last option read takes a path next
	for i, o := range opts {
		out[i] = o
		if strings.ContainsAny(o, "\"'\\") {
			pending = false
			continue
		}
		fields := strings.Fields(o)
		changed := false
		for j, f := range fields {
			resolved := f
			switch {
			case pending:
				resolved = p.resolvePath(f)
				pending = false
			case contains(pathOptions, f):
				pending = true
			case strings.HasPrefix(f, "--include-path="):
				resolved = "--include-path=" + p.resolvePath(strings.TrimPrefix(f, "--include-path="))
			case len(f) > 2 && (strings.HasPrefix(f, "-I") || strings.HasPrefix(f, "-L")):
				resolved = f[:2] + p.resolvePath(f[2:])
			}
			// A path with white space would be split by the backends that split
			// options at it (host C, CUDA): it stays as written.
			if resolved != f && !strings.ContainsAny(resolved, " \t") {
				fields[j], changed = resolved, true
			}
		}
		if changed {
			out[i] = strings.Join(fields, " ")
		}
	}
	return out
}

func (p *parser) top(root *yaml.Node) {
	d, s := p.d, p.s
	entries, ok := d.mapping(root, "", nil)
	if !ok {
		return
	}
	fields := map[string]entry{}
	for _, e := range entries {
		if !contains(topFields, e.key) {
			hint := suggest(e.key, topFields)
			if kt, isKT := kernelTunerNames[e.key]; isKT {
				hint = fmt.Sprintf("; Kernel Tuner's %s is %s here", e.key, kt)
			} else if kt, isKT := kernelTunerElsewhere[e.key]; isKT {
				hint = fmt.Sprintf("; Kernel Tuner's %s is %s", e.key, kt)
			}
			d.errAt(e.line, e.key, "unknown field%s; expected one of %s", hint, strings.Join(topFields, ", "))
			continue
		}
		fields[e.key] = e
	}
	// A member given as null is not given: Kernel Tuner's keyword arguments default to
	// None, and specs dumped from them hold "grid_div_y": null.
	get := func(k string) *yaml.Node {
		if e, ok := fields[k]; ok && !(e.value.Kind == yaml.ScalarNode && e.value.Tag == "!!null") {
			return e.value
		}
		return nil
	}

	p.launchesGiven = get("launches") != nil
	if n := get("kernel"); n != nil {
		if k, ok := p.kernel(n, "kernel", true, fields["kernel"].line); ok {
			s.Kernel = *k
		}
	} else {
		d.errAt(root.Line, "kernel", "missing; expected a mapping with at least name and source")
	}
	var consts []constDef
	if n := get("constants"); n != nil {
		consts = p.constants(n)
	}
	p.parameters(get("parameters"), root.Line)
	p.c = newCompiled(s.Parameters)
	p.addConstants(consts)
	if n := get("restrictions"); n != nil {
		p.restrictions(n)
	}
	p.geometry(get)
	if p.defines != nil {
		p.c.defs = p.compileDefines(&s.Kernel, p.defines, p.definesField)
	}
	if n := get("arguments"); n != nil {
		s.argsLine = fields["arguments"].line
		p.arguments(n)
	}
	if n := get("launches"); n != nil {
		p.launches(n)
		if s.Kernel.Name == "" && len(s.Launches) > 0 && s.Launches[0].Kernel.Name != "" {
			// results name the kernel: the first function launched, where kernel.name
			// gives no name of its own
			s.Kernel.Name = s.Launches[0].Kernel.Name
		}
		s.checkLaunchFunctions(d) // inline code; files are read by ReadFiles
	}
	p.c.finishScopes(s)
	if n := get("essential_ops"); n != nil && p.paramsOK {
		p.essentialOps(n)
	}
	if n := get("metrics"); n != nil {
		p.metrics(n)
	}
	if n := get("objective"); n != nil {
		p.objective(n)
	}
	if n := get("verification"); n != nil {
		p.verification(n, fields["verification"].line)
	}
	if n := get("iterations"); n != nil {
		if i, ok := d.integer(n, "iterations"); ok {
			if i < 1 || i > 1<<20 {
				d.errf(n, "iterations", "%d; expected a whole number of timed runs, at least 1", i)
			} else {
				s.Iterations = int(i)
			}
		}
	}
	if n := get("statistic"); n != nil {
		if st, ok := d.str(n, "statistic"); ok {
			if st != "mean" && st != "median" && st != "min" {
				d.errf(n, "statistic", "unknown statistic %q%s; expected mean, median or min", st, suggest(st, []string{"mean", "median", "min"}))
			} else {
				s.Statistic = st
			}
		}
	}
	if n := get("timeout"); n != nil {
		if t, ok := p.duration(n, "timeout"); ok {
			s.Timeout = t
		}
	}
	if n := get("compile_timeout"); n != nil {
		if t, ok := p.duration(n, "compile_timeout"); ok {
			s.CompileTimeout = t
		}
	}
	if n := get("min_time"); n != nil {
		// 0 turns it off, as a duration (0s) or a bare number.
		if rn := d.resolve(n); rn != nil && rn.Kind == yaml.ScalarNode && zeroDuration(rn.Value) {
			s.MinTime = 0
		} else if t, ok := p.duration(n, "min_time"); ok {
			if t >= s.Timeout {
				d.errf(n, "min_time", "%v is not shorter than the timeout of %v, which would end the runs first; expected a shorter min_time (10ms suits kernels of microseconds) or a longer timeout", t, s.Timeout)
			} else {
				s.MinTime = t
			}
		}
	}
	if n := get("default_config"); n != nil && p.paramsOK {
		s.Default = p.config(n, "default_config")
	}
	if n := get("seed"); n != nil {
		if i, ok := d.integer(n, "seed"); ok {
			if i < 0 {
				d.errf(n, "seed", "%d; expected a non-negative integer", i)
			} else {
				s.Seed = uint64(i)
			}
		}
	}
	s.c = p.c
}

// zeroDuration reports whether v is a duration of zero: 0, 0s, 0ms...
func zeroDuration(v string) bool {
	if v == "0" {
		return true
	}
	t, err := time.ParseDuration(v)
	return err == nil && t == 0
}

// duration reads a positive Go duration (10s, 1m30s) of field f.
func (p *parser) duration(n *yaml.Node, f string) (time.Duration, bool) {
	d := p.d
	if rn := d.resolve(n); rn != nil && rn.Kind == yaml.ScalarNode && (rn.ShortTag() == "!!int" || rn.ShortTag() == "!!float") {
		// The number with a unit is the example, unless it would not be positive either.
		example := rn.Value + "s"
		if x, err := strconv.ParseFloat(rn.Value, 64); err != nil || !(x > 0) {
			example = "10s"
		}
		d.errf(rn, f, "%s has no unit; expected a positive Go duration such as %s", rn.Value, example)
		return 0, false
	}
	ts, ok := d.str(n, f)
	if !ok {
		return 0, false
	}
	t, err := time.ParseDuration(ts)
	switch {
	case err != nil:
		d.errf(n, f, "%q is not a duration; expected a Go duration such as 10s, 500ms or 1m30s", ts)
	case t <= 0:
		d.errf(n, f, "%s; expected a positive duration", ts)
	default:
		return t, true
	}
	return 0, false
}

var languages = []string{"opencl", "cuda", "c", "c++"}

// languageSpellings are other ways users write a language: C++ as its files' extensions
// and build tools name it.
var languageSpellings = map[string]string{"cpp": "c++", "cxx": "c++"}

// hostLanguage reports whether kernels of lang run on the host C backend: C and C++.
func hostLanguage(lang string) bool { return lang == "c" || lang == "c++" }

// languageOfFile is the language a source file's extension implies, or "". .C (capital)
// is C++, as GCC takes it; other extensions are read in any case.
func languageOfFile(path string) string {
	ext := filepath.Ext(path)
	if ext == ".C" || ext == ".H" {
		return "c++"
	}
	switch strings.ToLower(ext) {
	case ".cl":
		return "opencl"
	case ".cu", ".cuh":
		return "cuda"
	case ".c", ".h":
		return "c"
	case ".cpp", ".cc", ".cxx", ".c++", ".cp", ".hpp", ".hh", ".hxx":
		return "c++"
	}
	return ""
}

// kernel decodes a kernel mapping; main is false for a reference kernel, whose language
// defaults to the tuned kernel's.
func (p *parser) kernel(n *yaml.Node, field string, main bool, keyLine int) (*Kernel, bool) {
	d := p.d
	known := []string{"name", "language", "source", "code", "compiler_options", "defines", "openmp"}
	if !main {
		known = append(known, "grid", "block", "arguments")
	}
	entries, ok := d.mapping(n, field, known)
	if !ok && entries == nil {
		return nil, false
	}
	k := &Kernel{Defines: true}
	if !main {
		// a reference kernel that says nothing is compiled as the tuned kernel is
		k.Defines, k.DefineList = p.s.Kernel.Defines, p.s.Kernel.DefineList
	}
	var langNode, nameNode *yaml.Node
	openmpLine := 0
	codeLines := false // the code's lines are the spec's (a literal block, code: |)
	for _, e := range entries {
		f := join(field, e.key)
		switch e.key {
		case "name":
			nameNode = e.value
			if v, ok := d.name(e.value, f); ok {
				k.Name = v
			}
		case "language":
			langNode = e.value
			if v, ok := d.str(e.value, f); ok {
				l := strings.ToLower(v)
				if c, ok := languageSpellings[l]; ok {
					l = c
				}
				if !contains(languages, l) {
					d.errf(e.value, f, "unknown language %q%s; expected opencl, cuda, c or c++", v, suggest(l, languages))
				}
				k.Language = l
			}
		case "source":
			items, ok := d.list(e.value, f, true)
			if !ok {
				continue
			}
			if len(items) == 0 {
				d.errf(e.value, f, "empty list; expected a file name or a list of files")
			}
			for i, it := range items {
				fi := index(f, i)
				if d.resolve(e.value) != nil && d.resolve(e.value).Kind == yaml.ScalarNode {
					fi = f // a single file, not a list
				}
				if v, ok := d.name(it, fi); ok {
					k.Files = append(k.Files, p.resolvePath(v))
					if p.s.files == nil {
						p.s.files = map[string][]string{}
					}
					p.s.files[field] = append(p.s.files[field], fi)
					p.s.fileAt(fi, it.Line)
				}
			}
		case "code":
			if v, ok := d.name(e.value, f); ok {
				k.Code = v
				k.CodeLine = codeLine(e.value)
				if r := d.resolve(e.value); r != nil && r.Style&yaml.LiteralStyle != 0 {
					codeLines = true
				}
			}
		case "compiler_options":
			items, ok := d.list(e.value, f, true)
			if !ok {
				continue
			}
			for i, it := range items {
				if v, ok := d.str(it, index(f, i)); ok {
					k.CompilerOptions = append(k.CompilerOptions, v)
				}
			}
			k.CompilerOptions = p.resolveOptionPaths(k.CompilerOptions)
		case "defines":
			if v := d.resolve(e.value); v != nil && v.Kind == yaml.MappingNode {
				defs, ok := d.mapping(v, f, nil)
				if !ok {
					continue
				}
				k.Defines, k.DefineList = false, []KernelDefine{}
				if main {
					p.defines, p.definesField = defs, f
				} else {
					p.c.refDefs, p.c.refDefsSet = p.compileDefines(k, defs, f), true
				}
				continue
			}
			if v, ok := d.boolean(e.value, f); ok {
				k.Defines, k.DefineList = v, nil
				if !main {
					p.c.refDefsSet = true
				}
			}
		case "openmp":
			if v, ok := d.boolean(e.value, f); ok {
				k.OpenMP = v
				openmpLine = e.value.Line
			}
		case "arguments":
			// a reference kernel's own parameter list: read by verification, which
			// knows the arguments
			p.refArgs = e.value
		case "grid", "block":
			// A reference kernel's own launch: a naive reference computes one element
			// per thread, which the tuned kernel's geometry (tiles, work per thread)
			// would launch too few of.
			if p.refLaunch == nil {
				p.refLaunch = map[string]int{}
			}
			p.refLaunch[e.key] = e.line
			srcs, nums, ok := p.exprList(e.value, f, p.c.geomScope, 1, 3)
			for len(srcs) < 3 && ok {
				srcs = append(srcs, "1")
			}
			if !ok || !p.paramsOK {
				continue
			}
			p.checkConst(nums, true, "a positive whole number", func(v float64) bool { return v >= 1 })
			if e.key == "grid" {
				k.Grid, p.c.refGrid, p.c.refGridSet = srcs, [3]*cnum{}, true
				copy(p.c.refGrid[:], nums)
			} else {
				k.Block, p.c.refBlock, p.c.refBlockSet = srcs, [3]*cnum{}, true
				copy(p.c.refBlock[:], nums)
			}
		}
	}
	line := keyLine
	if k.Name == "" && !hasKey(entries, "name") && !(main && p.launchesGiven) {
		d.errAt(line, join(field, "name"), "missing; expected the name of the kernel function")
	}
	switch {
	case k.Files == nil && k.Code == "" && !hasKey(entries, "source") && !hasKey(entries, "code"):
		d.errAt(line, join(field, "source"), "missing; expected a source file (or a list of files), or inline code")
	case hasKey(entries, "source") && hasKey(entries, "code"):
		d.errAt(line, join(field, "code"), "cannot be combined with source; give one of them")
	}
	if k.Language == "" && langNode == nil {
		if len(k.Files) > 0 {
			k.Language = languageOfFile(k.Files[0])
		}
		if k.Language == "" && main {
			d.errAt(line, join(field, "language"), "missing and not implied by a source file ending in .cl, .cu, .c, .cpp or .cc; expected opencl, cuda, c or c++")
		}
	}
	if k.Language == "c" && k.Name != "" && !isCIdentifier(k.Name) {
		// the host C backend calls the function by this name; a template's instance or a
		// qualified name is C++
		d.errf(nameNode, join(field, "name"), "%q is not a C function's name; a C++ function's (a template's instance, a qualified name) is, with language: c++", k.Name)
	}
	if k.OpenMP && k.Language != "" && !hostLanguage(k.Language) {
		d.errAt(openmpLine, join(field, "openmp"), "only applies to languages c and c++, not %s", k.Language)
	}
	if k.CodeLine > 0 {
		if line := k.ompWithoutOpenMP(k.Code); line > 0 {
			where := "this line of the code has"
			if !codeLines {
				line, where = 1, "the code has"
			}
			p.s.Warnings = append(p.s.Warnings, &Error{File: d.file, Line: k.CodeLine + line - 1, Field: join(field, "code"), Msg: ompWarning(where, field)})
		}
	}
	return k, true
}

// compileDefines compiles a defines mapping (Kernel Tuner's defines dict) into k's
// DefineList and the definitions it returns. A value is a number, true or false, the name
// of a parameter (whose value is written as the default definitions write it, a string
// parameter's too) or an expression over the parameters, the constants and the launch
// sizes, evaluated for each configuration.
func (p *parser) compileDefines(k *Kernel, defs []entry, field string) []cdef {
	d := p.d
	out := make([]cdef, 0, len(defs))
	for _, e := range defs {
		f := join(field, e.key)
		if !isCIdentifier(e.key) || isCKeyword(e.key) {
			d.errAt(e.line, f, "%q is not a name the preprocessor can define; expected a C identifier", e.key)
			continue
		}
		if k.Language == "c++" && isCXXKeyword(e.key) {
			d.errAt(e.line, f, "%q is a keyword of C++, which its #define would break in the kernel's code; choose another name", e.key)
			continue
		}
		cd := cdef{name: e.key, param: -1}
		src := ""
		n := d.resolve(e.value)
		switch {
		case n == nil:
			continue
		case n.Kind == yaml.ScalarNode && n.ShortTag() == "!!bool":
			b, _ := d.boolean(n, f)
			cd.fixed, src = "0", "False"
			if b {
				cd.fixed, src = "1", "True"
			}
		case n.Kind == yaml.ScalarNode && n.ShortTag() == "!!str" && p.c.paramIndex(strings.TrimSpace(n.Value)) >= 0:
			src = strings.TrimSpace(n.Value)
			cd.param = p.c.paramIndex(src)
		default:
			var ok bool
			if src, ok = d.exprSource(n, f); !ok || !p.paramsOK {
				continue
			}
			num, err := expr.CompileNumber(src, p.c.argScope)
			if err != nil {
				var ee *expr.Error
				if errors.As(err, &ee) && ee.Unknown != "" {
					ee.Msg += fmt.Sprintf("; a definition's value is a number, true or false, a parameter's name or an expression over them, the constants and the launch sizes; text such as a type name goes in kernel.compiler_options: [-D%s=%s]", e.key, src)
				}
				d.errf(n, f, "%v", err)
				continue
			}
			cd.num = &cnum{num: num, field: f, line: n.Line}
		}
		k.DefineList = append(k.DefineList, KernelDefine{Name: e.key, Expr: src})
		out = append(out, cd)
	}
	return out
}

// functionName is the name of the function a kernel name calls: "matmul" for a CUDA or
// C++ template's "ns::matmul<float, 4>".
func functionName(kernel string) string {
	name, _, _ := strings.Cut(kernel, "<")
	if i := strings.LastIndex(name, "::"); i >= 0 {
		name = name[i+2:]
	}
	return strings.TrimSpace(name)
}

// ompPragma matches an OpenMP directive: #pragma omp, or _Pragma("omp ...") in a macro.
var ompPragma = regexp.MustCompile(`(?m)^[ \t]*#[ \t]*pragma[ \t]+omp\b|_Pragma[ \t]*\([ \t]*"[ \t]*omp\b`)

// ompWithoutOpenMP returns the line of code's first OpenMP directive when k is host C or
// C++ compiled without OpenMP (neither openmp: true nor an option naming it), else 0: the
// compiler ignores such directives, so the kernel runs on one thread whatever a threads
// parameter says, and every configuration still runs.
func (k *Kernel) ompWithoutOpenMP(code string) int {
	if !hostLanguage(k.Language) || k.OpenMP {
		return 0
	}
	for _, o := range k.CompilerOptions {
		if strings.Contains(o, "openmp") {
			return 0
		}
	}
	loc := ompPragma.FindStringIndex(code)
	if loc == nil {
		return 0
	}
	return strings.Count(code[:loc[0]], "\n") + 1
}

// ompWarning is the warning for an OpenMP directive in the source of the kernel at field
// (kernel, verification.reference.kernel) compiled without OpenMP; where says where it is
// ("k.c:12 has").
func ompWarning(where, field string) string {
	return fmt.Sprintf("%s an OpenMP directive (#pragma omp), but the kernel is compiled without OpenMP: the compiler ignores it and the kernel runs on one thread; set %s.openmp: true", where, field)
}

// codeLine is the line of the spec on which the first line of inline code n sits: a block
// scalar (code: | or code: >) starts on the line after its indicator, any other scalar on
// its own. Only in a literal block (|) are the code's later lines the spec's next lines
// too: a folded or quoted scalar joins lines or writes them as \n escapes.
func codeLine(n *yaml.Node) int {
	for depth := 0; n != nil && n.Kind == yaml.AliasNode && depth <= 64; depth++ {
		n = n.Alias
	}
	switch {
	case n == nil:
		return 0
	case n.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0:
		return n.Line + 1
	}
	return n.Line
}

func hasKey(entries []entry, key string) bool {
	for _, e := range entries {
		if e.key == key {
			return true
		}
	}
	return false
}

func (p *parser) parameters(n *yaml.Node, rootLine int) {
	d, s := p.d, p.s
	if n == nil {
		d.errAt(rootLine, "parameters", "missing; expected a list of {name, values}")
		return
	}
	before := len(d.errs) + d.dropped
	rn := d.resolve(n)
	if rn == nil {
		return
	}
	type item struct {
		name   string
		line   int
		values *yaml.Node
		field  string
	}
	var items []item
	switch rn.Kind {
	case yaml.SequenceNode:
		for i, it := range rn.Content {
			f := index("parameters", i)
			entries, ok := d.mapping(it, f, []string{"name", "values"})
			if !ok && entries == nil {
				continue
			}
			var x item
			x.field, x.line = f, it.Line
			for _, e := range entries {
				switch e.key {
				case "name":
					if v, ok := d.name(e.value, f+".name"); ok {
						x.name = v
					}
				case "values":
					x.values = e.value
				}
			}
			if !hasKey(entries, "name") {
				d.errAt(it.Line, f+".name", "missing; expected the parameter's name")
			}
			if x.values == nil {
				d.errAt(it.Line, f+".values", "missing; expected a list of values or a list expression")
			}
			items = append(items, x)
		}
	case yaml.MappingNode:
		entries, _ := d.mapping(rn, "parameters", nil)
		for _, e := range entries {
			items = append(items, item{name: e.key, line: e.line, values: e.value, field: "parameters." + e.key})
		}
	default:
		d.errf(rn, "parameters", "expected a list of {name, values} (or a mapping name: values), found %s", describe(rn))
		return
	}
	if len(items) == 0 {
		d.errf(rn, "parameters", "empty; expected at least one tunable parameter")
	}
	seen := map[string]bool{}
	for _, it := range items {
		if it.name != "" {
			if !isIdentifier(it.name) {
				d.errAt(it.line, it.field+".name", "%s; a parameter name must be usable in expressions and as a preprocessor name", notIdentifier(it.name))
			} else if p.s.Kernel.Defines && isCKeyword(it.name) {
				d.errAt(it.line, it.field+".name", "%q is a keyword of C, and ktune #defines every parameter for each configuration, which would break the kernel's code; choose another name (or set kernel.defines: false)", it.name)
			} else if p.s.Kernel.Defines && p.s.Kernel.Language == "c++" && isCXXKeyword(it.name) {
				d.errAt(it.line, it.field+".name", "%q is a keyword of C++, and ktune #defines every parameter for each configuration, which would break the kernel's code; choose another name (or set kernel.defines: false)", it.name)
			} else if p.s.Kernel.Defines && it.name == functionName(p.s.Kernel.Name) {
				d.errAt(it.line, it.field+".name", "%q is the kernel's name, and ktune #defines every parameter for each configuration, which would rename the kernel's function in its source; choose another name (or set kernel.defines: false)", it.name)
			}
			if seen[it.name] {
				d.errAt(it.line, it.field+".name", "parameter %q is defined twice", it.name)
			}
			switch it.name {
			case "time", "problem_size_x", "problem_size_y", "problem_size_z":
				d.errAt(it.line, it.field+".name", "%q is a name ktune defines itself; choose another", it.name)
			}
			seen[it.name] = true
		}
		if it.values == nil {
			continue
		}
		vals := p.values(it.values, it.field+".values")
		if vals == nil {
			continue
		}
		s.Parameters = append(s.Parameters, space.Param{Name: it.name, Values: vals})
	}
	p.paramsOK = len(d.errs)+d.dropped == before && len(s.Parameters) > 0
}

// values decodes a parameter's values: a list of scalars, a Python list expression (which
// may read the constants), or one number.
func (p *parser) values(n *yaml.Node, field string) []space.Value {
	d := p.d
	rn := d.resolve(n)
	if rn == nil {
		return nil
	}
	var vals []space.Value
	switch {
	case rn.Kind == yaml.SequenceNode:
		for i, it := range rn.Content {
			v, ok := d.value(it, index(field, i))
			if !ok {
				return nil
			}
			// YAML reads an unquoted NB as the string "NB": a constant's name there is
			// Kernel Tuner's tune_params["n"] = [NB], which would fail later and elsewhere,
			// on a string where a number belongs.
			if c, isConst := p.consts[v.Str()]; isConst && v.Kind() == space.String && plain(d.resolve(it)) {
				d.errf(it, index(field, i), "%s is a constant (%v), and unquoted in a list of values it is the string %q; write values: \"%s\" to use its value, or quote it ('%s') if the string was meant",
					v.Str(), c, v.Str(), p.listExpr(rn.Content, v.Str()), v.Str())
				return nil
			}
			vals = append(vals, v)
		}
	case rn.Kind == yaml.ScalarNode && rn.ShortTag() == "!!str":
		var err error
		vals, err = expr.EvalValuesWith(rn.Value, p.consts)
		if err != nil {
			d.errf(rn, field, "%v", err)
			return nil
		}
	case rn.Kind == yaml.ScalarNode && rn.ShortTag() != "!!null":
		v, ok := d.value(rn, field)
		if !ok {
			return nil
		}
		vals = []space.Value{v}
	default:
		d.errf(rn, field, "expected a list of values or a Python list expression string such as \"[2**i for i in range(6)]\", found %s", describe(rn))
		return nil
	}
	if len(vals) == 0 {
		d.errf(rn, field, "empty; expected at least one value")
		return nil
	}
	if len(vals) > math.MaxUint16 {
		d.errf(rn, field, "%d values; at most %d are supported", len(vals), math.MaxUint16)
		return nil
	}
	hasStr, hasNum := false, false
	seen := make(map[any]bool, len(vals))
	for _, v := range vals {
		// Numbers are equal by value across int, float and bool, as in Python.
		var key any = v.Float()
		if v.Kind() == space.String {
			hasStr, key = true, v.Str()
		} else {
			hasNum = true
		}
		if seen[key] {
			d.errf(rn, field, "value %v appears twice", v)
			return nil
		}
		seen[key] = true
	}
	if hasStr && hasNum {
		d.errf(rn, field, "mixes strings and numbers; expected values of one kind (quote numbers meant as strings)")
		return nil
	}
	return vals
}

// constDef is a constant evaluated, before it has its slot among the spec's names.
type constDef struct {
	name  string
	line  int
	value float64
}

// listExpr is a list of values written as the list expression that reads the constants
// named in it unquoted ("[NB, 128]" for [NB, 128]), or just "[name]" when the list holds
// more than numbers and constants' names.
func (p *parser) listExpr(items []*yaml.Node, name string) string {
	parts := make([]string, len(items))
	for i, it := range items {
		it = p.d.resolve(it)
		if it == nil || it.Kind != yaml.ScalarNode || !plain(it) {
			return "[" + name + "]"
		}
		_, isConst := p.consts[it.Value]
		// YAML's .inf and .nan are floats that Python does not read
		if t := it.ShortTag(); t != "!!int" && (t != "!!float" || strings.HasPrefix(strings.TrimLeft(it.Value, "+-"), ".")) && !(t == "!!str" && isConst) {
			return "[" + name + "]"
		}
		parts[i] = it.Value
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// constants evaluates the constants, each of which may read those before it. They are
// evaluated before the parameters, whose value lists may read them; addConstants gives
// them their slots once the parameters have theirs. A constant whose expression fails is
// reported once, with Python's reason, and the expressions that read it are not reported
// again for it (decoder.broken).
func (p *parser) constants(n *yaml.Node) []constDef {
	d, s := p.d, p.s
	c := newCompiled(nil) // the constants' own scope
	var defs []constDef
	p.consts = map[string]float64{}
	entries, _ := d.mapping(n, "constants", nil)
	for k, e := range entries {
		f := "constants." + e.key
		if !isIdentifier(e.key) {
			d.errAt(e.line, f, "%s", notIdentifier(e.key))
			continue
		}
		if reserved(e.key, s.BlockSizeNames) {
			d.errAt(e.line, f, "%q is a name ktune defines itself (problem_size_x/y/z, grid_size_x/y/z, block sizes, time)", e.key)
			continue
		}
		broken := func() {
			if d.broken == nil {
				d.broken = map[string]bool{}
			}
			d.broken[e.key] = true
		}
		if d.broken[e.key] {
			continue // in a cycle an earlier constant's error named
		}
		src, ok := d.exprSource(e.value, f)
		if !ok {
			broken()
			continue
		}
		if name, line, ok := readsLater(src, entries, k); ok {
			// The usual unknown-name error would say the constant's names are unknown
			// here, which they are only for their order.
			broken()
			switch path := cycle(entries, name, e.key); {
			case name == e.key:
				d.errf(e.value, f, "%q reads %s itself; a constant may read only the constants before it", src, name)
			case path != nil:
				d.errf(e.value, f, "%q reads %s, which reads %s: constants that read each other have no value", src, name, strings.Join(path, ", which reads "))
				for _, other := range append(path, name) {
					d.broken[other] = true // said here, not again at its own line
				}
			default:
				d.errf(e.value, f, "%q reads %s, which is defined after it (line %d); a constant may read only the constants before it: move %s above %s", src, name, line, name, e.key)
			}
			continue
		}
		num, err := expr.CompileNumber(src, c.constScope)
		if err != nil {
			d.errf(e.value, f, "%v", err)
			broken()
			continue
		}
		v := num.Eval(c.constEnv())
		if math.IsNaN(v) || math.IsInf(v, 0) {
			if err := expr.Explain(src, p.consts); err != nil {
				d.errf(e.value, f, "%v", err)
			} else {
				d.errf(e.value, f, "%s evaluates to %v; expected a finite number", src, v)
			}
			broken()
			continue
		}
		c.addConstant(e.key, v)
		p.consts[e.key] = v
		defs = append(defs, constDef{name: e.key, line: e.line, value: v})
	}
	return defs
}

// readsLater reports the first name src reads that is the constant entries[k] itself or
// one defined after it, with that constant's line.
func readsLater(src string, entries []entry, k int) (name string, line int, ok bool) {
	n, err := expr.Parse(src)
	if err != nil {
		return "", 0, false // the compiler says what is wrong with it
	}
	for _, id := range expr.Names(n) {
		for _, later := range entries[k:] {
			if later.key == id {
				return id, later.line, true
			}
		}
	}
	return "", 0, false
}

// cycle returns the names through which constant from reads constant to (ending with
// to), or nil when it does not.
func cycle(entries []entry, from, to string) []string {
	reads := map[string][]string{}
	for _, e := range entries {
		if e.value == nil || e.value.Kind != yaml.ScalarNode {
			continue
		}
		if n, err := expr.Parse(e.value.Value); err == nil {
			reads[e.key] = expr.Names(n)
		}
	}
	seen := map[string]bool{}
	var walk func(name string) []string
	walk = func(name string) []string {
		if seen[name] {
			return nil
		}
		seen[name] = true
		for _, id := range reads[name] {
			if id == to {
				return []string{to}
			}
			if p := walk(id); p != nil {
				return append([]string{id}, p...)
			}
		}
		return nil
	}
	return walk(from)
}

// addConstants gives the constants their slots, after the parameters'.
func (p *parser) addConstants(defs []constDef) {
	d, s, c := p.d, p.s, p.c
	for _, k := range defs {
		if _, isParam := c.params[k.name]; isParam {
			d.errAt(k.line, "constants."+k.name, "%q is also a parameter name; a constant needs a name of its own", k.name)
			continue
		}
		c.addConstant(k.name, k.value)
		s.Constants = append(s.Constants, Constant{Name: k.name, Value: k.value})
	}
}

// reserved reports whether name is one ktune defines for expressions. Block names are
// only known after geometry; the defaults are reserved from the start.
func reserved(name string, blockNames [3]string) bool {
	switch name {
	case "problem_size_x", "problem_size_y", "problem_size_z", "grid_size_x", "grid_size_y", "grid_size_z",
		"block_size_x", "block_size_y", "block_size_z", "time", "kernel_tuner":
		return true
	}
	return name == blockNames[0] || name == blockNames[1] || name == blockNames[2]
}

func (p *parser) restrictions(n *yaml.Node) {
	d, s := p.d, p.s
	items, ok := d.list(n, "restrictions", true)
	if !ok {
		return
	}
	consts := make(map[string]float64, len(s.Constants))
	for _, c := range s.Constants {
		consts[c.Name] = c.Value
	}
	for i, it := range items {
		f := index("restrictions", i)
		src, ok := d.str(it, f)
		if !ok {
			continue
		}
		if strings.TrimSpace(src) == "" {
			d.errf(it, f, "empty; expected a condition such as \"block_size_x * block_size_y <= 1024\"")
			continue
		}
		s.Restrictions = append(s.Restrictions, src)
		if !p.paramsOK {
			continue
		}
		r, err := expr.CompileRestrictionWith(s.Parameters, consts, src)
		if err != nil {
			d.errf(it, f, "%v", err)
			continue
		}
		p.c.restrictions = append(p.c.restrictions, r)
		p.c.restrictLine = append(p.c.restrictLine, it.Line)
		for _, msg := range expr.Unmatched(s.Parameters, src) {
			s.Warnings = append(s.Warnings, &Error{File: d.file, Line: it.Line, Field: f, Msg: msg})
		}
	}
}

// number compiles an expression field in scope; nil on error (reported).
func (p *parser) number(n *yaml.Node, field string, scope expr.MapScope) *cnum {
	src, ok := p.d.exprSource(n, field)
	if !ok {
		return nil
	}
	if !p.paramsOK {
		return nil
	}
	num, err := expr.CompileNumber(src, scope)
	if err != nil {
		p.d.errf(n, field, "%v", err)
		return nil
	}
	return &cnum{num: num, field: field, line: n.Line}
}

// exprList decodes a list (or one item) of expressions.
func (p *parser) exprList(n *yaml.Node, field string, scope expr.MapScope, lo, hi int) ([]string, []*cnum, bool) {
	items, ok := p.d.list(n, field, true)
	if !ok {
		return nil, nil, false
	}
	if len(items) < lo || len(items) > hi {
		if lo == hi || lo == 0 {
			p.d.errf(n, field, "%d items; expected at most %d", len(items), hi)
		} else {
			p.d.errf(n, field, "%d items; expected %d to %d", len(items), lo, hi)
		}
		return nil, nil, false
	}
	srcs := []string{}
	var nums []*cnum
	good := true
	for i, it := range items {
		f := index(field, i)
		src, ok := p.d.exprSource(it, f)
		if !ok {
			good = false
			continue
		}
		srcs = append(srcs, src)
		if num := p.number(it, f, scope); num != nil {
			nums = append(nums, num)
		} else {
			good = false
		}
	}
	return srcs, nums, good
}

func (p *parser) geometry(get func(string) *yaml.Node) {
	d, s, c := p.d, p.s, p.c
	s.BlockSizeNames = [3]string{"block_size_x", "block_size_y", "block_size_z"}
	if n := get("block_size_names"); n != nil {
		items, ok := d.list(n, "block_size_names", true)
		if ok && (len(items) == 0 || len(items) > 3) {
			d.errf(n, "block_size_names", "%d names; expected 1 to 3", len(items))
			ok = false
		}
		if ok {
			for i, it := range items {
				f := index("block_size_names", i)
				if v, ok := d.name(it, f); ok {
					if !isIdentifier(v) {
						d.errf(it, f, "%s", notIdentifier(v))
						continue
					}
					for j := 0; j < i; j++ {
						if s.BlockSizeNames[j] == v {
							d.errf(it, f, "%q names two dimensions", v)
						}
					}
					if _, isConst := c.constants[v]; isConst {
						d.errf(it, f, "%q is also a constant", v)
					}
					// A name of one's own that no parameter has is a typo: that dimension's
					// block size would be 1 whatever the configuration. Kernel Tuner's own
					// names stay allowed without a parameter, as Kernel Tuner allows them.
					if _, isParam := c.params[v]; !isParam && p.paramsOK && get("block") == nil &&
						v != "block_size_x" && v != "block_size_y" && v != "block_size_z" {
						d.errf(it, f, "%q is no parameter, so the %s block size would always be 1; name the parameter that gives it%s",
							v, [3]string{"x", "y", "z"}[i], suggest(v, paramNames(s)))
					}
					s.BlockSizeNames[i] = v
				}
			}
		}
	}
	c.addGeometryNames(s.BlockSizeNames)

	explicitGrid := get("grid") != nil
	if n := get("problem_size"); n != nil {
		srcs, nums, ok := p.exprList(n, "problem_size", c.psScope, 1, 3)
		s.ProblemSize = srcs
		if ok && p.paramsOK {
			for i, num := range nums {
				c.problem[i] = num
			}
			p.checkConst(nums, false, "a non-negative problem size", func(v float64) bool { return v >= 0 })
		}
	} else if !explicitGrid && p.launchesGiven {
		p.problemMissing = true // each launch then gives its grid (launches)
	} else if !explicitGrid {
		d.errAt(0, "problem_size", "missing; expected 1 to 3 sizes (numbers or expressions such as N), or an explicit grid")
	}
	for dim, key := range []string{"grid_div_x", "grid_div_y", "grid_div_z"} {
		n := get(key)
		if n == nil {
			continue
		}
		if explicitGrid {
			d.errf(n, key, "cannot be combined with an explicit grid; give one of them")
			continue
		}
		if dim > 0 && dim >= len(s.ProblemSize) && len(s.ProblemSize) > 0 && !(n.Kind == yaml.SequenceNode && len(n.Content) == 0) {
			// the problem's size in that dimension is 1, and so is the grid's, whatever
			// divides it: a size left out of problem_size, or a divisor left over
			dims := "1 dimension"
			if len(s.ProblemSize) > 1 {
				dims = fmt.Sprintf("%d dimensions", len(s.ProblemSize))
			}
			d.errf(n, key, "the problem has %s (problem_size), so its size in %s is 1 and %s divides nothing; add the size to problem_size or remove %s",
				dims, [3]string{"x", "y", "z"}[dim], key, key)
			continue
		}
		srcs, nums, ok := p.exprList(n, key, c.geomScope, 0, 64)
		s.GridDiv[dim] = srcs
		if ok && p.paramsOK {
			c.gridDiv[dim] = nums
			c.gridDivSet[dim] = true
		}
	}
	for _, key := range []string{"grid", "block"} {
		n := get(key)
		if n == nil {
			continue
		}
		srcs, nums, ok := p.exprList(n, key, c.geomScope, 1, 3)
		for len(srcs) < 3 && ok {
			srcs = append(srcs, "1")
		}
		if key == "grid" {
			s.Grid = srcs
		} else {
			s.Block = srcs
		}
		if ok && p.paramsOK {
			p.checkConst(nums, true, "a positive whole number", func(v float64) bool { return v >= 1 })
			for i, num := range nums {
				if key == "grid" {
					c.grid[i] = num
				} else {
					c.block[i] = num
				}
			}
			if key == "grid" {
				c.gridSet = true
			} else {
				c.blockSet = true
			}
		}
	}
	if p.paramsOK && !c.blockSet && !p.launchesGiven && c.blockParam[0] < 0 && (s.Kernel.Language == "opencl" || s.Kernel.Language == "cuda") {
		// Kernel Tuner's default x block is 256 threads; ktune's is 1, which a ported
		// spec that tuned no block size would get without a word
		line := 0
		if n := get("problem_size"); n != nil {
			line = n.Line
		}
		s.Warnings = append(s.Warnings, &Error{File: d.file, Line: line, Field: "block_size_names", Msg: fmt.Sprintf(
			"no parameter is named %s and there is no block, so every block has 1 thread in x (Kernel Tuner would use 256); tune a parameter %s, or give block: [256]",
			s.BlockSizeNames[0], s.BlockSizeNames[0])})
	}
	if n := get("shared_memory_bytes"); n != nil {
		src, ok := d.exprSource(n, "shared_memory_bytes")
		if instead := sharedInstead[s.Kernel.Language]; instead != "" {
			d.errf(n, "shared_memory_bytes", "dynamic shared memory is CUDA's, not %s: %s; remove shared_memory_bytes", s.Kernel.Language, instead)
			ok = false
		}
		if ok {
			s.SharedMemoryBytes = src
			if num := p.number(n, "shared_memory_bytes", c.argScope); num != nil {
				c.shared = num
				p.checkConst([]*cnum{num}, true, "a non-negative whole number of bytes", func(v float64) bool { return v >= 0 })
			}
		}
	}
}

// checkConst evaluates the expressions that read only constants, so that mistakes such as
// a negative length surface when the spec is read rather than for every configuration.
func (p *parser) checkConst(nums []*cnum, whole bool, want string, good func(float64) bool) {
	for _, num := range nums {
		if num == nil || !p.c.constOnly(num.num) {
			continue
		}
		v := num.num.Eval(p.c.constEnv())
		if !whole {
			v = math.Trunc(v)
		}
		if math.IsNaN(v) || math.IsInf(v, 0) || v != math.Trunc(v) || !good(v) {
			var e *expr.Error
			if err := expr.Explain(num.num.Source, p.consts); errors.As(err, &e) && (math.IsNaN(v) || math.IsInf(v, 0)) {
				p.d.errAt(num.line, num.field, "%s fails: %s; expected %s", num.num.Source, e.Msg, want)
				continue
			}
			p.d.errAt(num.line, num.field, "%s evaluates to %v; expected %s", num.num.Source, v, want)
		}
	}
}

// localInstead says, for the languages whose kernels take no local memory arguments, what
// gives such a kernel memory shared by a block: the backends refuse a local argument at
// every launch, so the spec is refused when it is read.
var localInstead = map[string]string{
	"cuda": "a CUDA kernel takes none; give it dynamic shared memory with shared_memory_bytes (bytes per block, an extern __shared__ array in the kernel) or declare a __shared__ array in it",
	"c":    "the host C backend has no local memory; declare the array in the kernel (or pass an array argument)",
	"c++":  "the host C backend has no local memory; declare the array in the kernel (or pass an array argument)",
}

// sharedInstead says, for the languages whose launches have no dynamic shared memory, what
// to write instead of shared_memory_bytes: their backends would ignore it.
var sharedInstead = map[string]string{
	"opencl": "an OpenCL kernel gets local memory from arguments of kind: local (a __local pointer each, of length elements per work-group)",
	"c":      "the host C backend has no shared memory; declare arrays in the kernel",
	"c++":    "the host C backend has no shared memory; declare arrays in the kernel",
}

// argCalled names an argument at the start of a message, when it has a name.
func argCalled(name string) string {
	if name == "" {
		return ""
	}
	return fmt.Sprintf("argument %q: ", name)
}

func (p *parser) arguments(n *yaml.Node) {
	d, s, c := p.d, p.s, p.c
	items, ok := d.list(n, "arguments", false)
	if !ok {
		return
	}
	known := []string{"name", "kind", "type", "length", "value", "fill", "output", "scratch"}
	seen := map[string]bool{}
	for i, it := range items {
		f := index("arguments", i)
		entries, ok := d.mapping(it, f, known)
		if !ok && entries == nil {
			continue
		}
		a := Argument{}
		var kindNode, typeNode, lengthNode, valueNode, fillNode, outputNode, scratchNode *yaml.Node
		for _, e := range entries {
			switch e.key {
			case "name":
				if v, ok := d.name(e.value, f+".name"); ok {
					a.Name = v
				}
			case "kind":
				kindNode = e.value
			case "type":
				typeNode = e.value
			case "length":
				lengthNode = e.value
			case "value":
				valueNode = e.value
			case "fill":
				fillNode = e.value
			case "output":
				outputNode = e.value
			case "scratch":
				scratchNode = e.value
			}
		}
		if !hasKey(entries, "name") {
			d.errAt(it.Line, f+".name", "missing; expected the argument's name")
		} else if a.Name != "" {
			if !isCIdentifier(a.Name) {
				d.errAt(it.Line, f+".name", "%q is not a valid identifier; an argument is named as in the kernel's parameter list", a.Name)
			} else if what := s.definedAs(a.Name); what != "" && s.Kernel.Defines {
				d.errAt(it.Line, f+".name", "%q is also %s, which ktune #defines for every configuration: the preprocessor would replace the argument's name in the kernel; rename one of them (or set kernel.defines: false)", a.Name, what)
			} else if hasKey(p.defines, a.Name) {
				d.errAt(it.Line, f+".name", "%q is also a name of kernel.defines, which ktune #defines for every configuration: the preprocessor would replace the argument's name in the kernel; rename one of them", a.Name)
			}
			if seen[a.Name] {
				d.errAt(it.Line, f+".name", "argument %q is defined twice", a.Name)
			}
			seen[a.Name] = true
		}
		a.Kind = ArgArray
		if valueNode != nil {
			a.Kind = ArgScalar
		}
		if kindNode != nil {
			if v, ok := d.str(kindNode, f+".kind"); ok {
				kinds := []string{"array", "scalar", "local", "constant"}
				switch {
				case !contains(kinds, v):
					d.errf(kindNode, f+".kind", "unknown kind %q%s; expected array, scalar, local or constant", v, suggest(v, kinds))
				case v == "constant" && s.Kernel.Language != "cuda":
					d.errf(kindNode, f+".kind", "constant-memory symbols are CUDA's, not %s: pass the array as a buffer argument (an OpenCL __constant pointer is one)", cmp.Or(s.Kernel.Language, "this kernel's language"))
				case v == "local" && localInstead[s.Kernel.Language] != "":
					d.errf(kindNode, f+".kind", "%slocal memory arguments are OpenCL's (__local pointers), not %s: %s", argCalled(a.Name), s.Kernel.Language, localInstead[s.Kernel.Language])
				default:
					a.Kind = ArgKind(v)
				}
			}
		}
		var et elemType
		if typeNode == nil {
			d.errAt(it.Line, f+".type", "missing; expected an element type (%s)", strings.Join(typeNames(), ", "))
		} else if v, ok := d.str(typeNode, f+".type"); ok {
			if t, ok := lookupType(v); ok {
				et, a.Type = t, t.name
			} else {
				all := typeNames()
				for k := range typeAliases {
					all = append(all, k)
				}
				d.errf(typeNode, f+".type", "unknown type %q%s; expected one of %s", v, suggest(v, all), strings.Join(typeNames(), ", "))
			}
		}
		notFor := func(node *yaml.Node, key string) {
			if node != nil {
				d.errf(node, f+"."+key, "does not apply to a %s argument", a.Kind)
			}
		}
		var length, value *cnum
		switch a.Kind {
		case ArgArray, ArgLocal, ArgConstant:
			notFor(valueNode, "value")
			if a.Kind == ArgLocal {
				notFor(fillNode, "fill")
			}
			if a.Kind != ArgArray {
				notFor(outputNode, "output")
				notFor(scratchNode, "scratch")
			}
			if lengthNode == nil {
				d.errAt(it.Line, f+".length", "missing; expected the number of elements, a number or an expression such as N*N")
				break
			}
			if src, ok := d.exprSource(lengthNode, f+".length"); ok {
				a.Length = src
				length = p.number(lengthNode, f+".length", c.argScope)
				if a.Kind == ArgLocal {
					p.checkConst([]*cnum{length}, true, localLength, func(v float64) bool { return v >= 1 })
				} else {
					p.checkConst([]*cnum{length}, true, "a non-negative whole number of elements", func(v float64) bool { return v >= 0 })
				}
			}
		case ArgScalar:
			notFor(lengthNode, "length")
			notFor(fillNode, "fill")
			notFor(outputNode, "output")
			notFor(scratchNode, "scratch")
			if valueNode == nil {
				d.errAt(it.Line, f+".value", "missing; expected the scalar's value, a number or an expression")
				break
			}
			if src, ok := d.exprSource(valueNode, f+".value"); ok {
				a.Value = src
				value = p.number(valueNode, f+".value", c.argScope)
				if value != nil && a.Type != "" && c.constOnly(value.num) {
					if err := et.check(value.num.Eval(c.constEnv())); err != nil {
						d.errf(valueNode, f+".value", "%s: %v", src, err)
					}
				}
			}
		}
		a.Fill = Fill{Kind: FillZeros}
		var from *cfrom
		if fillNode != nil && (a.Kind == ArgArray || a.Kind == ArgConstant) {
			if fromNode := mappingValue(d.resolve(fillNode), "from"); fromNode != nil {
				if fl, ok := p.fromFill(fillNode, f+".fill"); ok {
					a.Fill = fl
					from = &cfrom{src: -1, field: f + ".fill.from", line: fromNode.Line}
				}
			} else if fl, ok := p.fill(fillNode, f+".fill", et, a.Type != ""); ok {
				a.Fill = fl
				p.rangeFits(fillNode, f+".fill", fl, et, a.Type != "", length)
			}
		}
		if outputNode != nil && a.Kind == ArgArray {
			if v, ok := d.boolean(outputNode, f+".output"); ok {
				a.Output = v
			}
		}
		if scratchNode != nil && a.Kind == ArgArray {
			if v, ok := d.boolean(scratchNode, f+".scratch"); ok {
				a.Scratch = v
			}
			if a.Scratch && a.Output {
				d.errf(scratchNode, f+".scratch", "%s is output: true as well; an output is written and compared, a scratch array written and not compared: keep the one that says what the kernel does with it", a.Name)
			}
		}
		s.Arguments = append(s.Arguments, a)
		s.argLines = append(s.argLines, it.Line)
		c.args = append(c.args, carg{typ: et, length: length, value: value, from: from})
	}
	p.fromSources()
}

var fillKinds = []string{"zeros", "random", "constant", "range", "npy"}

// rangeFits reports a range fill whose last element the type cannot hold (a float16
// range past 65504, an int8 one past 127), where the length reads only constants: as an
// error at the fill's line before tuning, not as every configuration's failure.
func (p *parser) rangeFits(n *yaml.Node, field string, fl Fill, t elemType, typed bool, length *cnum) {
	if fl.Kind != FillRange || !typed || length == nil || !p.c.constOnly(length.num) {
		return
	}
	l := length.num.Eval(p.c.constEnv())
	if l < 1 || l != math.Trunc(l) {
		return
	}
	last := fl.Start + (l-1)*fl.Step
	if err := t.check(last); err != nil {
		p.d.errf(n, field, "the range's last element (%v + %v * %v): %v; give a range whose elements all fit (a smaller start or step), or a type that holds them",
			fl.Start, l-1, fl.Step, err)
	}
}

func (p *parser) fill(n *yaml.Node, field string, t elemType, typed bool) (Fill, bool) {
	d := p.d
	rn := d.resolve(n)
	if rn == nil {
		return Fill{}, false
	}
	fl := Fill{Distribution: "uniform", Low: 0, High: 1, Stddev: 1, Step: 1}
	expect := "expected zeros, random, or a mapping with one of zeros, random: {distribution, low, high, mean, stddev, seed}, constant: number, range: {start, step}, npy: file, or {from: ARGUMENT, start, stride}"
	var kind string
	var body *yaml.Node
	switch {
	case rn.Kind == yaml.ScalarNode && rn.ShortTag() == "!!str":
		kind = rn.Value
	case rn.Kind == yaml.MappingNode:
		entries, ok := d.mapping(rn, field, fillKinds)
		if !ok {
			return Fill{}, false
		}
		if len(entries) != 1 {
			d.errf(rn, field, "%d fill kinds given; %s", len(entries), expect)
			return Fill{}, false
		}
		kind, body = entries[0].key, entries[0].value
	default:
		d.errf(rn, field, "found %s; %s", describe(rn), expect)
		return Fill{}, false
	}
	if kind == "from" {
		d.errf(rn, field, "a from fill names its source: write fill: {from: ARGUMENT, start: 0, stride: 1}")
		return Fill{}, false
	}
	if !contains(fillKinds, kind) {
		d.errf(rn, field, "unknown fill %q%s; %s", kind, suggest(kind, append(fillKinds, "from")), expect)
		return Fill{}, false
	}
	fl.Kind = FillKind(kind)
	f := join(field, kind)
	isEmpty := func(b *yaml.Node) bool {
		b = d.resolve(b)
		return b == nil || b.Kind == yaml.ScalarNode && (b.ShortTag() == "!!null" || b.ShortTag() == "!!bool" && b.Value == "true") ||
			b.Kind == yaml.MappingNode && len(b.Content) == 0
	}
	ok := true
	checkT := func(node *yaml.Node, sub string, v float64) {
		if !typed {
			return
		}
		if err := t.check(v); err != nil {
			d.errf(node, sub, "%v", err)
			ok = false
		}
	}
	switch fl.Kind {
	case FillZeros:
		if body != nil && !isEmpty(body) {
			d.errf(body, f, "takes no settings; write fill: zeros")
			return Fill{}, false
		}
	case FillRandom:
		if body != nil && !isEmpty(body) {
			entries, good := d.mapping(body, f, []string{"distribution", "low", "high", "mean", "stddev", "seed"})
			ok = good
			var lowN, highN *yaml.Node
			var hasLow, hasHigh bool
			for _, e := range entries {
				sub := join(f, e.key)
				switch e.key {
				case "distribution":
					if v, good := d.str(e.value, sub); good {
						if v != "uniform" && v != "normal" {
							d.errf(e.value, sub, "unknown distribution %q%s; expected uniform or normal", v, suggest(v, []string{"uniform", "normal"}))
							ok = false
						}
						fl.Distribution = v
					} else {
						ok = false
					}
				case "low":
					lowN = e.value
					fl.Low, hasLow = d.number(e.value, sub)
					ok = ok && hasLow
				case "high":
					highN = e.value
					fl.High, hasHigh = d.number(e.value, sub)
					ok = ok && hasHigh
				case "mean":
					var good bool
					fl.Mean, good = d.number(e.value, sub)
					ok = ok && good
				case "stddev":
					var good bool
					if fl.Stddev, good = d.number(e.value, sub); good && (fl.Stddev < 0 || math.IsInf(fl.Stddev, 0)) {
						d.errf(e.value, sub, "%v; expected a non-negative standard deviation", fl.Stddev)
						good = false
					}
					ok = ok && good
				case "seed":
					if v, good := d.integer(e.value, sub); good && v >= 0 {
						u := uint64(v)
						fl.Seed = &u
					} else {
						if good {
							d.errf(e.value, sub, "%d; expected a non-negative integer", v)
						}
						ok = false
					}
				}
			}
			if !ok {
				return Fill{}, false
			}
			if fl.Distribution == "normal" {
				if !hasLow {
					fl.Low = math.Inf(-1)
				}
				if !hasHigh {
					fl.High = math.Inf(1)
				}
			} else {
				if hasKey(entries, "mean") || hasKey(entries, "stddev") {
					d.errf(body, f, "mean and stddev apply to distribution: normal; uniform takes low and high")
					return Fill{}, false
				}
			}
			if hasLow {
				checkT(lowN, f+".low", fl.Low)
			}
			if hasHigh {
				checkT(highN, f+".high", fl.High)
			}
			if fl.Low > fl.High {
				d.errf(body, f, "low %v is above high %v", fl.Low, fl.High)
				return Fill{}, false
			}
		}
	case FillConstant:
		v, good := d.number(body, f)
		if !good {
			return Fill{}, false
		}
		fl.Value = v
		checkT(body, f, v)
	case FillRange:
		if body != nil && !isEmpty(body) {
			entries, good := d.mapping(body, f, []string{"start", "step"})
			ok = good
			for _, e := range entries {
				sub := join(f, e.key)
				v, good := d.number(e.value, sub)
				if !good {
					ok = false
					continue
				}
				if e.key == "start" {
					fl.Start = v
				} else {
					fl.Step = v
				}
				if typed && !t.float && v != math.Trunc(v) {
					d.errf(e.value, sub, "%v is not a whole number, as %s needs", v, t.name)
					ok = false
				}
			}
		}
	case FillNPY:
		v, good := d.name(body, f)
		if !good {
			return Fill{}, false
		}
		fl.Path = p.resolvePath(v)
		if rb := d.resolve(body); rb != nil {
			p.s.fileAt(f, rb.Line)
		}
	}
	if fl.Kind != FillRandom {
		fl.Distribution, fl.Low, fl.High, fl.Stddev = "", 0, 0, 0
	}
	if fl.Kind != FillRange {
		fl.Step = 0
	}
	return fl, ok
}

// mappingValue returns the value of key in mapping n, or nil (n nil or not a mapping too).
func mappingValue(n *yaml.Node, key string) *yaml.Node {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}

// maxFromIndex bounds a from fill's start and stride: far beyond any array, it keeps the
// index arithmetic exact.
const maxFromIndex = 1 << 40

// fromFill reads {from: ARGUMENT, start: S, stride: K}: element i of the argument is
// ARGUMENT's element S + i*K. The source is looked up once every argument is read
// (fromSources).
func (p *parser) fromFill(n *yaml.Node, field string) (Fill, bool) {
	d := p.d
	entries, ok := d.mapping(n, field, []string{"from", "start", "stride"})
	fl := Fill{Kind: FillFrom, FromStride: 1}
	for _, e := range entries {
		sub := join(field, e.key)
		switch e.key {
		case "from":
			v, good := d.name(e.value, sub)
			fl.From, ok = v, ok && good
		case "start", "stride":
			v, good := d.integer(e.value, sub)
			least, what := int64(0), "the index in the source of element 0, 0 or more"
			if e.key == "stride" {
				least, what = 1, "the source elements from one element to the next, 1 or more (4 takes one field of a structure of 4)"
			}
			if good && (v < least || v > maxFromIndex) {
				d.errf(e.value, sub, "%d; expected %s", v, what)
				good = false
			}
			if e.key == "start" {
				fl.FromStart = int(v)
			} else {
				fl.FromStride = int(v)
			}
			ok = ok && good
		}
	}
	return fl, ok
}

// fromSources finds each from fill's source and checks what can be checked before a
// configuration is known: the source is another array argument with data of its own (a
// derived argument is no source: chains, and so cycles, are refused), its type converts
// exactly to the argument's, and where both lengths are constant, it holds every element
// taken. Lengths that depend on the configuration are checked by Instance.
func (p *parser) fromSources() {
	d, s, c := p.d, p.s, p.c
	names := make([]string, len(s.Arguments))
	for i, a := range s.Arguments {
		names[i] = a.Name
	}
	for i, a := range s.Arguments {
		cf := c.args[i].from
		if cf == nil {
			continue
		}
		fl := a.Fill
		src := slices.Index(names, fl.From)
		switch {
		case src < 0:
			d.errAt(cf.line, cf.field, "no argument is named %q%s; expected the name of the array argument whose data %q takes", fl.From, suggest(fl.From, names), a.Name)
			continue
		case src == i:
			d.errAt(cf.line, cf.field, "argument %q cannot take its data from itself; name another array argument, or give it a fill of its own", a.Name)
			continue
		}
		sa := s.Arguments[src]
		switch {
		case sa.Kind != ArgArray && sa.Kind != ArgConstant:
			d.errAt(cf.line, cf.field, "%q is a %s argument, which has no data; expected an array argument", sa.Name, sa.Kind)
			continue
		case sa.Fill.Kind == FillFrom:
			d.errAt(cf.line, cf.field, "%q takes its own data from %q: a source must have a fill of its own (zeros, random, constant, range or npy); take the elements from %q", sa.Name, sa.Fill.From, sa.Fill.From)
			continue
		}
		cf.src = src
		st, t := c.args[src].typ, c.args[i].typ
		if st.name != "" && t.name != "" && !convertsExactly(st, t) {
			d.errAt(cf.line, cf.field, "%q is %s, and not every %s is exactly a %s; give argument %q type: %s (a from fill takes the same type, or a wider one that holds every value exactly)", sa.Name, st.name, st.name, t.name, a.Name, st.name)
		}
		n, m := c.args[i].length, c.args[src].length
		if n == nil || m == nil || !c.constOnly(n.num) || !c.constOnly(m.num) {
			continue
		}
		nv, mv := n.num.Eval(c.constEnv()), m.num.Eval(c.constEnv())
		if nv < 0 || mv < 0 || nv != math.Trunc(nv) || mv != math.Trunc(mv) || nv > math.MaxInt32*64 {
			continue // reported as lengths
		}
		if need, ok := fromNeed(int(nv), fl.FromStart, fl.FromStride); !ok || float64(need) > mv {
			d.errAt(cf.line, cf.field, "%s; make %q longer or take fewer elements", fromShort(a, sa, int(nv), int(mv)), sa.Name)
		}
	}
}

func (p *parser) metrics(n *yaml.Node) {
	d, s, c := p.d, p.s, p.c
	rn := d.resolve(n)
	if rn == nil {
		return
	}
	type item struct {
		name, field string
		line        int
		exprNode    *yaml.Node
		maximize    *bool // nil when not written
	}
	var items []item
	switch rn.Kind {
	case yaml.SequenceNode:
		for i, it := range rn.Content {
			f := index("metrics", i)
			entries, ok := d.mapping(it, f, []string{"name", "expr", "maximize"})
			if !ok && entries == nil {
				continue
			}
			x := item{field: f, line: it.Line}
			for _, e := range entries {
				switch e.key {
				case "name":
					x.name, _ = d.name(e.value, f+".name")
				case "expr":
					x.exprNode = e.value
				case "maximize":
					x.maximize = p.maximize(e.value, f+".maximize")
				}
			}
			if !hasKey(entries, "name") {
				d.errAt(it.Line, f+".name", "missing; expected the metric's name, e.g. GFLOP/s")
			}
			if x.exprNode == nil {
				d.errAt(it.Line, f+".expr", "missing; expected an expression over parameters, constants and time (ms)")
			}
			items = append(items, x)
		}
	case yaml.MappingNode:
		// Kernel Tuner's form: name: expression, or name: {expr, maximize}.
		entries, _ := d.mapping(rn, "metrics", nil)
		for _, e := range entries {
			x := item{name: e.key, field: "metrics." + e.key, line: e.line, exprNode: e.value}
			if v := d.resolve(e.value); v != nil && v.Kind == yaml.MappingNode {
				x.exprNode = nil
				sub, _ := d.mapping(v, x.field, []string{"expr", "maximize"})
				for _, se := range sub {
					if se.key == "expr" {
						x.exprNode = se.value
					} else {
						x.maximize = p.maximize(se.value, x.field+".maximize")
					}
				}
				if x.exprNode == nil {
					d.errAt(v.Line, x.field+".expr", "missing; expected an expression")
				}
			}
			items = append(items, x)
		}
	default:
		d.errf(rn, "metrics", "expected a list of {name, expr, maximize}, found %s", describe(rn))
		return
	}
	seen := map[string]bool{}
	for _, it := range items {
		if it.name == "" || it.exprNode == nil {
			continue
		}
		_, isParam := c.params[it.name]
		_, isConst := c.constants[it.name]
		switch {
		case it.name == "time":
			d.errAt(it.line, it.field+".name", "\"time\" is the measured time itself; choose another name")
			continue
		case isParam || isConst:
			d.errAt(it.line, it.field+".name", "%q already names a parameter or constant", it.name)
			continue
		case seen[it.name]:
			d.errAt(it.line, it.field+".name", "metric %q is defined twice", it.name)
			continue
		}
		seen[it.name] = true
		m := Metric{Name: it.name, Maximize: result.HigherIsBetter(it.name)}
		if it.maximize != nil {
			m.Maximize, m.MaximizeWritten = *it.maximize, true
		}
		src, ok := d.exprSource(it.exprNode, it.field+".expr")
		if !ok {
			continue
		}
		m.Expr = src
		num := p.number(it.exprNode, it.field+".expr", c.metricScope)
		s.Metrics = append(s.Metrics, m)
		c.metrics = append(c.metrics, num)
		c.addMetric(it.name)
	}
}

// maximize reads a metric's maximize; nil when it is not a boolean (reported).
func (p *parser) maximize(n *yaml.Node, field string) *bool {
	b, ok := p.d.boolean(n, field)
	if !ok {
		return nil
	}
	return &b
}

func (p *parser) objective(n *yaml.Node) {
	d, s := p.d, p.s
	name, ok := d.name(n, "objective")
	if !ok {
		return
	}
	if name == "time" {
		s.objective, s.maximize = "time", false
		return
	}
	known := []string{"time"}
	for _, m := range s.Metrics {
		if m.Name == name {
			s.objective, s.maximize = name, m.Maximize
			return
		}
		known = append(known, m.Name)
	}
	for _, o := range Observables {
		if o.Name == name {
			s.objective, s.maximize = name, false
			return
		}
		known = append(known, o.Name)
	}
	d.errf(n, "objective", "unknown objective %q%s; expected time, the name of a metric or an observable (%s)", name, suggest(name, known), strings.Join(known, ", "))
}

func (p *parser) verification(n *yaml.Node, keyLine int) {
	d, s := p.d, p.s
	entries, ok := d.mapping(n, "verification", []string{"reference", "outputs", "method", "atol", "rtol", "equal_nan", "tolerance", "range", "function"})
	if !ok && entries == nil {
		return
	}
	var refNode, outNode *yaml.Node
	for _, e := range entries {
		switch e.key {
		case "reference":
			refNode = e.value
		case "outputs":
			outNode = e.value
		}
	}
	// method, atol, rtol and tolerance here are every output's, unless its entry says
	// (atol and rtol unsetTolerance where no level gives them: float16 outputs then get
	// half's own defaults, the others DefaultAtol and DefaultRtol)
	global := p.readCheck(entries, "verification", Check{Method: MethodAllclose, Atol: unsetTolerance, Rtol: unsetTolerance}, false, -1)
	tolSet := hasKey(entries, "tolerance")
	full, half := global.withDefaults("float32"), global.withDefaults("float16")
	v := &Verification{Atol: full.Atol, Rtol: full.Rtol, HalfAtol: half.Atol, HalfRtol: half.Rtol}
	argIndex := func(name string) int {
		for i, a := range s.Arguments {
			if a.Name == name {
				return i
			}
		}
		return -1
	}
	var outputNames []string
	for _, a := range s.Arguments {
		if a.Output {
			outputNames = append(outputNames, a.Name)
		}
	}
	if outNode != nil {
		items, ok := d.list(outNode, "verification.outputs", true)
		entryOf := map[int]int{} // an output's entry, so that no output has two
		for i, it := range items {
			if !ok {
				break
			}
			if k, c := p.comparedOutput(it, index("verification.outputs", i), global, tolSet, outputNames); k >= 0 {
				if j, twice := entryOf[k]; twice {
					d.errf(it, index("verification.outputs", i), "%s is compared by verification.outputs[%d] already; give each output one entry, with all its settings", s.Arguments[k].Name, j)
					continue
				}
				entryOf[k] = i
				v.Outputs = append(v.Outputs, k)
				v.Checks = append(v.Checks, c.withDefaults(s.Arguments[k].Type))
			}
		}
	} else {
		for i, a := range s.Arguments {
			if a.Output {
				v.Outputs = append(v.Outputs, i)
				v.Checks = append(v.Checks, global.withDefaults(a.Type))
			}
		}
		if len(v.Outputs) == 0 && len(s.Arguments) > 0 {
			d.errf(n, "verification.outputs", "no argument is marked output: true, so there is nothing to compare")
		}
	}
	if refNode == nil {
		d.errAt(keyLine, "verification.reference", "missing; expected kernel: {...}, config: {...} or npy: {argument: file}")
		s.Verification = v
		return
	}
	rentries, ok := d.mapping(refNode, "verification.reference", []string{"kernel", "config", "npy"})
	if !ok && rentries == nil {
		return
	}
	if len(rentries) == 0 {
		d.errf(refNode, "verification.reference", "empty; expected kernel: {...}, config: {...} or npy: {argument: file}")
	}
	if hasKey(rentries, "npy") && len(rentries) > 1 {
		d.errf(refNode, "verification.reference", "npy cannot be combined with kernel or config")
	}
	for _, e := range rentries {
		f := "verification.reference." + e.key
		switch e.key {
		case "kernel":
			if k, ok := p.kernel(e.value, f, false, e.line); ok {
				if k.Language == "" {
					k.Language = s.Kernel.Language
				}
				host := hostLanguage(k.Language) && s.Kernel.Language != "" && !hostLanguage(s.Kernel.Language)
				switch {
				case p.refArgs != nil:
					v.KernelArgs = p.referenceArguments(p.refArgs, f+".arguments", v.Outputs, host)
				case host:
					v.KernelArgs = p.hostReferenceArguments(f, e.line)
				}
				// C and C++ both run on the host: a C reference checks a C++ kernel, and
				// the reverse, each compiled with its own compiler; a C or C++ reference of
				// an OpenCL or CUDA kernel runs on the host too (HostReference)
				switch {
				case k.Language == s.Kernel.Language || s.Kernel.Language == "" || hostLanguage(k.Language):
				case hostLanguage(s.Kernel.Language):
					d.errAt(e.line, f+".language", "%s, but the kernel is %s: a host kernel's reference runs on the host too; write it in C or C++", k.Language, s.Kernel.Language)
				default:
					d.errAt(e.line, f+".language", "%s, but the kernel is %s: a reference kernel runs on the kernel's device, so write it in %s, or in C or C++, which run once on the host",
						k.Language, s.Kernel.Language, s.Kernel.Language)
				}
				if host {
					for _, key := range []string{"grid", "block"} {
						if line, ok := p.refLaunch[key]; ok {
							d.errAt(line, f+"."+key, "a %s reference runs once on the host, called as a plain function, which has no %s: leave it out (the reference computes every element itself)", strings.ToUpper(k.Language), key)
						}
					}
				}
				v.Kernel = k
			}
		case "config":
			if p.paramsOK {
				v.Config = p.config(e.value, f)
			}
		case "npy":
			files, _ := d.mapping(e.value, f, nil)
			v.NPY = map[int]string{}
			for _, fe := range files {
				sub := f + "." + fe.key
				k := argIndex(fe.key)
				if k < 0 {
					d.errAt(fe.line, sub, "no argument %q%s", fe.key, suggest(fe.key, outputNames))
					continue
				}
				if !contains(intsToNames(s, v.Outputs), fe.key) {
					d.errAt(fe.line, sub, "argument %q is not a compared output", fe.key)
					continue
				}
				if path, ok := d.name(fe.value, sub); ok {
					v.NPY[k] = p.resolvePath(path)
					s.fileAt(sub, fe.line)
				}
			}
			for _, k := range v.Outputs {
				if _, ok := v.NPY[k]; !ok && len(files) > 0 {
					d.errf(e.value, f, "no file for output %q; expected one .npy file per compared output", s.Arguments[k].Name)
				}
			}
		}
	}
	s.Verification = v
}

// referenceArguments reads the names of the arguments a reference kernel takes, in its
// parameter order: each a passed argument of the spec, once, the compared outputs among
// them (the reference computes them).
//
// A reference on the host (host: C or C++ checking an OpenCL or CUDA kernel) takes
// constant-memory arguments as arrays, and no local memory, which has no meaning there.
func (p *parser) referenceArguments(n *yaml.Node, field string, outputs []int, host bool) []int {
	d, s := p.d, p.s
	items, ok := d.list(n, field, false)
	if !ok {
		return nil
	}
	s.refArgsLine = n.Line
	var names []string
	for _, a := range s.Arguments {
		if host && a.Kind != ArgLocal || !host && a.Kind != ArgConstant {
			names = append(names, a.Name)
		}
	}
	out := []int{}
	for i, it := range items {
		f := index(field, i)
		name, ok := d.name(it, f)
		if !ok {
			continue
		}
		k := -1
		for j, a := range s.Arguments {
			if a.Name == name {
				k = j
			}
		}
		switch {
		case k < 0:
			d.errf(it, f, "no argument %q%s; expected names of the spec's arguments", name, suggest(name, names))
		case host && s.Arguments[k].Kind == ArgLocal:
			d.errf(it, f, "%q is local memory, which has no meaning on the host, where the reference runs as a plain function; leave it out", name)
		case !host && s.Arguments[k].Kind == ArgConstant:
			d.errf(it, f, "%q is constant memory, which is copied to the reference's symbol as to the kernel's, not passed; leave it out", name)
		case slices.Contains(out, k):
			d.errf(it, f, "%q is given twice", name)
		default:
			out = append(out, k)
		}
	}
	for _, k := range outputs {
		if !slices.Contains(out, k) {
			d.errf(n, field, "the reference takes no %s, a compared output, so it cannot compute it; add it, or leave it out of verification.outputs", s.Arguments[k].Name)
		}
	}
	return out
}

// hostReferenceArguments are the arguments a reference on the host takes when it names
// none of its own (field, at line, is its kernel): every argument of the spec, in its
// order, constant-memory ones as arrays. Local memory has no meaning on the host, so a
// spec with local memory arguments lists the reference's own.
func (p *parser) hostReferenceArguments(field string, line int) []int {
	var out []int
	var local []string
	for i, a := range p.s.Arguments {
		if a.Kind == ArgLocal {
			local = append(local, a.Name)
			continue
		}
		out = append(out, i)
	}
	if len(local) > 0 {
		p.d.errAt(line, field+".arguments", "missing; the reference runs on the host, where local memory (%s) has no meaning: list the arguments it takes, in its parameter order, without it", strings.Join(local, ", "))
	}
	return out
}

func intsToNames(s *Spec, idx []int) []string {
	out := make([]string, len(idx))
	for i, k := range idx {
		out[i] = s.Arguments[k].Name
	}
	return out
}

// config decodes a complete configuration {parameter: value} that satisfies the
// restrictions.
func (p *parser) config(n *yaml.Node, field string) []space.Value {
	d, s := p.d, p.s
	entries, ok := d.mapping(n, field, nil)
	if !ok {
		return nil
	}
	names := paramNames(s)
	out := make([]space.Value, len(s.Parameters))
	set := make([]bool, len(s.Parameters))
	for _, e := range entries {
		sub := field + "." + e.key
		k := -1
		for i, name := range names {
			if name == e.key {
				k = i
			}
		}
		if k < 0 {
			d.errAt(e.line, sub, "no parameter %q%s", e.key, suggest(e.key, names))
			ok = false
			continue
		}
		v, good := d.value(e.value, sub)
		if !good {
			ok = false
			continue
		}
		vi := s.Parameters[k].Index(v)
		if vi < 0 || (v.Kind() == space.String) != (s.Parameters[k].Values[vi].Kind() == space.String) {
			d.errf(e.value, sub, "%v is not one of the parameter's values", v)
			ok = false
			continue
		}
		out[k], set[k] = s.Parameters[k].Values[vi], true
	}
	for i, done := range set {
		if !done && ok {
			d.errf(n, field, "no value for parameter %q; expected a value for every parameter", names[i])
			ok = false
		}
	}
	if !ok {
		return nil
	}
	b := &space.Bindings{Num: make([]float64, len(out)), Str: make([]string, len(out))}
	for i, v := range out {
		b.Num[i] = v.Float()
		if v.Kind() == space.String {
			b.Str[i] = v.Str()
		}
	}
	for _, r := range p.c.restrictions {
		b.Fault, b.Inexact = false, false
		if !r.Holds(b) {
			if b.Inexact {
				d.errf(n, field, "the restriction %q cannot be computed here: an integer result reaches 2**53, beyond what ktune computes exactly (Python's integers are unbounded; rewrite the restriction to keep its integers smaller)", r.Source())
			} else {
				d.errf(n, field, "violates the restriction %q", r.Source())
			}
			return nil
		}
	}
	return out
}

// lineFileName is path as a #line directive takes it: a C string literal.
func lineFileName(path string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`).Replace(path) + `"`
}

// name is what errors call the spec: its file, or "spec" for one parsed from data without
// a path.
func (s *Spec) name() string { return (&Error{File: s.File}).name() }

// ReadFiles reads the kernel sources (the kernel's and the reference kernel's) and checks
// the headers of the .npy files the spec names, as Load does, relative to the directory of
// the path Parse was given. A spec made by Parse needs it before its kernel is compiled,
// unless its code is inline: until then Source holds no code. Call it once, before the
// spec is shared between goroutines.
func (s *Spec) ReadFiles() error {
	d := &decoder{file: s.File}
	if s.read == nil {
		s.read = newFileCache()
	}
	read := func(k *Kernel, field string) {
		if len(k.Files) == 0 {
			return
		}
		var code bytes.Buffer
		for i, f := range k.Files {
			b, err := s.read.readFile(f)
			if err != nil {
				at := index(field+".source", i)
				if fs := s.files[field]; i < len(fs) {
					at = fs[i]
				}
				d.errAt(s.lines[at], at, "%v", err)
				continue
			}
			// Compilers then name the file and its own line in messages, not a runtime's
			// temporary file (PoCL) or a line of the files run together.
			fmt.Fprintf(&code, "#line 1 %s\n", lineFileName(f))
			code.Write(b)
			if line := k.ompWithoutOpenMP(string(b)); line > 0 {
				at := field + ".source"
				if fs := s.files[field]; i < len(fs) {
					at = fs[i]
				}
				s.Warnings = append(s.Warnings, &Error{File: s.File, Line: s.lines[at], Field: at,
					Msg: ompWarning(fmt.Sprintf("%s:%d has", filepath.Base(f), line), field)})
			}
			if len(b) > 0 && b[len(b)-1] != '\n' {
				code.WriteByte('\n')
			}
		}
		k.Code = code.String()
	}
	read(&s.Kernel, "kernel")
	for i := range s.Launches {
		if l := &s.Launches[i]; l.OwnSource {
			read(l.Kernel, index("launches", i))
		} else {
			l.Kernel.Code = s.Kernel.Code
		}
	}
	if len(d.errs) == 0 {
		s.checkLaunchFunctions(d)
	}
	s.filesRead = true
	if v := s.Verification; v != nil {
		if v.Kernel != nil {
			read(v.Kernel, "verification.reference.kernel")
		}
		for _, fn := range v.Functions() {
			read(fn, v.functionField(fn))
		}
		for k, path := range v.NPY {
			s.checkNPY(d, "verification.reference.npy."+s.Arguments[k].Name, path, k)
		}
	}
	for i, a := range s.Arguments {
		if a.Fill.Kind == FillNPY {
			s.checkNPY(d, index("arguments", i)+".fill.npy", a.Fill.Path, i)
		}
	}
	return d.err()
}

// checkNPY reads a .npy header and checks its type (and length, when the argument's
// length does not depend on the configuration) against argument k.
func (s *Spec) checkNPY(d *decoder, field, path string, k int) {
	f, err := os.Open(path)
	if err != nil {
		d.errAt(s.lines[field], field, "%v", err)
		return
	}
	defer f.Close()
	typ, shape, err := s.read.npyHeader(path, f)
	if err != nil {
		d.errAt(s.lines[field], field, "%s: %v", path, err)
		return
	}
	a := s.Arguments[k]
	if typ != a.Type {
		d.errAt(s.lines[field], field, "%s holds %s, but argument %q is %s; give the argument type: %s, or save the array as %s (numpy: a.astype(numpy.%s))", path, typ, a.Name, a.Type, typ, a.Type, a.Type)
		return
	}
	n := 1
	for _, x := range shape {
		n *= x
	}
	if l := s.c.args[k].length; l != nil && s.c.constOnly(l.num) {
		if want := l.num.Eval(s.c.constEnv()); float64(n) != want {
			// %v would print a length of a million as 1e+06.
			length := strconv.FormatFloat(want, 'f', -1, 64)
			if strings.TrimSpace(a.Length) != length {
				length = a.Length + " = " + length
			}
			d.errAt(s.lines[field], field, "%s holds %d elements (shape %v), but argument %q has length %s", path, n, shape, a.Name, length)
		}
	}
}

// Space builds the space of valid configurations.
func (s *Spec) Space() (*space.Space, error) {
	return s.SpaceContext(context.Background(), space.BuildOptions{})
}

// SpaceContext is Space that stops when ctx is done, returning ctx's error, and reports
// the construction's progress and bounds its memory as o says: a space whose index would
// pass o.MaxBytes is a *space.TooLargeError, which names the restrictions but not the file.
func (s *Spec) SpaceContext(ctx context.Context, o space.BuildOptions) (*space.Space, error) {
	if err := s.parsed(); err != nil {
		return nil, err
	}
	sp, err := space.NewCompiledContext(ctx, s.Parameters, s.c.restrictions, o)
	if err == nil && sp.Len() == 0 {
		err = space.ErrEmpty
	}
	var tooLarge *space.TooLargeError
	if err != nil && (ctx.Err() != nil || errors.As(err, &tooLarge)) {
		return nil, err // a space too large names its restrictions; the caller names the file
	}
	if errors.Is(err, space.ErrEmpty) {
		// Name the restrictions that no configuration satisfies even alone: a comparison
		// that can never hold (a string parameter compared with a number, a bound no
		// value reaches) is the usual cause.
		var never []string
		raises := true // every one of them raises for every value
		line, field := 0, "restrictions"
		for i, r := range s.c.restrictions {
			alone, err := space.NewCompiledContext(ctx, s.Parameters, s.c.restrictions[i:i+1], space.BuildOptions{})
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			if errors.Is(err, space.ErrEmpty) || err == nil && alone.Len() == 0 {
				raises = raises && alwaysRaises(s.Parameters, r)
				never = append(never, fmt.Sprintf("restrictions[%d] %q", i, r.Source()))
				if line == 0 && i < len(s.c.restrictLine) {
					line, field = s.c.restrictLine[i], fmt.Sprintf("restrictions[%d]", i)
				}
			}
		}
		msg := err.Error()
		if err == space.ErrEmpty {
			msg = "no configuration satisfies every restriction; the space is empty"
		}
		switch {
		case len(never) > 0 && raises:
			msg += "; " + strings.Join(never, ", ") + " raises for every value, as Python would (a division by zero, an operator on values of the wrong type), which fails it"
		case len(never) > 0:
			msg += "; no configuration satisfies " + strings.Join(never, ", ") + " even on its own (a comparison that never holds: a bound no value reaches, or a string parameter compared with a number)"
		}
		return nil, &Error{File: s.File, Line: line, Field: field, Msg: msg}
	}
	if err != nil {
		// A restriction that cannot be computed (it names the configuration).
		return nil, &Error{File: s.File, Field: "restrictions", Msg: err.Error()}
	}
	return sp, nil
}

// alwaysRaises reports that r raises, as Python would, for every combination of the
// values of the parameters it reads, when there are at most 1<<16 of them to try.
func alwaysRaises(params []space.Param, r space.Restriction) bool {
	ps := r.Params()
	n := 1
	for _, p := range ps {
		if n *= len(params[p].Values); n > 1<<16 {
			return false
		}
	}
	b := &space.Bindings{Num: make([]float64, len(params)), Str: make([]string, len(params))}
	idx := make([]int, len(ps))
	for {
		for k, p := range ps {
			v := params[p].Values[idx[k]]
			b.Num[p] = v.Float()
			if v.Kind() == space.String {
				b.Str[p] = v.Str()
			}
		}
		if r.Holds(b) || !b.Fault {
			return false
		}
		k := len(ps) - 1
		for ; k >= 0; k-- {
			if idx[k]++; idx[k] < len(params[ps[k]].Values) {
				break
			}
			idx[k] = 0
		}
		if k < 0 {
			return true
		}
	}
}

// definedAs says what name is among the preprocessor definitions of every configuration
// (a tunable parameter, a block or grid size, kernel_tuner), or "" when it is none.
func (s *Spec) definedAs(name string) string {
	for _, p := range s.Parameters {
		if p.Name == name {
			return fmt.Sprintf("the name of tunable parameter %q", name)
		}
	}
	for _, n := range s.BlockSizeNames {
		if n == name {
			return "a block size name"
		}
	}
	switch name {
	case "grid_size_x", "grid_size_y", "grid_size_z":
		return "a grid size name"
	case "kernel_tuner":
		return "the name of the kernel_tuner macro"
	}
	return ""
}

// ErrNotParsed is what the methods of a Spec that Parse or Load did not make return.
var ErrNotParsed = errors.New("spec: this Spec was not made by Parse or Load, so its expressions are not compiled; write the spec as YAML or JSON and call spec.Parse")

// parsed returns ErrNotParsed unless Parse or Load made s.
func (s *Spec) parsed() error {
	if s == nil || s.c == nil {
		return ErrNotParsed
	}
	return nil
}

// LengthReads returns the names other than constants that argument k's length reads
// (parameters, problem_size_x, grid_size_x, block sizes...), in order: through them its
// length may differ from one configuration to another. It is nil for a length of constants
// only, and for a scalar.
func (s *Spec) LengthReads(k int) []string {
	if s.c == nil || k < 0 || k >= len(s.c.args) || s.c.args[k].length == nil {
		return nil
	}
	var names []string
	for _, name := range s.c.args[k].length.num.Names {
		if _, ok := s.c.constants[name]; !ok {
			names = append(names, name)
		}
	}
	return names
}

// KernelParams returns the kernel function's parameter list, for device.Source.Params.
// Local memory arguments are pointers.
func (s *Spec) KernelParams() []device.Param {
	out := make([]device.Param, len(s.Arguments))
	for i, a := range s.Arguments {
		out[i] = device.Param{Name: a.Name, Type: a.Type, Pointer: a.Kind != ArgScalar}
	}
	return out
}

// Source returns what a device compiles, without the per-configuration Defines (Instance
// gives those). OpenMP adds -fopenmp to the options.
func (s *Spec) Source() device.Source { return s.kernelSource(&s.Kernel) }

// HostReference reports whether verification's reference kernel is C or C++ checking an
// OpenCL or CUDA kernel: it runs once, on the host through the host C backend (device
// "c"), on the inputs the kernel gets, rather than on the kernel's device.
func (s *Spec) HostReference() bool {
	v := s.Verification
	return v != nil && v.Kernel != nil && hostLanguage(v.Kernel.Language) && !hostLanguage(s.Kernel.Language)
}

// ReferenceSource returns the reference kernel's source, if verification names one.
func (s *Spec) ReferenceSource() (device.Source, bool) {
	if s.Verification == nil || s.Verification.Kernel == nil {
		return device.Source{}, false
	}
	src := s.kernelSource(s.Verification.Kernel)
	if ks := s.Verification.KernelArgs; ks != nil {
		all := src.Params
		src.Params = make([]device.Param, len(ks))
		for i, k := range ks {
			src.Params[i] = all[k]
		}
	}
	return src, true
}

// ReferenceArgs picks, from args of every argument in the spec's order (as an Instance
// has them), those that the reference kernel takes, in its order, with the constant-memory
// arguments (which are copied, not passed); args themselves when it takes the kernel's.
func (s *Spec) ReferenceArgs(args []device.Arg) []device.Arg {
	v := s.Verification
	if v == nil || v.Kernel == nil || v.KernelArgs == nil {
		return args
	}
	out := make([]device.Arg, 0, len(v.KernelArgs))
	for _, k := range v.KernelArgs {
		out = append(out, args[k])
	}
	if s.HostReference() {
		return out // it takes constant-memory arguments as arrays, in KernelArgs
	}
	for i, a := range s.Arguments {
		if a.Kind == ArgConstant {
			out = append(out, args[i])
		}
	}
	return out
}

func (s *Spec) kernelSource(k *Kernel) device.Source {
	file := s.File
	if len(k.Files) > 0 {
		file = k.Files[0]
	}
	opts := append([]string(nil), k.CompilerOptions...)
	if k.OpenMP && !contains(opts, "-fopenmp") {
		opts = append(opts, "-fopenmp")
	}
	code := k.Code
	if len(k.Files) == 0 && k.CodeLine > 0 && s.File != "" {
		// Inline code: compilers then name the spec and the line the code sits on, as
		// they name a source file and its own line (ReadFiles), instead of line 1 of the
		// spec (host C, CUDA) or a runtime's temporary file (PoCL).
		code = fmt.Sprintf("#line %d %s\n", k.CodeLine, lineFileName(s.File)) + code
	}
	return device.Source{Code: code, File: file, Kernel: k.Name, Language: k.Language, Options: opts, Params: s.KernelParams()}
}

// BoundRestrictions returns the restrictions with the constants they read replaced by
// their values, so that each reads on its own (expr.BindConstants): the form stored with a
// run, which is replayed without the spec.
func (s *Spec) BoundRestrictions() ([]string, error) {
	consts := make(map[string]float64, len(s.Constants))
	for _, c := range s.Constants {
		consts[c.Name] = c.Value
	}
	out := make([]string, len(s.Restrictions))
	for i, r := range s.Restrictions {
		var err error
		if out[i], err = expr.BindConstants(r, consts); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// Objective returns what tuning optimises ("time" or a metric's name) and whether higher
// is better.
func (s *Spec) Objective() (name string, maximize bool) { return s.objective, s.maximize }

// ErrNotArray is returned by Generate for an argument without data of its own.
var ErrNotArray = errors.New("not an array argument")

// paramNames are the names of the spec's parameters, in its order.
func paramNames(s *Spec) []string {
	names := make([]string, len(s.Parameters))
	for i, p := range s.Parameters {
		names[i] = p.Name
	}
	return names
}
