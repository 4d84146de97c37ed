package opencl

import (
	"errors"
	"testing"

	"github.com/ktune/ktune/device"
)

// These tests need no OpenCL runtime: they check the launch geometry and the limit checks
// that run before anything is enqueued.

func TestGeometryUsesGridTimesBlockAndTheDimensionsInUse(t *testing.T) {
	tests := []struct {
		name          string
		launch        device.Launch
		dims          int
		global, local [3]uintptr
	}{
		{"1D", device.Launch{Grid: device.Dim3{4, 1, 1}, Block: device.Dim3{64, 1, 1}}, 1, [3]uintptr{256, 1, 1}, [3]uintptr{64, 1, 1}},
		{"zeros count as one", device.Launch{Grid: device.Dim3{4}, Block: device.Dim3{64}}, 1, [3]uintptr{256, 1, 1}, [3]uintptr{64, 1, 1}},
		{"2D by grid", device.Launch{Grid: device.Dim3{2, 3, 1}, Block: device.Dim3{8, 1, 1}}, 2, [3]uintptr{16, 3, 1}, [3]uintptr{8, 1, 1}},
		{"3D by block", device.Launch{Grid: device.Dim3{1, 1, 1}, Block: device.Dim3{1, 1, 2}}, 3, [3]uintptr{1, 1, 2}, [3]uintptr{1, 1, 2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var k kernel
			dims, global, local, err := k.geometry(tt.launch)
			if err != nil {
				t.Fatal(err)
			}
			if dims != tt.dims || global != tt.global || local != tt.local {
				t.Errorf("geometry = %d %v %v, want %d %v %v", dims, global, local, tt.dims, tt.global, tt.local)
			}
		})
	}
	var k kernel
	if _, _, _, err := k.geometry(device.Launch{Grid: device.Dim3{-1}, Block: device.Dim3{1}}); err == nil {
		t.Error("negative grid accepted")
	}
}

func TestCheckLimitsRefusesLaunchesBeyondDeviceAndKernel(t *testing.T) {
	dev := &clDevice{info: device.Info{
		MaxBlockSize:  1024,
		MaxBlockDims:  [3]int{1024, 1024, 64},
		LocalMemBytes: 48 << 10,
	}}
	k := &kernel{dev: dev, name: "k", maxBlock: 256, localMem: 16 << 10}
	reqd := &kernel{dev: dev, name: "r", maxBlock: 1024, required: [3]int{16, 4, 1}}
	tests := []struct {
		name      string
		k         *kernel
		block     [3]uintptr
		args      []device.Arg
		wantLimit int64 // 0: the launch is allowed
	}{
		{"within every limit", k, [3]uintptr{256, 1, 1}, []device.Arg{{Local: 1024}}, 0},
		{"device work-group size", k, [3]uintptr{2048, 1, 1}, nil, 1024},
		{"device work-item size in z", k, [3]uintptr{1, 1, 128}, nil, 64},
		{"kernel work-group size", k, [3]uintptr{16, 32, 1}, nil, 256},
		{"local arguments plus static local memory", k, [3]uintptr{64, 1, 1}, []device.Arg{{Local: 32 << 10}, {Local: 1}}, 48 << 10},
		{"required work-group size met", reqd, [3]uintptr{16, 4, 1}, nil, 0},
		{"required work-group size missed", reqd, [3]uintptr{64, 1, 1}, nil, 64},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.k.checkLimits(tt.block, tt.args)
			if tt.wantLimit == 0 {
				if err != nil {
					t.Fatalf("checkLimits = %v, want nil", err)
				}
				return
			}
			var le *device.LimitError
			if !errors.As(err, &le) {
				t.Fatalf("checkLimits = %v, want a *device.LimitError", err)
			}
			if le.Limit != tt.wantLimit {
				t.Errorf("limit = %d, want %d (%s)", le.Limit, tt.wantLimit, le.What)
			}
		})
	}
}
