package runner

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"unicode"

	"github.com/ktune/ktune/device"
	"github.com/ktune/ktune/device/hostc"
	"github.com/ktune/ktune/spec"
)

// Verification functions (spec.MethodFunction) run on the host C backend: on the
// kernel's own device when that is the host's, else on a host C device opened beside it
// for them, as a reference on the host is. Each function is compiled once per element
// type it compares, with a call of ktune's own after the user's code (functionCall),
// whose parameters the host C call wrapper passes. Compiled objects are cached on disk
// as kernels are, so a worker that replaces a crashed one loads them again.

// RunningPrefix starts a phase that names what runs now, when it is not the kernel:
// "running: the verification function check (check.c)". A worker process's supervisor
// blames a crash or a hang until the next phase on it; "running: the kernel" gives the
// blame back to the kernel.
const RunningPrefix = "running: "

// functionCallFile names ktune's call of a verification function in the compiler's
// messages.
const functionCallFile = "<ktune verification call>"

// functionElement spells each element type as the host C call wrapper passes it.
var functionElement = map[string]string{
	"float16": "_Float16", "float32": "float", "float64": "double",
	"int8": "__INT8_TYPE__", "int16": "__INT16_TYPE__", "int32": "__INT32_TYPE__", "int64": "__INT64_TYPE__",
	"uint8": "__UINT8_TYPE__", "uint16": "__UINT16_TYPE__", "uint32": "__UINT32_TYPE__", "uint64": "__UINT64_TYPE__",
}

// functionKey is a verification function compiled for outputs of one element type.
type functionKey struct {
	fn  *spec.Kernel
	typ string
}

// compiledFunction is a verification function built for one element type, or why it
// does not build.
type compiledFunction struct {
	k   device.Kernel
	err error
}

// verifyFunctions holds what the runner's verification functions need on the host.
type verifyFunctions struct {
	host     device.Device // where they run
	opened   bool          // host was opened for them, and is closed with them
	compiled map[functionKey]*compiledFunction
	// want and got hold an output's compared elements for the call, by argument index;
	// message and result the function's message and the value it returned
	want, got       map[int]device.Buffer
	message, result device.Buffer
}

// functionCall is the code that calls verification function fn for elements of type typ
// from a function of ktune's own (named symbol), whose parameters the host C call wrapper
// passes: the call is where the compiler checks the function's declaration. As the call
// wrapper does, it makes conversions that can change a value errors (a long n passed to
// an int, a double tolerance to a float, a float result returned as an int), as well as
// pointers of another element type and a const pointer passed to a parameter without
// const; a change of sign alone passes (size_t n).
func functionCall(fn *spec.Kernel, typ, symbol string) string {
	t := functionElement[typ]
	var b strings.Builder
	fmt.Fprintf(&b, "\n#line 1 \"%s\"\n", functionCallFile)
	b.WriteString(`#pragma GCC diagnostic push
#pragma GCC diagnostic error "-Wconversion"
#pragma GCC diagnostic ignored "-Wsign-conversion"
`)
	if fn.Language == "c" {
		b.WriteString(`#pragma GCC diagnostic error "-Wimplicit-function-declaration"
#pragma GCC diagnostic error "-Wincompatible-pointer-types"
#pragma GCC diagnostic error "-Wint-conversion"
#pragma GCC diagnostic ignored "-Wpointer-sign"
#ifdef __clang__
#pragma GCC diagnostic error "-Wincompatible-pointer-types-discards-qualifiers"
#else
#pragma GCC diagnostic error "-Wdiscarded-qualifiers"
#endif
`)
	}
	fmt.Fprintf(&b, `void %[1]s(const %[2]s *ktune_want_, const %[2]s *ktune_got_, __INT64_TYPE__ ktune_n_, double ktune_tolerance_,
	__INT8_TYPE__ *ktune_message_, __INT64_TYPE__ ktune_message_size_, __INT32_TYPE__ *ktune_result_);
void %[1]s(const %[2]s *ktune_want_, const %[2]s *ktune_got_, __INT64_TYPE__ ktune_n_, double ktune_tolerance_,
	__INT8_TYPE__ *ktune_message_, __INT64_TYPE__ ktune_message_size_, __INT32_TYPE__ *ktune_result_)
{
	*ktune_result_ = %[3]s(
`, symbol, t, fn.Name)
	// one argument a line (functionArgLine), so that the compiler's line names it
	for i, a := range []string{"ktune_want_", "ktune_got_", "(long)ktune_n_", "ktune_tolerance_", "(char *)ktune_message_", "(long)ktune_message_size_"} {
		if i > 0 {
			b.WriteString(",\n")
		}
		b.WriteString("\t\t" + a)
	}
	b.WriteString(");\n}\n#pragma GCC diagnostic pop\n")
	return b.String()
}

// functionArgs are the parameters of a verification function, as its signature names
// them.
var functionArgs = []string{"want", "got", "n", "tolerance", "message", "message_size"}

// functionArgNotes names the parameter of verification function name that each line of
// ktune's call (call) that log reports passes: the compiler gives only the line.
func functionArgNotes(log, call, name string) string {
	// the line of the call: the text before it starts with a line break and the #line
	// directive, after which lines count from 1
	first := strings.Count(call[:strings.Index(call, "(\n")], "\n")
	var b strings.Builder
	seen := map[int]bool{}
	for _, m := range functionCallDiagnostic.FindAllStringSubmatch(log, -1) {
		line, _ := strconv.Atoi(m[1])
		i := line - first
		switch {
		case seen[i]:
		case i == -1:
			fmt.Fprintf(&b, "\nnote: %s:%d calls %s and keeps its result as an int", functionCallFile, line, name)
		case i >= 0 && i < len(functionArgs):
			fmt.Fprintf(&b, "\nnote: %s:%d passes parameter %d, %s", functionCallFile, line, i+1, functionArgs[i])
		}
		seen[i] = true
	}
	return b.String()
}

// functionCallDiagnostic matches a compiler's error at a line of ktune's call.
var functionCallDiagnostic = regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(functionCallFile) + `:([0-9]+):(?:[0-9]+:)? error`)

// functionSymbol is the name of ktune's function that calls fn for elements of type typ.
func functionSymbol(fn *spec.Kernel, typ string) string {
	name := strings.Map(func(r rune) rune {
		if r < 128 && (unicode.IsLetter(r) || unicode.IsDigit(r)) {
			return r
		}
		return '_'
	}, fn.Name)
	return "ktune_verify_" + name + "_" + typ
}

// functionParams are the parameters of ktune's function that calls a verification
// function for elements of type typ, as the host C call wrapper passes them.
func functionParams(typ string) []device.Param {
	return []device.Param{
		{Name: "want", Type: typ, Pointer: true},
		{Name: "got", Type: typ, Pointer: true},
		{Name: "n", Type: "int64"},
		{Name: "tolerance", Type: "float64"},
		{Name: "message", Type: "int8", Pointer: true},
		{Name: "message_size", Type: "int64"},
		{Name: "result", Type: "int32", Pointer: true},
	}
}

// functionHost is the device the verification functions run on: the kernel's when it
// is the host C backend's, else a host C device opened for them.
func (r *Runner) functionHost(ctx context.Context) (device.Device, error) {
	vf := r.functions
	if vf.host != nil {
		return vf.host, nil
	}
	if r.info.Backend == hostc.Name {
		vf.host = r.dev
		return vf.host, nil
	}
	b, ok := device.Lookup(hostc.Name)
	if !ok {
		return nil, errors.New("verification functions run on the host C backend, which this program does not register (blank-import github.com/ktune/ktune/device/all)")
	}
	host, err := b.Open(ctx, 0)
	if err != nil {
		return nil, fmt.Errorf("verification functions run on the host C backend: %w", err)
	}
	vf.host, vf.opened = host, true
	return host, nil
}

// function returns verification function fn built for outputs of element type typ,
// compiling it the first time it is asked for.
func (r *Runner) function(ctx context.Context, fn *spec.Kernel, typ, output string) (device.Kernel, error) {
	vf := r.functions
	key := functionKey{fn, typ}
	if c, ok := vf.compiled[key]; ok {
		return c.k, c.err
	}
	what := "the verification function " + fn.Describe()
	host, err := r.functionHost(ctx)
	if err != nil {
		return nil, err
	}
	src := r.spec.FunctionSource(fn)
	symbol := functionSymbol(fn, typ)
	call := functionCall(fn, typ, symbol)
	src.Code += call
	src.Kernel, src.Params = symbol, functionParams(typ)
	k, err := compileOn(ctx, host, src, fn)
	if err != nil {
		var ce *device.CompileError
		var env *device.EnvironmentError
		switch {
		case errors.As(err, &env) || ctx.Err() != nil:
			return nil, err // the machine's, or the moment's: asked again next time
		case errors.As(err, &ce):
			log := truncate(compilerSaid(ce), 4096)
			if strings.Contains(log, functionCallFile) {
				log += functionArgNotes(log, call, fn.Name)
				log += fmt.Sprintf("\nnote: %s is ktune's call of %s for output %s (%s): declare it `%s`; a parameter may also be of a type that holds every value passed, or differ in sign (size_t n), and the result may be any integer type as narrow as int",
					functionCallFile, fn.Name, output, typ, spec.FunctionSignature(fn.Name, typ))
			}
			err = fmt.Errorf("%s does not compile:\n%s", what, log)
		default:
			err = fmt.Errorf("%s: %w", what, err)
		}
	}
	vf.compiled[key] = &compiledFunction{k: k, err: err}
	return k, err
}

// prepareFunctions compiles every verification function for the element types of the
// outputs it compares, before anything is measured: one that does not compile stops the
// run (Reference).
func (r *Runner) prepareFunctions(ctx context.Context) error {
	v := r.spec.Verification
	for j, i := range v.Outputs {
		if fn := v.Check(j).Function; fn != nil {
			a := r.spec.Arguments[i]
			if _, err := r.function(ctx, fn, a.Type, a.Name); err != nil {
				return err
			}
		}
	}
	return nil
}

// callFunction compares got with want, the compared elements of output a (argument i,
// named name in messages, with its range), by c's verification function. It returns "" when the
// function returns 0, else the failure with the function's message; an error when the
// function cannot be called, or wrote outside the arrays it was given.
func (r *Runner) callFunction(ctx context.Context, phase func(string), i int, a spec.ArgInstance, got, want []byte, c spec.Check, name string) (string, error) {
	fn := c.Function
	what := "the verification function " + fn.Describe()
	k, err := r.function(ctx, fn, a.Type, a.Name)
	if err != nil {
		return "", err
	}
	vf := r.functions
	fill := func(bufs map[int]device.Buffer, data []byte) (device.Buffer, error) {
		b := bufs[i]
		if b == nil || b.Size() != max(len(data), 1) {
			if b != nil {
				b.Release()
				delete(bufs, i)
			}
			if b, err = vf.host.Alloc(max(len(data), 1)); err != nil {
				return nil, fmt.Errorf("%s: %d bytes on the host for output %s: %w", what, len(data), a.Name, err)
			}
			bufs[i] = b
		}
		return b, b.Write(data)
	}
	wantBuf, err := fill(vf.want, want)
	if err != nil {
		return "", err
	}
	gotBuf, err := fill(vf.got, got)
	if err != nil {
		return "", err
	}
	if vf.message == nil {
		if vf.message, err = vf.host.Alloc(spec.FunctionMessageSize); err != nil {
			return "", err
		}
		if vf.result, err = vf.host.Alloc(4); err != nil {
			return "", err
		}
	}
	message := make([]byte, spec.FunctionMessageSize)
	if err := vf.message.Write(message); err != nil {
		return "", err
	}
	if err := vf.result.Write([]byte{0, 0, 0, 0}); err != nil {
		return "", err
	}
	n := len(got) / elemSize(a.Type)
	args := []device.Arg{
		{Buffer: wantBuf}, {Buffer: gotBuf},
		{Scalar: binary.LittleEndian.AppendUint64(nil, uint64(n))},
		{Scalar: binary.LittleEndian.AppendUint64(nil, math.Float64bits(c.Tolerance))},
		{Buffer: vf.message},
		{Scalar: binary.LittleEndian.AppendUint64(nil, uint64(spec.FunctionMessageSize))},
		{Buffer: vf.result},
	}
	// A crash or a hang from here is the function's, not the kernel's.
	phase(RunningPrefix + what)
	_, err = k.Run(ctx, device.Launch{}, args)
	phase(RunningPrefix + "the kernel")
	if err != nil {
		return "", fmt.Errorf("%s, comparing output %s: %w", what, name, err)
	}
	var res [4]byte
	if err := vf.result.Read(res[:]); err != nil {
		return "", err
	}
	returned := int32(binary.LittleEndian.Uint32(res[:]))
	if returned == 0 {
		return "", nil
	}
	if err := vf.message.Read(message); err != nil {
		return "", err
	}
	msg := fmt.Sprintf("output %s: %s returned %d", name, what, returned)
	if said := functionMessage(message); said != "" {
		return msg + ": " + said, nil
	}
	return msg + " (it wrote no message)", nil
}

// functionMessage is what a verification function wrote into its message buffer b: the
// text before the first NUL, as valid UTF-8 on one line, at most 512 bytes.
func functionMessage(b []byte) string {
	if i := strings.IndexByte(string(b), 0); i >= 0 {
		b = b[:i]
	}
	s := strings.ToValidUTF8(string(b), "?")
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, s)
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 512 {
		s = strings.ToValidUTF8(s[:509], "") + "..."
	}
	return s
}

// close releases what the verification functions hold, and the host device opened for
// them.
func (vf *verifyFunctions) close() {
	for key, c := range vf.compiled {
		if c.k != nil {
			c.k.Release()
		}
		delete(vf.compiled, key)
	}
	for _, bufs := range []map[int]device.Buffer{vf.want, vf.got} {
		for i, b := range bufs {
			b.Release()
			delete(bufs, i)
		}
	}
	for _, b := range []device.Buffer{vf.message, vf.result} {
		if b != nil {
			b.Release()
		}
	}
	vf.message, vf.result = nil, nil
	if vf.opened {
		vf.host.Close()
	}
	vf.host, vf.opened = nil, false
}
