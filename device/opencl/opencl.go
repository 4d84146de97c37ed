// Package opencl runs kernels through OpenCL. It loads the OpenCL ICD loader
// (libOpenCL.so.1) at run time with purego, so ktune builds with CGO_ENABLED=0 and starts
// on machines without OpenCL, where Devices reports device.ErrUnavailable and what to
// install. Set KTUNE_OPENCL_LIBRARY to load another library.
//
// Kernels are timed with the command queue's profiling events. Launches that would break a
// device or kernel limit (work-group size, work-item sizes, local memory) are refused with
// a *device.LimitError before anything is enqueued.
//
// As for every device, an opened OpenCL device and everything it returns must be used from
// one goroutine locked to its OS thread (runtime.LockOSThread); the backend does no locking.
package opencl

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"unsafe"

	"github.com/ktune/ktune/device"
)

// Name is the backend's name in the device registry.
const Name = "opencl"

func init() { device.Register(Backend{}) }

// Backend is the OpenCL backend, registered with the device package as Name.
type Backend struct{}

// Name returns "opencl".
func (Backend) Name() string { return Name }

// Languages returns the one language OpenCL compiles: "opencl".
func (Backend) Languages() []string { return []string{"opencl"} }

// Devices lists every device of every platform. Platforms are ordered by name, vendor and
// version, so indices do not depend on the order the ICD loader finds its vendor files;
// devices keep their platform's order.
func (Backend) Devices() ([]device.Info, error) {
	cl, err := library()
	if err != nil {
		return nil, err
	}
	found, err := enumerate(cl)
	if err != nil {
		return nil, err
	}
	infos := make([]device.Info, len(found))
	for i, f := range found {
		infos[i] = f.info
	}
	return infos, nil
}

// Open creates a context and a profiling command queue on the device with the given index
// in Devices' list.
func (Backend) Open(ctx context.Context, index int) (device.Device, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	cl, err := library()
	if err != nil {
		return nil, err
	}
	found, err := enumerate(cl)
	if err != nil {
		return nil, err
	}
	if index < 0 || index >= len(found) {
		return nil, fmt.Errorf("opencl: no device %d: there are %d", index, len(found))
	}
	d, err := openDevice(cl, found[index])
	if err != nil {
		return nil, err // not a typed nil in the interface
	}
	return d, nil
}

// located is a device found by enumerate.
type located struct {
	platform, device uintptr
	info             device.Info
}

// enumerate lists the devices of all platforms in a stable order. A platform that fails
// is skipped; only when no device is left does enumerate fail, giving the reasons.
// enumerateMu serialises device discovery: PoCL's device initialisation races when two
// goroutines list devices at once (one of them then sees no device).
var enumerateMu sync.Mutex

func enumerate(cl *api) ([]located, error) {
	enumerateMu.Lock()
	defer enumerateMu.Unlock()
	platforms, err := platformIDs(cl)
	if err != nil {
		return nil, err
	}
	type platform struct {
		id                    uintptr
		name, vendor, version string
	}
	ps := make([]platform, 0, len(platforms))
	for _, id := range platforms {
		get := cl.platformInfo(id)
		p := platform{id: id}
		p.name, _ = infoString(get, clPlatformName)
		p.vendor, _ = infoString(get, clPlatformVendor)
		p.version, _ = infoString(get, clPlatformVersion)
		ps = append(ps, p)
	}
	slices.SortStableFunc(ps, func(a, b platform) int {
		return cmp.Or(cmp.Compare(a.name, b.name), cmp.Compare(a.vendor, b.vendor), cmp.Compare(a.version, b.version))
	})

	var out []located
	var problems []string
	for _, p := range ps {
		ids, err := deviceIDs(cl, p.id)
		if err != nil {
			problems = append(problems, fmt.Sprintf("platform %q: %v", p.name, err))
			continue
		}
		for _, id := range ids {
			info, err := deviceInfo(cl, id)
			if err != nil {
				problems = append(problems, fmt.Sprintf("platform %q: device info: %v", p.name, err))
				continue
			}
			info.Index = len(out)
			info.Platform = p.name
			info.Extra["platform_vendor"] = p.vendor
			info.Extra["platform_version"] = p.version
			if dir := cacheDir(p.name); dir != "" {
				info.Extra["cache_dir"] = dir
			}
			out = append(out, located{platform: p.id, device: id, info: info})
		}
	}
	if len(out) == 0 {
		why := "no OpenCL device found"
		if len(problems) > 0 {
			why += " (" + strings.Join(problems, "; ") + ")"
		}
		return nil, fmt.Errorf("opencl %w: %s: install a driver, e.g. apt-get install pocl-opencl-icd", device.ErrUnavailable, why)
	}
	return out, nil
}

func platformIDs(cl *api) ([]uintptr, error) {
	var n uint32
	st := cl.GetPlatformIDs(0, nil, &n)
	if Status(st) == statusPlatformNotFound || (st == 0 && n == 0) {
		return nil, fmt.Errorf("opencl %w: the OpenCL loader found no platform: install a driver (ICD), e.g. apt-get install pocl-opencl-icd", device.ErrUnavailable)
	}
	if err := check("clGetPlatformIDs", st); err != nil {
		return nil, fmt.Errorf("opencl %w: %v", device.ErrUnavailable, err)
	}
	ids := make([]uintptr, n)
	if err := check("clGetPlatformIDs", cl.GetPlatformIDs(n, unsafe.Pointer(&ids[0]), &n)); err != nil {
		return nil, fmt.Errorf("opencl %w: %v", device.ErrUnavailable, err)
	}
	return ids[:n], nil
}

func deviceIDs(cl *api, platform uintptr) ([]uintptr, error) {
	var n uint32
	st := cl.GetDeviceIDs(platform, clDeviceTypeAll, 0, nil, &n)
	if Status(st) == statusDeviceNotFound || (st == 0 && n == 0) {
		return nil, nil
	}
	if err := check("clGetDeviceIDs", st); err != nil {
		return nil, err
	}
	ids := make([]uintptr, n)
	if err := check("clGetDeviceIDs", cl.GetDeviceIDs(platform, clDeviceTypeAll, n, unsafe.Pointer(&ids[0]), &n)); err != nil {
		return nil, err
	}
	return ids[:n], nil
}

// deviceInfo queries a device's description and limits.
func deviceInfo(cl *api, id uintptr) (device.Info, error) {
	get := cl.deviceInfo(id)
	info := device.Info{Backend: Name, Extra: map[string]string{}}
	var errs []error
	str := func(param uint32) string {
		s, err := infoString(get, param)
		errs = append(errs, err)
		return s
	}
	u32 := func(param uint32) uint32 {
		v, err := infoValue[uint32](get, param)
		errs = append(errs, err)
		return v
	}
	u64 := func(param uint32) uint64 {
		v, err := infoValue[uint64](get, param)
		errs = append(errs, err)
		return v
	}
	size := func(param uint32) uintptr {
		v, err := infoValue[uintptr](get, param)
		errs = append(errs, err)
		return v
	}

	info.Name = strings.TrimSpace(str(clDeviceName))
	info.Vendor = strings.TrimSpace(str(clDeviceVendor))
	info.Version = str(clDeviceVersion)
	info.Driver = str(clDriverVersion)
	info.Type = deviceType(u64(clDeviceType))
	info.ComputeUnits = int(u32(clDeviceMaxComputeUnits))
	info.ClockMHz = int(u32(clDeviceMaxClockFrequency))
	info.MaxBlockSize = int(size(clDeviceMaxWorkGroupSize))
	sizes, err := infoSlice[uintptr](get, clDeviceMaxWorkItemSizes)
	errs = append(errs, err)
	for i := range min(len(sizes), 3) {
		info.MaxBlockDims[i] = int(sizes[i])
	}
	info.LocalMemBytes = int64(u64(clDeviceLocalMemSize))
	info.GlobalMemBytes = int64(u64(clDeviceGlobalMemSize))
	info.MaxAllocBytes = int64(u64(clDeviceMaxMemAllocSize))
	if err := errors.Join(errs...); err != nil {
		return info, err
	}
	// what the device says of the precisions: a peak of one it lacks is no peak to give
	ext, _ := infoString(get, clDeviceExtensions)
	fp, _ := infoValue[uint64](get, clDeviceDoubleFPConfig)
	info.Peak = peakOf(info, precisions{
		fp64: fp != 0 || slices.Contains(strings.Fields(ext), "cl_khr_fp64"),
		fp16: slices.Contains(strings.Fields(ext), "cl_khr_fp16"),
	})

	// Informative extras: a failure here leaves the entry out.
	if v, err := infoString(get, clDeviceOpenCLCVersion); err == nil {
		info.Extra["opencl_c_version"] = v
	}
	if v, err := infoValue[uint32](get, clDeviceLocalMemType); err == nil {
		// "global" local memory is emulated in device memory (CPUs, some GPUs): tiling
		// through it gains little.
		switch v {
		case clLocal:
			info.Extra["local_mem_type"] = "local"
		case clGlobal:
			info.Extra["local_mem_type"] = "global"
		}
	}
	if v, err := infoValue[uint64](get, clDeviceMaxConstantBufferSize); err == nil && v > 0 {
		info.Extra["max_constant_bytes"] = fmt.Sprint(v)
	}
	if v, err := infoValue[uint32](get, clDeviceMaxConstantArgs); err == nil && v > 0 {
		info.Extra["max_constant_args"] = fmt.Sprint(v)
	}
	if v, err := infoValue[uintptr](get, clDeviceProfilingTimerResolution); err == nil {
		info.Extra["timer_resolution_ns"] = fmt.Sprint(v)
	}
	return info, nil
}

// deviceType names the kind of device in Info's words.
func deviceType(t uint64) string {
	switch {
	case t&clDeviceTypeGPU != 0:
		return "gpu"
	case t&clDeviceTypeCPU != 0:
		return "cpu"
	case t&clDeviceTypeAccelerator != 0:
		return "accelerator"
	case t&clDeviceTypeCustom != 0:
		return "custom"
	}
	return ""
}

// cacheDir is the folder where the platform named name keeps the kernels it compiles, ""
// where that is not known. PoCL writes every build there, and dies (LLVM's "IO failure on
// output stream: No space left on device") when it is full: a message about that names it.
func cacheDir(name string) string {
	if name != "Portable Computing Language" {
		return ""
	}
	// PoCL's own choice: $POCL_CACHE_DIR, else pocl/kcache under $XDG_CACHE_HOME, else
	// under ~/.cache.
	if d := os.Getenv("POCL_CACHE_DIR"); d != "" {
		return d
	}
	if d := os.Getenv("XDG_CACHE_HOME"); d != "" {
		return filepath.Join(d, "pocl", "kcache")
	}
	if h := os.Getenv("HOME"); h != "" {
		return filepath.Join(h, ".cache", "pocl", "kcache")
	}
	return ""
}
