package cuda

import (
	"context"
	"errors"
	"time"

	"github.com/ktune/ktune/device"
)

var _ device.Sequencer = (*cuDevice)(nil)

// RunSequence implements device.Sequencer: the steps are launched back to back on the
// default stream between the device's two events, the start recorded before the first
// launch and the end after the last, so that the time takes in the gaps between the
// launches on the device, as OpenCL's profiling events do, rather than adding up each
// launch's own time. A step the driver refuses, or whose checks fail, names its step; a
// fault shows when the end is waited for, and no step can be named for it. A kernel's
// first launch has its arrays' canaries checked after the sequence, as Run does.
func (d *cuDevice) RunSequence(ctx context.Context, steps []device.Step) (time.Duration, error) {
	if err := d.usable(); err != nil {
		return 0, err
	}
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	if len(steps) == 0 {
		return 0, nil
	}
	kernels := make([]*kernel, len(steps))
	for i, st := range steps {
		k, ok := st.Kernel.(*kernel)
		switch {
		case !ok || k.dev != d:
			return 0, &device.StepError{Index: i, Err: errors.New("cuda: the kernel is not one of this device's")}
		case k.mod == 0:
			return 0, &device.StepError{Index: i, Err: errClosed}
		}
		kernels[i] = k
	}
	cu := d.cu
	// What is launched before a failure still runs, and reads the arguments: it ends
	// before they change.
	fail := func(i int, err error) (time.Duration, error) {
		if d.lost == nil {
			cu.CtxSynchronize()
		}
		return 0, &device.StepError{Index: i, Err: err}
	}
	for i, st := range steps {
		k := kernels[i]
		grid, block, err := k.prepare(st.Launch, st.Args)
		if err != nil {
			return fail(i, err)
		}
		if i == 0 {
			if err := cu.check("cuEventRecord", cu.eventRecord(d.start)); err != nil {
				return fail(i, d.failed(&device.RuntimeError{Op: "launch", Err: err}))
			}
		}
		if err := k.launch(grid, block, st.Launch.SharedBytes); err != nil {
			return fail(i, err)
		}
	}
	last := kernels[len(kernels)-1]
	if err := cu.check("cuEventRecord", cu.eventRecord(d.end)); err != nil {
		return 0, d.failed(&device.RuntimeError{Op: "launch", Err: err})
	}
	if err := last.wait(ctx); err != nil {
		return 0, d.failed(err)
	}
	var ms float32
	if err := cu.check("cuEventElapsedTime", cu.eventElapsed(&ms, d.start, d.end)); err != nil {
		return 0, d.failed(&device.RuntimeError{Op: "profile", Err: err})
	}
	for i, k := range kernels {
		if !k.launched {
			k.launched = true
			if err := k.checkOverruns(steps[i].Args); err != nil {
				return 0, &device.StepError{Index: i, Err: err}
			}
		}
	}
	return time.Duration(float64(ms) * 1e6), nil
}
