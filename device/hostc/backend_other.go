//go:build !linux

package hostc

import (
	"context"
	"fmt"
	"runtime"

	"github.com/ktune/ktune/device"
)

// Name is the backend's name in the device registry.
const Name = "c"

func init() { device.Register(backend{}) }

// backend reports the host C backend as unavailable where it is not implemented.
type backend struct{}

func (backend) Name() string        { return Name }
func (backend) Languages() []string { return []string{"c", "c++"} }

func (backend) Devices() ([]device.Info, error) { return nil, errOS }

func (backend) Open(context.Context, int) (device.Device, error) { return nil, errOS }

var errOS = fmt.Errorf("%w: the host C backend runs on Linux only, not %s", device.ErrUnavailable, runtime.GOOS)

// CacheDir returns the directory where compiled kernels are kept; the backend is not
// implemented on this system.
func CacheDir() (string, error) { return "", errOS }
