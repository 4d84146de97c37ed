package device

import (
	"context"
	"fmt"
)

// Function is one function to take from a build: its name (Source.Kernel's meaning) and
// the parameters it is passed (Source.Params').
type Function struct {
	Name   string
	Params []Param
}

// MultiCompiler is a Device that builds a source once and takes several functions from
// that one build: a program and a clCreateKernel per function (OpenCL), a module and a
// cuModuleGetFunction per function (CUDA), a shared object with a call wrapper per
// function (host C). A configuration whose launches share a source then costs one build,
// which on a GPU's compiler is hundreds of milliseconds.
type MultiCompiler interface {
	// CompileFunctions builds src (its Kernel and Params are ignored) and returns a
	// kernel for each of fns, in order. A build the compiler rejects gives a
	// *CompileError as Compile does; a function the build lacks gives a *FunctionError
	// naming it. The kernels are released each; the build goes with the last.
	CompileFunctions(ctx context.Context, src Source, fns []Function) ([]Kernel, error)
}

// FunctionError is the failure of one function of a build (one the source does not
// define), as opposed to the build's.
type FunctionError struct {
	Index int // the function's position in the list
	Err   error
}

// Error says which function failed.
func (e *FunctionError) Error() string { return fmt.Sprintf("function %d: %v", e.Index, e.Err) }

// Unwrap returns the function's failure.
func (e *FunctionError) Unwrap() error { return e.Err }

// CompileFunctions builds src once on dev for all of fns where dev is a MultiCompiler,
// else once per function (each failure then a *FunctionError).
func CompileFunctions(ctx context.Context, dev Device, src Source, fns []Function) ([]Kernel, error) {
	if mc, ok := dev.(MultiCompiler); ok {
		return mc.CompileFunctions(ctx, src, fns)
	}
	out := make([]Kernel, 0, len(fns))
	for i, f := range fns {
		s := src
		s.Kernel, s.Params = f.Name, f.Params
		k, err := dev.Compile(ctx, s)
		if err != nil {
			for _, k := range out {
				k.Release()
			}
			return nil, &FunctionError{Index: i, Err: err}
		}
		out = append(out, k)
	}
	return out, nil
}
