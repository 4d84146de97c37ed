package spec

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/ktune/ktune/device"
)

// A verification function (method function) is the user's own comparison, Kernel
// Tuner's verify(answer, result_host, atol): a C or C++ function that ktune compiles
// once per run with the host C backend and calls once per compared output and
// configuration, after the kernel's first run, with the reference's elements and the
// kernel's (the output's range of them), their count, the check's tolerance and a buffer
// for a message. It returns 0 when the output passes. FunctionSignature spells it.

// FunctionMessageSize is the size in bytes of the buffer a verification function may
// write a message into (a NUL-terminated string, shown with the output's failure).
const FunctionMessageSize = 1024

// cxxFunctionName is what a C++ verification function's name may be: a name, qualified
// (ns::check) or a template's instance (check<float>). Statement syntax is not allowed:
// the name is written into the code that calls it.
var cxxFunctionName = regexp.MustCompile(`^(::)?[A-Za-z_][A-Za-z0-9_]*(::[A-Za-z_][A-Za-z0-9_]*)*(<[A-Za-z0-9_:<>,.+\-*&()\[\] ]*>)?$`)

// functionElementTypes spell each element type in C, as a verification function
// declares its pointers (<stdint.h>'s names for the integers).
var functionElementTypes = map[string]string{
	"float16": "_Float16", "float32": "float", "float64": "double",
	"int8": "int8_t", "int16": "int16_t", "int32": "int32_t", "int64": "int64_t",
	"uint8": "uint8_t", "uint16": "uint16_t", "uint32": "uint32_t", "uint64": "uint64_t",
}

// FunctionSignature is how a verification function named name is declared for outputs
// of element type typ: "int check(const float *want, const float *got, long n, double
// tolerance, char *message, long message_size)". want holds the reference's n elements,
// got the kernel's (the output's range of them, when it has one).
func FunctionSignature(name, typ string) string {
	t := functionElementTypes[typ]
	if t == "" {
		t = typ
	}
	return fmt.Sprintf("int %s(const %s *want, const %s *got, long n, double tolerance, char *message, long message_size)", functionName(name), t, t)
}

// Describe names a verification function (or any kernel) for messages: its name and
// its first source file, "check (check.c)", or its name alone for inline code.
func (k *Kernel) Describe() string {
	if len(k.Files) > 0 {
		return fmt.Sprintf("%s (%s)", k.Name, filepath.Base(k.Files[0]))
	}
	return k.Name
}

// Functions are the verification functions of the compared outputs, each once, in the
// order of Outputs; none where every output is compared by a built-in method.
func (v *Verification) Functions() []*Kernel {
	var out []*Kernel
	for j := range v.Outputs {
		if fn := v.Check(j).Function; fn != nil && !containsKernel(out, fn) {
			out = append(out, fn)
		}
	}
	return out
}

func containsKernel(ks []*Kernel, k *Kernel) bool {
	for _, x := range ks {
		if x == k {
			return true
		}
	}
	return false
}

// FunctionSource is verification function fn's code as the host C backend compiles it:
// its source files' contents (once ReadFiles has read them) or inline code, its language
// and compiler options. It has no parameters or definitions: the caller adds the code
// that calls it.
func (s *Spec) FunctionSource(fn *Kernel) device.Source {
	src := s.kernelSource(fn)
	src.Params, src.Defines = nil, nil
	return src
}

// verifyFunction reads a verification function, {name, source | code, language,
// compiler_options, openmp}, written at field (on line keyLine); nil when it is wrong,
// after saying why.
func (p *parser) verifyFunction(n *yaml.Node, field string, keyLine int) *Kernel {
	d := p.d
	entries, ok := d.mapping(n, field, []string{"name", "source", "code", "language", "compiler_options", "openmp"})
	if !ok && entries == nil {
		return nil
	}
	k := &Kernel{}
	var nameNode, langNode *yaml.Node
	good := ok
	for _, e := range entries {
		f := join(field, e.key)
		switch e.key {
		case "name":
			nameNode = e.value
			if v, ok := d.name(e.value, f); ok {
				k.Name = strings.TrimSpace(v)
			} else {
				good = false
			}
		case "language":
			langNode = e.value
			if v, ok := d.str(e.value, f); ok {
				l := strings.ToLower(v)
				if c, ok := languageSpellings[l]; ok {
					l = c
				}
				k.Language = l
			}
		case "source":
			file, ok := d.name(e.value, f)
			if !ok {
				good = false
				continue
			}
			k.Files = []string{p.resolvePath(file)}
			if p.s.files == nil {
				p.s.files = map[string][]string{}
			}
			p.s.files[field] = []string{f}
			p.s.fileAt(f, e.value.Line)
		case "code":
			if v, ok := d.name(e.value, f); ok {
				k.Code, k.CodeLine = v, codeLine(e.value)
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
		case "openmp":
			if v, ok := d.boolean(e.value, f); ok {
				k.OpenMP = v
			}
		}
	}
	switch {
	case !hasKey(entries, "name"):
		d.errAt(keyLine, join(field, "name"), "missing; expected the name of the C or C++ function that compares an output with its reference")
		good = false
	case !hasKey(entries, "source") && !hasKey(entries, "code"):
		d.errAt(keyLine, join(field, "source"), "missing; expected the C or C++ file that defines %s (or its inline code)", k.Name)
		good = false
	case hasKey(entries, "source") && hasKey(entries, "code"):
		d.errAt(keyLine, join(field, "code"), "cannot be combined with source; give one of them")
		good = false
	}
	if k.Language == "" && langNode == nil {
		k.Language = "c"
		if len(k.Files) > 0 {
			if l := languageOfFile(k.Files[0]); l != "" {
				k.Language = l
			}
		}
	}
	if !hostLanguage(k.Language) {
		at, line := join(field, "language"), keyLine
		if langNode != nil {
			line = langNode.Line
		}
		d.errAt(line, at, "%s; a verification function runs on the host, called once per output and configuration: write it in C or C++ (language: c or c++, or a source file ending in .c or .cpp)", k.Language)
		good = false
	}
	switch {
	case k.Name == "" || !hostLanguage(k.Language):
	case k.Language == "c" && !isCIdentifier(k.Name):
		d.errf(nameNode, join(field, "name"), "%q is not a C function's name; a C++ function's (qualified, a template's instance) is, with language: c++", k.Name)
		good = false
	case k.Language == "c++" && !cxxFunctionName.MatchString(k.Name):
		d.errf(nameNode, join(field, "name"), "%q is not the name of a C++ function: expected a name, qualified or not (ns::check), with template arguments or not (check<float>)", k.Name)
		good = false
	}
	if !good {
		return nil
	}
	return k
}

// functionField is where verification function fn is written.
func (v *Verification) functionField(fn *Kernel) string {
	for _, c := range v.Checks {
		if c.Function == fn {
			return c.functionField
		}
	}
	return "verification.function"
}
