package tuner

import (
	"errors"
	"fmt"
	"testing"

	"github.com/ktune/ktune/device"
	"github.com/ktune/ktune/worker"
)

// A runtime that died of a full disk does not say where it wrote: an error of the
// machine names the folder where the device keeps what it compiles (PoCL's cache), once,
// and other errors are left alone.
func TestAnErrorOfTheMachineNamesTheDevicesCacheFolder(t *testing.T) {
	pocl := device.Info{Backend: "opencl", Extra: map[string]string{"cache_dir": "/home/u/.cache/pocl/kcache"}}
	machine := fmt.Errorf("evaluate x=1: %w", worker.ErrEnvironment)
	cases := []struct {
		name string
		err  error
		info device.Info
		want string
	}{
		{"named", machine, pocl, machine.Error() + " (the opencl device writes what it compiles in /home/u/.cache/pocl/kcache)"},
		{"named already", fmt.Errorf("/home/u/.cache/pocl/kcache/x: %w", worker.ErrEnvironment), pocl, "/home/u/.cache/pocl/kcache/x: " + worker.ErrEnvironment.Error()},
		{"no folder known", machine, device.Info{Backend: "cuda"}, machine.Error()},
		{"not the machine's", errors.New("spec broken"), pocl, "spec broken"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := machineFault(c.err, c.info)
			if got.Error() != c.want || !errors.Is(got, c.err) {
				t.Errorf("machineFault = %q, want %q wrapping the error", got, c.want)
			}
		})
	}
}
