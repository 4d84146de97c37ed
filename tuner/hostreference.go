package tuner

import (
	"fmt"

	"github.com/ktune/ktune/device"
	"github.com/ktune/ktune/device/hostc"
	"github.com/ktune/ktune/spec"
)

// hostReferenceInfo describes the host C backend's device, on which s's C or C++
// reference of an OpenCL or CUDA kernel runs (spec.HostReference): a reference that no
// compiler here can build stops the command before a worker starts, and the compiler that
// builds it is one of the run's inputs (addReferenceCompiler).
func hostReferenceInfo(s *spec.Spec) (device.Info, error) {
	rk := s.Verification.Kernel
	lang := "C"
	if rk.Language == "c++" {
		lang = "C++"
	}
	fail := func(why string) (device.Info, error) {
		return device.Info{}, fmt.Errorf("%s: verification.reference.kernel: the %s reference %s runs on the host, through the host C backend, which %s; write the expected outputs as .npy files instead (verification.reference.npy), or install the compiler; nothing was measured",
			s.File, lang, rk.Name, why)
	}
	b, ok := device.Lookup(hostc.Name)
	if !ok {
		return fail("this program does not register")
	}
	devs, err := b.Devices()
	if err != nil || len(devs) == 0 {
		return fail(fmt.Sprintf("is unavailable here: %v", err))
	}
	if why := devs[0].Extra["cxx_unavailable"]; rk.Language == "c++" && why != "" {
		return fail("has no C++ compiler here: " + why)
	}
	return devs[0], nil
}

// addReferenceCompiler adds the compiler of a host reference (spec.HostReference) to a
// run's inputs as "reference compiler": its path, arguments ($CC, or $CXX for C++) and
// version line, as host, the host C backend's device, reports them.
func addReferenceCompiler(in inputSet, s *spec.Spec, host device.Info) {
	if !s.HostReference() {
		return
	}
	compiler := host.Extra["compiler"] + "\x00" + host.Version
	if s.Verification.Kernel.Language == "c++" {
		compiler = host.Extra["cxx_compiler"] + "\x00" + host.Extra["cxx_version"]
	}
	in["reference compiler"] = hashBytes([]byte(compiler))
}
