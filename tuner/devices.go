package tuner

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/ktune/ktune/device"
)

// A DeviceMismatchError is Tune's error for several devices (Options.Device with a comma)
// whose names differ: their timings would not be comparable within one run. Options.
// MixedDevices accepts them.
type DeviceMismatchError struct {
	Backend      string
	First, Other int    // the indices of the first device and of one that differs from it
	FirstName    string // their names, as 'ktune devices' lists them
	OtherName    string
}

// Error names both devices and the way to accept them.
func (e *DeviceMismatchError) Error() string {
	return fmt.Sprintf("devices %s:%d (%s) and %s:%d (%s) differ: one run's timings would not be comparable across them; tune on identical devices, or accept the difference (Options.MixedDevices, --mixed-devices)",
		e.Backend, e.First, e.FirstName, e.Backend, e.Other, e.OtherName)
}

// splitDevices splits Options.Device into the devices it names: one, or several of one
// backend separated by commas ("opencl:0,opencl:1", or "opencl:0,1" for short). A name
// without a comma is returned as it is, for pickDevice to judge.
func splitDevices(name string) ([]string, error) {
	if !strings.Contains(name, ",") {
		return []string{name}, nil
	}
	var backend string
	var names []string
	seen := map[string]bool{}
	for i, part := range strings.Split(name, ",") {
		part = strings.TrimSpace(part)
		b, idx, hasIdx := strings.Cut(part, ":")
		switch {
		case i == 0 && !hasIdx:
			return nil, &DeviceError{Device: name, msg: ": several devices are BACKEND:INDEX,BACKEND:INDEX... (e.g. opencl:0,opencl:1)"}
		case i == 0:
			backend = b
		case !hasIdx:
			idx, b = b, backend // "opencl:0,1": the first's backend
		}
		if b != backend {
			return nil, &DeviceError{Device: name, msg: fmt.Sprintf(": several devices must be of one backend (%s and %s)", backend, b)}
		}
		if n, err := strconv.Atoi(idx); err != nil || n < 0 {
			return nil, &DeviceError{Device: name, msg: fmt.Sprintf(": %q: the index must be a whole number, 0 or more (see 'ktune devices')", part)}
		}
		full := b + ":" + idx
		if seen[full] {
			return nil, &DeviceError{Device: name, msg: fmt.Sprintf(": %s is named twice", full)}
		}
		seen[full] = true
		names = append(names, full)
	}
	return names, nil
}

// pickDevices resolves Options.Device to its backend and its devices' indices and
// descriptions (pickDevice), refusing devices whose names differ unless mixed.
func pickDevices(name, language string, mixed bool) (string, []int, []device.Info, error) {
	names, err := splitDevices(name)
	if err != nil {
		return "", nil, nil, err
	}
	var backend string
	var indices []int
	var infos []device.Info
	for _, n := range names {
		b, index, info, err := pickDevice(n, language)
		if err != nil {
			return "", nil, nil, err
		}
		backend = b
		indices = append(indices, index)
		infos = append(infos, info)
	}
	if err := sameDevices(backend, indices, infos); err != nil && !mixed {
		return "", nil, nil, err
	}
	return backend, indices, infos, nil
}

// sameDevices is a *DeviceMismatchError when the devices' names differ.
func sameDevices(backend string, indices []int, infos []device.Info) error {
	for i := 1; i < len(infos); i++ {
		if infos[i].Name != infos[0].Name {
			return &DeviceMismatchError{Backend: backend, First: indices[0], Other: indices[i], FirstName: infos[0].Name, OtherName: infos[i].Name}
		}
	}
	return nil
}
