package tuner

import (
	"fmt"
	"strings"

	"github.com/ktune/ktune/device"
	"github.com/ktune/ktune/device/hostc"
	"github.com/ktune/ktune/spec"
	"github.com/ktune/ktune/worker"
)

// verifyFunctionHost describes the host C backend's device, on which s's verification
// functions (spec.MethodFunction) run beside an OpenCL or CUDA kernel: functions that no
// compiler here can build stop the command before a worker starts, and the compiler
// that builds them is one of the run's inputs (addVerifyFunctions). A host C kernel's
// functions run on its own device (info, of backend): its compilers are the device's
// software already. The zero Info where there are no functions.
func verifyFunctionHost(s *spec.Spec, backend string, info device.Info) (device.Info, error) {
	if s.Verification == nil || len(s.Verification.Functions()) == 0 {
		return device.Info{}, nil
	}
	if backend == hostc.Name {
		return info, nil
	}
	fns := s.Verification.Functions()
	fail := func(why string) (device.Info, error) {
		return device.Info{}, fmt.Errorf("%s: verification: the verification function %s runs on the host, through the host C backend, which %s; install the compiler, or compare with a built-in method (allclose, absolute_sum, relative_norm); nothing was measured",
			s.File, fns[0].Describe(), why)
	}
	b, ok := device.Lookup(hostc.Name)
	if !ok {
		return fail("this program does not register")
	}
	devs, err := b.Devices()
	if err != nil || len(devs) == 0 {
		return fail(fmt.Sprintf("is unavailable here: %v", err))
	}
	for _, fn := range fns {
		if why := devs[0].Extra["cxx_unavailable"]; fn.Language == "c++" && why != "" {
			return fail("has no C++ compiler here: " + why)
		}
	}
	return devs[0], nil
}

// addVerifyFunctions adds s's verification functions to a run's inputs: each one's code
// as "verification function NAME (FILE)", the headers it includes, and, where they run
// on the host beside an OpenCL or CUDA kernel (host, from verifyFunctionHost, of another
// backend than the kernel's), the compilers that build them as "verification function
// compiler". Their compiler options are the spec's text.
func addVerifyFunctions(in inputSet, s *spec.Spec, backend string, host device.Info) error {
	if s.Verification == nil {
		return nil
	}
	fns := s.Verification.Functions()
	compilers := ""
	for _, fn := range fns {
		in["verification function "+fn.Describe()] = hashBytes([]byte(fn.Code))
		if err := addHeaders(in, s.FunctionSource(fn)); err != nil {
			return err
		}
		if fn.Language == "c++" {
			compilers += "\x00c++\x00" + host.Extra["cxx_compiler"] + "\x00" + host.Extra["cxx_version"]
		} else {
			compilers += "\x00c\x00" + host.Extra["compiler"] + "\x00" + host.Version
		}
	}
	if len(fns) > 0 && backend != hostc.Name {
		in["verification function compiler"] = hashBytes([]byte(compilers))
	}
	return nil
}

// functionsUseCXX reports whether a verification function of s is C++.
func functionsUseCXX(s *spec.Spec) bool {
	if s.Verification == nil {
		return false
	}
	for _, fn := range s.Verification.Functions() {
		if fn.Language == "c++" {
			return true
		}
	}
	return false
}

// functionError is a verification function's failure to build, found as the reference
// was computed: the worker.ErrReference error it wraps says there is no reference,
// which is not the trouble.
type functionError struct {
	msg string
	err error
}

func (e *functionError) Error() string { return e.msg }
func (e *functionError) Unwrap() error { return e.err }

// functionFailure is err, a worker.ErrReference error, in words of its own where a
// verification function failed to build (the runner's message starts "the verification
// function "), else nil.
func functionFailure(specPath string, err error) error {
	why := strings.TrimPrefix(err.Error(), worker.ErrReference.Error()+": ")
	if !strings.HasPrefix(why, "the verification function ") {
		return nil
	}
	return &functionError{
		msg: fmt.Sprintf("%s: verification: %s\nFix the function (verification.function, or an output's), or its declaration (ktune help spec gives the signature); nothing was measured", specPath, why),
		err: err,
	}
}
