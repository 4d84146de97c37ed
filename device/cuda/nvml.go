package cuda

import (
	"errors"
	"fmt"
	"time"
)

// NVML constants (nvml.h).
const (
	nvmlNotSupported = 3
	nvmlClockSM      = 1
	nvmlClockMem     = 2
)

// powerWindow is the least observation that energy and power are reported for. NVML's
// energy counter and power readings advance with the board's power sensor, every few
// milliseconds to tens of milliseconds depending on the GPU, so shorter stretches would
// read as zero or as one step.
const powerWindow = 200 * time.Millisecond

// powerObserver measures a GPU's energy and power through NVML while kernels run: the
// difference of the total-energy counter (Volta and later) over the observation, or where
// the GPU has no such counter the power reading at its end. It also reads the SM and
// memory clocks. It never changes a device setting.
type powerObserver struct {
	ml     *nvmlAPI
	dev    uintptr
	energy bool // the GPU has a total-energy counter
	t0     time.Time
	e0     uint64 // mJ

	changed    map[string]bool // settings Set changed, to reset
	powerLimit uint32          // the power limit before Set, mW
}

// newPowerObserver finds the NVML device with the CUDA device's PCI bus id.
func newPowerObserver(busID string) (*powerObserver, error) {
	if busID == "" {
		return nil, errors.New("no PCI bus id to find the device in NVML")
	}
	ml, err := loadNVML()
	if err != nil {
		return nil, err
	}
	o := &powerObserver{ml: ml, changed: map[string]bool{}}
	if r := ml.DeviceByPCIBusID(busID, &o.dev); r != 0 {
		return nil, fmt.Errorf("NVML does not know the device at %s: %s", busID, ml.ErrorString(r))
	}
	var mj uint64
	switch r := ml.DeviceTotalEnergy(o.dev, &mj); r {
	case 0:
		o.energy = true
	case nvmlNotSupported:
		var mw uint32
		if r := ml.DevicePowerUsage(o.dev, &mw); r != 0 {
			return nil, fmt.Errorf("NVML reads neither energy nor power of the device: %s", ml.ErrorString(r))
		}
	default:
		return nil, fmt.Errorf("NVML energy counter: %s", ml.ErrorString(r))
	}
	return o, nil
}

// Window is the least observation energy and power are reported for.
func (o *powerObserver) Window() time.Duration { return powerWindow }

// Begin starts an observation.
//
// The clock is read right after the energy counter, here and in End, so that the wall
// time and the energy cover the same stretch: a clock read before a slow NVML call (a
// loaded machine) counted energy over more time than it divided by.
func (o *powerObserver) Begin() error {
	if o.energy {
		if r := o.ml.DeviceTotalEnergy(o.dev, &o.e0); r != 0 {
			return fmt.Errorf("NVML energy counter: %s", o.ml.ErrorString(r))
		}
	}
	o.t0 = time.Now()
	return nil
}

// End ends the observation over runs kernel runs. It reports core_clock and memory_clock
// (MHz) and, when the observation lasted at least Window, energy (J per run, the idle gaps
// between runs included) and power (W, the mean over the observation).
func (o *powerObserver) End(runs int) (map[string]float64, error) {
	wall := time.Since(o.t0)
	out := map[string]float64{}
	var mhz uint32
	if o.ml.DeviceClockInfo(o.dev, nvmlClockSM, &mhz) == 0 {
		out["core_clock"] = float64(mhz)
	}
	if o.ml.DeviceClockInfo(o.dev, nvmlClockMem, &mhz) == 0 {
		out["memory_clock"] = float64(mhz)
	}
	if wall < powerWindow || runs <= 0 {
		return out, nil
	}
	var joules float64
	if o.energy {
		// Read only when it is used: an End that read it whatever the window cost every
		// evaluation one more read, about 3 ms on an H200 (16.0 against 12.5 ms per
		// evaluation of BenchmarkFrameworkOverhead/cuda).
		var e1 uint64
		if r := o.ml.DeviceTotalEnergy(o.dev, &e1); r != 0 {
			return out, fmt.Errorf("NVML energy counter: %s", o.ml.ErrorString(r))
		}
		wall = time.Since(o.t0) // the stretch the energy covers ends at its read
		joules = float64(e1-o.e0) / 1e3
	} else {
		var mw uint32
		if r := o.ml.DevicePowerUsage(o.dev, &mw); r != 0 {
			return out, fmt.Errorf("NVML power: %s", o.ml.ErrorString(r))
		}
		joules = float64(mw) / 1e3 * wall.Seconds()
	}
	out["energy"] = joules / float64(runs)
	out["power"] = joules / wall.Seconds()
	return out, nil
}

// Settings the device can change, by the names of Kernel Tuner's NVML observer.
const (
	settingGPUClock    = "nvml_gr_clock"  // locked graphics clock, MHz
	settingMemoryClock = "nvml_mem_clock" // locked memory clock, MHz
	settingPowerLimit  = "nvml_pwr_limit" // power limit, W
)

// nvmlNoPermission is NVML_ERROR_NO_PERMISSION.
const nvmlNoPermission = 4

// Settings lists the settings NVML can change on this device: none without NVML.
func (d *cuDevice) Settings() []string {
	o := d.observer
	if o == nil {
		return nil
	}
	var out []string
	if o.ml.SetGPULockedClocks != nil && o.ml.ResetGPULockedClocks != nil {
		out = append(out, settingGPUClock)
	}
	if o.ml.SetMemoryLockedClocks != nil && o.ml.ResetMemoryLockedClocks != nil {
		out = append(out, settingMemoryClock)
	}
	if o.ml.SetPowerLimit != nil {
		out = append(out, settingPowerLimit)
	}
	return out
}

// Set locks a clock to value MHz, or sets the power limit to value W. Changing them
// needs root (or an administrator's grant); NVML's refusal is returned as it is.
func (d *cuDevice) Set(name string, value float64) error {
	o := d.observer
	if o == nil {
		return fmt.Errorf("cuda: %s: NVML is not available (%s)", name, d.info.Extra["nvml"])
	}
	if !(value > 0 && value < 1e6) {
		return fmt.Errorf("cuda: %s: %v is not a valid setting", name, value)
	}
	ml, v := o.ml, uint32(value)
	var r int32
	switch name {
	case settingGPUClock:
		if ml.SetGPULockedClocks == nil {
			return fmt.Errorf("cuda: %s: this NVML cannot lock clocks", name)
		}
		o.changed[name] = true
		r = ml.SetGPULockedClocks(o.dev, v, v)
	case settingMemoryClock:
		if ml.SetMemoryLockedClocks == nil {
			return fmt.Errorf("cuda: %s: this NVML cannot lock memory clocks", name)
		}
		o.changed[name] = true
		r = ml.SetMemoryLockedClocks(o.dev, v, v)
	case settingPowerLimit:
		if ml.SetPowerLimit == nil {
			return fmt.Errorf("cuda: %s: this NVML cannot set the power limit", name)
		}
		if !o.changed[name] {
			var mw uint32
			if r := ml.DevicePowerLimit(o.dev, &mw); r != 0 {
				return fmt.Errorf("cuda: %s: reading the current power limit: %s", name, ml.ErrorString(r))
			}
			o.powerLimit = mw
			o.changed[name] = true
		}
		r = ml.SetPowerLimit(o.dev, v*1000)
	default:
		return fmt.Errorf("cuda: no device setting %q (the settings are %v)", name, d.Settings())
	}
	switch r {
	case 0:
		return nil
	case nvmlNoPermission:
		return fmt.Errorf("cuda: setting %s to %v needs root or an administrator's grant (NVML: %s); remove the parameter from the spec or run as root", name, value, ml.ErrorString(r))
	}
	return fmt.Errorf("cuda: setting %s to %v: NVML: %s", name, value, ml.ErrorString(r))
}

// ResetSettings unlocks the clocks and restores the power limit that Set changed.
func (d *cuDevice) ResetSettings() error {
	o := d.observer
	if o == nil {
		return nil
	}
	var errs []error
	check := func(what string, r int32) {
		if r != 0 {
			errs = append(errs, fmt.Errorf("cuda: resetting %s: NVML: %s", what, o.ml.ErrorString(r)))
		}
	}
	if o.changed[settingGPUClock] {
		check(settingGPUClock, o.ml.ResetGPULockedClocks(o.dev))
	}
	if o.changed[settingMemoryClock] {
		check(settingMemoryClock, o.ml.ResetMemoryLockedClocks(o.dev))
	}
	if o.changed[settingPowerLimit] {
		check(settingPowerLimit, o.ml.SetPowerLimit(o.dev, o.powerLimit))
	}
	clear(o.changed)
	return errors.Join(errs...)
}
