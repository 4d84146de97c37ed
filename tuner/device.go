package tuner

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/ktune/ktune/device"
)

// A DeviceError is Tune's error when Options.Device names no backend, or one that does
// not compile the kernel's language, or gives an index that is no index, or names a device
// that its backend does not have (or cannot list).
type DeviceError struct {
	Device string // Options.Device, as given
	// Unavailable says the backend named could not list its devices (its library is
	// missing, the driver failed): the machine is at fault, not the name.
	Unavailable bool
	msg         string // what is wrong, following the device's name
}

// Error says what is wrong with the device, named "device".
func (e *DeviceError) Error() string { return e.Named("device") }

// Named is the error's message with the device called name instead of "device": a
// command line names its flag.
func (e *DeviceError) Named(name string) string { return fmt.Sprintf("%s %q%s", name, e.Device, e.msg) }

// pickDevice resolves Options.Device (BACKEND[:INDEX]), or picks the first available
// backend for the language when it is "".
func pickDevice(name, language string) (string, int, device.Info, error) {
	var cands []device.Backend
	index := 0
	if name != "" {
		backend, idx, hasIdx := strings.Cut(name, ":")
		b, ok := device.Lookup(backend)
		if !ok {
			var names []string
			for _, b := range device.Backends() {
				names = append(names, b.Name())
			}
			return "", 0, device.Info{}, &DeviceError{Device: name, msg: fmt.Sprintf(": unknown backend (have %s)", strings.Join(names, ", "))}
		}
		if hasIdx {
			n, err := strconv.Atoi(idx)
			if err != nil || n < 0 {
				return "", 0, device.Info{}, &DeviceError{Device: name, msg: ": the index must be a whole number, 0 or more (see 'ktune devices')"}
			}
			index = n
		}
		if !slices.Contains(b.Languages(), language) {
			return "", 0, device.Info{}, &DeviceError{Device: name, msg: fmt.Sprintf(" does not compile %s kernels (it compiles %v)", language, b.Languages())}
		}
		cands = []device.Backend{b}
	} else {
		cands = device.ForLanguage(language)
		if len(cands) == 0 {
			return "", 0, device.Info{}, fmt.Errorf("no backend compiles %s kernels in this build of ktune", language)
		}
	}
	var reasons []string
	for _, b := range cands {
		devs, err := b.Devices()
		if err != nil {
			reasons = append(reasons, fmt.Sprintf("%s: %v", b.Name(), err))
			if name != "" {
				return "", 0, device.Info{}, &DeviceError{Device: name, Unavailable: true, msg: ": " + reasons[0]}
			}
		} else if index >= len(devs) {
			reasons = append(reasons, fmt.Sprintf("%s has %s, no index %d (see 'ktune devices')", b.Name(), nounCount(len(devs), "device"), index))
		} else if why := devs[index].Extra["cxx_unavailable"]; language == "c++" && why != "" {
			// the host C backend runs C without a C++ compiler, and says why it has none
			reasons = append(reasons, fmt.Sprintf("%s: %s", b.Name(), why))
			if name != "" {
				return "", 0, device.Info{}, &DeviceError{Device: name, Unavailable: true, msg: ": " + reasons[0]}
			}
		} else {
			return b.Name(), index, devs[index], nil
		}
		if name != "" { // the device named is at fault, not the spec's language
			return "", 0, device.Info{}, &DeviceError{Device: name, msg: ": " + reasons[0]}
		}
	}
	return "", 0, device.Info{}, fmt.Errorf("no device can run this %s kernel:\n  %s", language, strings.Join(reasons, "\n  "))
}

// nounCount is n with noun, in the plural unless n is 1.
func nounCount(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
