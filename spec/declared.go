package spec

import (
	"errors"
	"fmt"
	"strings"

	"github.com/ktune/ktune/device"
)

// CheckDeclared compares the spec's arguments with the parameters that the compiled
// kernel declares (device.Declarer): their number and, where detailed, how each is passed
// (an array, local memory or a value) and its type. reference says that the kernel is the
// verification's reference kernel, which takes the same arguments. A runtime passes a
// mismatched value on as bytes: the kernel reads an int32 as a float, or an array's
// address as a number, and computes garbage or crashes. Each mismatch is an *Error at the
// argument's line (at the arguments key for their number), naming both types.
func (s *Spec) CheckDeclared(reference bool, params []device.Declared, detailed bool) error {
	kernel := "kernel " + s.Kernel.Name
	if reference && s.Verification != nil && s.Verification.Kernel != nil {
		kernel = "the reference kernel " + s.Verification.Kernel.Name
	}
	passed := s.passed(reference)
	refArgs := reference && s.Verification.KernelArgs != nil
	field := "arguments"
	if refArgs {
		field = "verification.reference.kernel.arguments"
	}
	return s.checkDeclared(kernel, passed, params, detailed, func(msg string) (string, int) {
		if refArgs {
			return msg + "; they are passed in the order of the reference kernel's parameter list", s.refArgsLine
		}
		return msg + "; the arguments are passed in the order of the kernel's parameter list", s.argsLine
	}, field, func(j, i int) (string, int, string) {
		line := 0
		if i < len(s.argLines) {
			line = s.argLines[i]
		}
		hint := ""
		if refArgs {
			hint = fmt.Sprintf(" (or list in verification.reference.kernel.arguments the argument it takes there, as parameter %d)", j+1)
		}
		return index("arguments", i), line, hint
	})
}

// checkDeclared compares the arguments passed (indices into Arguments, in the parameter
// order of kernel, which names it in messages) with the parameters it declares. count
// completes the message of a mismatch in number and gives its line, reported at field;
// at gives the field, line and extra hint of a mismatch of parameter j, argument i.
func (s *Spec) checkDeclared(kernel string, passed []int, params []device.Declared, detailed bool,
	count func(msg string) (string, int), field string, at func(j, i int) (string, int, string)) error {
	d := &decoder{file: s.File}
	if len(passed) != len(params) {
		msg := fmt.Sprintf("%d in the spec, but %s takes %d", len(passed), kernel, len(params))
		if detailed {
			msg += " (" + declList(params) + ")"
			switch {
			case len(params) > len(passed):
				msg += fmt.Sprintf(": the spec has none for %s", declList(params[len(passed):]))
			default:
				var extra []string
				for _, i := range passed[len(params):] {
					extra = append(extra, s.Arguments[i].Name)
				}
				msg += fmt.Sprintf(": the kernel has no parameter for %s", strings.Join(extra, ", "))
			}
		}
		msg, line := count(msg)
		d.errAt(line, field, "%s", msg)
		return d.err()
	}
	if !detailed {
		return nil
	}
	for j, i := range passed {
		a, p := s.Arguments[i], params[j]
		if bad, hint := mismatch(a, p); bad {
			f, line, extra := at(j, i)
			d.errAt(line, f, "%s is %s in the spec, but %s takes %s%s%s", a.Name, describeArg(a), kernel, p.Decl, hint, extra)
		}
	}
	return d.err()
}

// passed lists the arguments passed to the kernel (the reference kernel, with reference),
// in its parameter order, as indices into Arguments: a constant-memory argument (CUDA) is
// copied to a symbol, not passed.
func (s *Spec) passed(reference bool) []int {
	if v := s.Verification; reference && v != nil && v.Kernel != nil && v.KernelArgs != nil {
		return v.KernelArgs
	}
	var passed []int
	for i, a := range s.Arguments {
		if a.Kind != ArgConstant {
			passed = append(passed, i)
		}
	}
	return passed
}

// mismatch reports whether the kernel's parameter p cannot take argument a, with a hint
// ("" or text that starts with ": ") on what to change in the spec. A parameter whose
// type the backend cannot name (a typedef) takes any type of the right kind; a pointer
// to a vector type (float4*) takes an array of its component type; an integer type takes
// one of its width and the other sign (int32 for uint).
func mismatch(a Argument, p device.Declared) (bool, string) {
	switch a.Kind {
	case ArgScalar:
		if p.Pointer {
			return true, ": a pointer takes an array: give the argument a length instead of a value"
		}
		if p.Lanes > 1 {
			return true, ": ktune passes no vector values; pass the components as scalars of their own, or an array"
		}
	case ArgArray:
		if !p.Pointer {
			return true, ": a parameter that is not a pointer takes a value: give the argument a value instead of a length"
		}
		if p.Local {
			return true, ": a __local pointer takes local memory: give the argument kind: local"
		}
	case ArgLocal:
		if !p.Local {
			return true, ": local memory goes to a __local pointer; an array needs no kind, or kind: array"
		}
	default:
		return false, ""
	}
	bad := p.Type != "" && p.Type != a.Type && !sameWidthIntegers(p.Type, a.Type)
	switch {
	case bad && p.Type == "float16":
		return true, ": give the argument type: float16 (half precision, 2 bytes an element)"
	case bad && a.Type == "float16" && a.Kind == ArgScalar:
		return true, ": a float16 value goes to a half parameter, or give the argument the parameter's type"
	case bad && a.Type == "float16":
		// Half elements reach a float pointer two at a time, as garbage.
		return true, ": a float16 array goes to a half pointer (OpenCL C reads it with vload_half and writes it with vstore_half), or give the argument the parameter's type"
	}
	return bad, ""
}

// sameWidthIntegers reports whether a and b are integer types of one width that differ in
// their sign only (int32, uint32): their bytes are the same for the sizes and indices
// that kernels take, and Kernel Tuner's users pass numpy.int32 to unsigned parameters
// as a matter of course.
func sameWidthIntegers(a, b string) bool {
	a, b = strings.TrimPrefix(a, "u"), strings.TrimPrefix(b, "u")
	return strings.HasPrefix(a, "int") && a == b
}

// describeArg is the argument's kind and type in a spec's words: "int32", "an array of
// float32", "local memory of float32".
func describeArg(a Argument) string {
	switch a.Kind {
	case ArgArray:
		return "an array of " + a.Type
	case ArgLocal:
		return "local memory of " + a.Type
	}
	return a.Type
}

// declList joins declarations: "int w, int h".
func declList(params []device.Declared) string {
	decls := make([]string, len(params))
	for i, p := range params {
		decls[i] = p.Decl
	}
	return strings.Join(decls, ", ")
}

// ArgumentError locates err, a launch argument the kernel refused (a *device.ArgError with
// the argument's position among those passed), at the spec's argument: the message
// names the argument, its line and its type. Other errors come back unchanged.
func (s *Spec) ArgumentError(err error) error { return s.argumentError(err, false) }

// ReferenceArgumentError is ArgumentError for the verification's reference kernel, whose
// arguments may be its own selection (verification.reference.kernel.arguments).
func (s *Spec) ReferenceArgumentError(err error) error { return s.argumentError(err, true) }

func (s *Spec) argumentError(err error, reference bool) error {
	var ae *device.ArgError
	if !errors.As(err, &ae) {
		return err
	}
	for n, i := range s.passed(reference) {
		a := s.Arguments[i]
		if n == ae.Index {
			line := 0
			if i < len(s.argLines) {
				line = s.argLines[i]
			}
			return &Error{File: s.File, Line: line, Field: index("arguments", i),
				Msg: fmt.Sprintf("%s (%s) is refused by the kernel: %v; check its type against the kernel's parameter list", a.Name, describeArg(a), ae.Err)}
		}
	}
	return err
}
