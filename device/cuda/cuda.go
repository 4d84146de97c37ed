// Package cuda runs CUDA kernels on NVIDIA GPUs. It loads the driver API (libcuda.so.1),
// the run-time compiler NVRTC (libnvrtc.so.13, .12 or .11.x) and, for power and energy,
// NVML (libnvidia-ml.so.1) at run time with purego, so ktune builds with CGO_ENABLED=0 and
// needs neither CUDA headers nor libraries to build; where the driver or NVRTC is missing,
// Devices reports device.ErrUnavailable with what to install. KTUNE_CUDA_LIBRARY,
// KTUNE_NVRTC_LIBRARY and KTUNE_NVML_LIBRARY override the libraries loaded.
//
// Kernels are compiled by NVRTC for the device's own architecture (-arch=sm_XY, to a
// CUBIN) unless the options name one; a templated kernel is named with its arguments
// (name<float, 4>) and found through NVRTC's name expressions. Launches are timed with
// CUDA events on the default stream. A launch that breaks a device or kernel limit (block
// size, the kernel's register-limited maximum block, shared memory) is refused with a
// *device.LimitError before anything runs; a kernel that faults (illegal address, device
// assert) poisons the context, and its error matches device.ErrDeviceLost.
//
// As for every device, an opened CUDA device and everything it returns must be used from
// one goroutine locked to its OS thread (runtime.LockOSThread): the device's context is
// made current on that thread.
package cuda

import (
	"context"
	"fmt"
	"strings"

	"github.com/ktune/ktune/device"
)

// Name is the backend's name in the device registry.
const Name = "cuda"

func init() { device.Register(Backend{}) }

// Backend is the CUDA backend, registered with the device package as Name.
type Backend struct{}

// Name returns "cuda".
func (Backend) Name() string { return Name }

// Languages returns the one language the backend compiles: "cuda".
func (Backend) Languages() []string { return []string{"cuda"} }

// Devices lists the CUDA devices in the driver's order (CUDA_VISIBLE_DEVICES applies). The
// backend is unavailable when the driver, a device or NVRTC is missing.
func (Backend) Devices() ([]device.Info, error) {
	cu, err := loadDriver()
	if err != nil {
		return nil, err
	}
	infos, err := enumerate(cu)
	if err != nil {
		return nil, err
	}
	rtc, err := loadNVRTC()
	if err != nil {
		names := make([]string, len(infos))
		for i, in := range infos {
			names[i] = in.Name
		}
		return nil, fmt.Errorf("%w (the driver sees %s, but kernels cannot be compiled without NVRTC)", err, strings.Join(names, ", "))
	}
	for i := range infos {
		describe(&infos[i], rtc)
	}
	return infos, nil
}

// describe adds what the backend will do with the device: NVRTC's version, the target it
// compiles for (or why it cannot), and why NVML cannot measure the device, if it cannot.
func describe(info *device.Info, rtc *nvrtcAPI) {
	info.Extra["nvrtc"] = rtc.version()
	if rtc.include != "" {
		info.Extra["nvrtc_include"] = rtc.include
	}
	if cc, err := computeCapability(info.Extra["compute_capability"]); err == nil {
		if t, err := chooseArch(cc, rtc.supportedArchs()); err == nil {
			if rtc.GetCUBIN == nil {
				t = target{option: fmt.Sprintf("-arch=compute_%d", cc)}
			}
			info.Extra["target"] = strings.TrimPrefix(t.option, "-arch=")
		} else {
			info.Extra["target"] = "none: " + err.Error()
		}
	}
	if _, err := newPowerObserver(info.Extra["pci_bus_id"]); err != nil {
		info.Extra["nvml"] = err.Error()
	}
}

// Open makes the primary context of the device with the given index in Devices' list
// current on the calling thread.
func (Backend) Open(ctx context.Context, index int) (device.Device, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	cu, err := loadDriver()
	if err != nil {
		return nil, err
	}
	rtc, err := loadNVRTC()
	if err != nil {
		return nil, err
	}
	infos, err := enumerate(cu)
	if err != nil {
		return nil, err
	}
	if index < 0 || index >= len(infos) {
		return nil, fmt.Errorf("cuda: no device %d: there are %d", index, len(infos))
	}
	describe(&infos[index], rtc)
	d, err := openDevice(cu, rtc, infos[index])
	if err != nil {
		return nil, err // not a typed nil in the interface
	}
	return d, nil
}

// Device attributes read (cuda.h, CUdevice_attribute).
const (
	attrMaxThreadsPerBlock     = 1
	attrMaxBlockDimX           = 2
	attrMaxGridDimX            = 5
	attrMaxSharedPerBlock      = 8
	attrTotalConstantMemory    = 9
	attrWarpSize               = 10
	attrMaxRegistersPerBlock   = 12
	attrClockRate              = 13 // kHz
	attrMultiprocessorCount    = 16
	attrMemoryClockRate        = 36 // kHz
	attrGlobalMemoryBusWidth   = 37
	attrL2CacheSize            = 38
	attrMaxThreadsPerSM        = 39
	attrComputeMajor           = 75
	attrComputeMinor           = 76
	attrMaxSharedPerSM         = 81
	attrMaxRegistersPerSM      = 82
	attrMaxSharedPerBlockOptin = 97
)

// enumerate describes every device the driver sees.
func enumerate(cu *driverAPI) ([]device.Info, error) {
	var n int32
	if err := cu.check("cuDeviceGetCount", Result(cu.DeviceGetCount(&n))); err != nil {
		return nil, fmt.Errorf("cuda %w: %v", device.ErrUnavailable, err)
	}
	if n == 0 {
		return nil, fmt.Errorf("cuda %w: the NVIDIA driver sees no CUDA device (check CUDA_VISIBLE_DEVICES and nvidia-smi)", device.ErrUnavailable)
	}
	var version int32
	cu.DriverGetVersion(&version)
	out := make([]device.Info, 0, n)
	for i := range n {
		info, err := deviceInfo(cu, i)
		if err != nil {
			return nil, fmt.Errorf("cuda %w: device %d: %v", device.ErrUnavailable, i, err)
		}
		info.Index = int(i)
		info.Driver = fmt.Sprintf("CUDA %d.%d", version/1000, version%1000/10)
		out = append(out, info)
	}
	return out, nil
}

// deviceInfo queries one device's description and limits.
func deviceInfo(cu *driverAPI, ordinal int32) (device.Info, error) {
	var dev int32
	if err := cu.check("cuDeviceGet", Result(cu.DeviceGet(&dev, ordinal))); err != nil {
		return device.Info{}, err
	}
	info := device.Info{Backend: Name, Vendor: "NVIDIA", Type: "gpu", Extra: map[string]string{}}
	name := make([]byte, 256)
	if err := cu.check("cuDeviceGetName", Result(cu.DeviceGetName(&name[0], int32(len(name)), dev))); err != nil {
		return info, err
	}
	info.Name = strings.TrimSpace(nulTerminated(name))
	var firstErr error
	attr := func(a int32) int {
		var v int32
		if err := cu.check(fmt.Sprintf("cuDeviceGetAttribute(%d)", a), Result(cu.DeviceGetAttribute(&v, a, dev))); err != nil {
			if firstErr == nil {
				firstErr = err
			}
			return 0
		}
		return int(v)
	}
	major, minor := attr(attrComputeMajor), attr(attrComputeMinor)
	info.Version = fmt.Sprintf("compute capability %d.%d", major, minor)
	info.ComputeUnits = attr(attrMultiprocessorCount)
	info.MaxBlockSize = attr(attrMaxThreadsPerBlock)
	for d := range 3 {
		info.MaxBlockDims[d] = attr(attrMaxBlockDimX + int32(d))
	}
	info.RegistersPerBlock = attr(attrMaxRegistersPerBlock)
	shared := attr(attrMaxSharedPerBlock)
	if firstErr != nil {
		return info, firstErr
	}
	// Dynamic shared memory beyond the default per-block limit is granted on request
	// (cuFuncSetAttribute), which Run does: the opt-in maximum is the real limit.
	info.LocalMemBytes = int64(max(shared, optional(cu, attrMaxSharedPerBlockOptin, dev)))
	var total uintptr
	if err := cu.check("cuDeviceTotalMem", Result(cu.DeviceTotalMem(&total, dev))); err != nil {
		return info, err
	}
	info.GlobalMemBytes, info.MaxAllocBytes = int64(total), int64(total)
	// Informative attributes: one the driver no longer reports (the clock rates are
	// deprecated in CUDA 12) is left out.
	if v := optional(cu, attrClockRate, dev); v > 0 {
		info.ClockMHz = v / 1000
	}
	extra := func(key string, a int32, scale int) {
		if v := optional(cu, a, dev); v > 0 {
			info.Extra[key] = fmt.Sprint(v / scale)
		}
	}
	info.Extra["compute_capability"] = fmt.Sprintf("%d.%d", major, minor)
	info.Extra["arch"] = fmt.Sprintf("sm_%d%d", major, minor)
	info.Extra["shared_mem_per_block_default"] = fmt.Sprint(shared)
	info.Extra["max_grid_dims"] = fmt.Sprintf("%d,%d,%d", optional(cu, attrMaxGridDimX, dev), optional(cu, attrMaxGridDimX+1, dev), optional(cu, attrMaxGridDimX+2, dev))
	extra("warp_size", attrWarpSize, 1)
	extra("constant_mem_bytes", attrTotalConstantMemory, 1)
	extra("l2_cache_bytes", attrL2CacheSize, 1)
	extra("memory_clock_mhz", attrMemoryClockRate, 1000)
	extra("memory_bus_bits", attrGlobalMemoryBusWidth, 1)
	extra("max_threads_per_sm", attrMaxThreadsPerSM, 1)
	extra("shared_mem_per_sm", attrMaxSharedPerSM, 1)
	extra("registers_per_sm", attrMaxRegistersPerSM, 1)
	info.Peak = peakOf(major, minor, info.ComputeUnits, optional(cu, attrClockRate, dev),
		optional(cu, attrMemoryClockRate, dev), optional(cu, attrGlobalMemoryBusWidth, dev))
	bus := make([]byte, 64)
	if cu.DeviceGetPCIBusID(&bus[0], int32(len(bus)), dev) == 0 {
		info.Extra["pci_bus_id"] = nulTerminated(bus)
	}
	return info, nil
}

// optional reads a device attribute, 0 when the driver does not report it.
func optional(cu *driverAPI, a int32, dev int32) int {
	var v int32
	if cu.DeviceGetAttribute(&v, a, dev) != 0 {
		return 0
	}
	return int(v)
}
