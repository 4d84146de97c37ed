//go:build linux

package hostc

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"

	"github.com/ktune/ktune/device"

	"github.com/ktune/ktune/internal/sysmem"
)

// Name is the backend's name in the device registry.
const Name = "c"

func init() { device.Register(&backend{}) }

// backend is the host C backend: one device, the host CPU.
type backend struct {
	mu     sync.Mutex
	probed map[string]error // outcome of the end-to-end probe by toolchain and cache directory
}

func (*backend) Name() string        { return Name }
func (*backend) Languages() []string { return []string{"c", "c++"} }

// Devices lists the host CPU when a C compiler builds a shared object that this process
// can load and call; otherwise it says what is missing.
func (b *backend) Devices() ([]device.Info, error) {
	d, err := b.open(context.Background())
	if err != nil {
		return nil, err
	}
	return []device.Info{d.info}, nil
}

// Open opens the host CPU, the only device, index 0.
func (b *backend) Open(ctx context.Context, index int) (device.Device, error) {
	if index != 0 {
		return nil, fmt.Errorf("host C backend: no device %d; the host CPU is device 0", index)
	}
	return b.open(ctx)
}

func (b *backend) open(ctx context.Context) (*hostDevice, error) {
	tc, err := resolveToolchain("c")
	if err != nil {
		return nil, fmt.Errorf("%w: %v", device.ErrUnavailable, err)
	}
	// C++ kernels need a C++ compiler besides; C ones do not, so its absence is said
	// when a C++ kernel is compiled (and in the device's description), not here.
	cxx, cxxErr := resolveToolchain("c++")
	dir, err := CacheDir()
	if err != nil {
		return nil, fmt.Errorf("%w: %v", device.ErrUnavailable, err)
	}
	cache, err := openCache(dir)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", device.ErrUnavailable, err)
	}
	d := newHostDevice(tc, cxx, cxxErr, cache)
	if err := b.probe(ctx, d); err != nil {
		return nil, err
	}
	return d, nil
}

// probe compiles, loads and calls a trivial kernel once per toolchain and cache
// directory, so that a backend listed as available can run kernels: a compiler without
// a C library, a cache directory that cannot be written, or a binary that cannot dlopen
// all show here.
func (b *backend) probe(ctx context.Context, d *hostDevice) error {
	id := strings.Join(d.tc.cc, " ") + "\x00" + d.tc.version + "\x00" + d.cache.dir
	b.mu.Lock()
	defer b.mu.Unlock()
	if err, ok := b.probed[id]; ok {
		return err
	}
	err := probeDevice(ctx, d)
	var env *device.EnvironmentError
	switch {
	case errors.As(err, &env):
		// a full or unwritable cache folder: not the
		// compiler's fault, and maybe gone by the next probe
		err = fmt.Errorf("%w: %v", device.ErrUnavailable, err)
	case err != nil:
		err = fmt.Errorf("%w: the C compiler %s cannot build kernels this process can run: %v", device.ErrUnavailable, d.tc.cc[0], err)
	}
	// a cancelled probe says nothing about the toolchain, nor one the machine failed
	if ctx.Err() == nil && env == nil {
		if b.probed == nil {
			b.probed = map[string]error{}
		}
		b.probed[id] = err
	}
	return err
}

const probeSource = "void ktune_probe(int *out, int v) { *out = v + 1; }\n"

func probeDevice(ctx context.Context, d *hostDevice) error {
	k, err := d.Compile(ctx, device.Source{
		Code: probeSource, Kernel: "ktune_probe", Language: "c",
		Params: []device.Param{{Name: "out", Type: "int32", Pointer: true}, {Name: "v", Type: "int32"}},
	})
	if err != nil {
		return err
	}
	defer k.Release()
	buf, err := d.Alloc(4)
	if err != nil {
		return err
	}
	defer buf.Release()
	if _, err := k.Run(ctx, device.Launch{}, []device.Arg{{Buffer: buf}, {Scalar: binary.LittleEndian.AppendUint32(nil, 41)}}); err != nil {
		return err
	}
	var out [4]byte
	if err := buf.Read(out[:]); err != nil {
		return err
	}
	if v := binary.LittleEndian.Uint32(out[:]); v != 42 {
		return fmt.Errorf("probe kernel returned %d, want 42", v)
	}
	return nil
}

// hostInfo describes the host CPU, and the compilers: C's, and C++'s (cxx), or why there
// is none (cxxErr).
func hostInfo(tc, cxx *toolchain, cxxErr error, cacheDir string) device.Info {
	cpu := cpuinfo()
	name := cpu["model name"]
	if name == "" {
		name = "host CPU"
	}
	mem := sysmem.Total()
	// As PoCL does, a process whose data is limited (a ktune worker's memory limit, ulimit
	// -d) has no more memory than that for buffers: a larger one is a device limit, not
	// a failed allocation.
	if l := dataLimit(); l > 0 && (mem <= 0 || l < mem) {
		mem = l
	}
	info := device.Info{
		Backend:        Name,
		Index:          0,
		Name:           name,
		Vendor:         cpu["vendor_id"],
		Platform:       "host",
		Version:        tc.versionLine(),
		Driver:         tc.cc[0],
		Type:           "cpu",
		ComputeUnits:   runtime.NumCPU(),
		GlobalMemBytes: mem,
		MaxAllocBytes:  mem,
		Extra: map[string]string{
			"compiler":  strings.Join(tc.cc, " "),
			"cache_dir": cacheDir,
		},
	}
	if cxx != nil {
		info.Extra["cxx_compiler"] = strings.Join(cxx.cc, " ")
		info.Extra["cxx_version"] = cxx.versionLine()
	} else if cxxErr != nil {
		info.Extra["cxx_unavailable"] = cxxErr.Error()
	}
	return info
}
