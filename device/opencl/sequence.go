package opencl

import (
	"context"
	"errors"
	"time"

	"github.com/ktune/ktune/device"
)

var _ device.Sequencer = (*clDevice)(nil)

// RunSequence implements device.Sequencer: the steps are enqueued back to back on the
// device's in-order queue, and the sequence is timed by profiling events from the first
// launch's start to the last one's end, which takes in the device's own gaps between the
// launches but not the host's waits. Each launch is waited for in turn after all are
// enqueued, so that a failure names its step. A kernel's first launch has its arrays'
// canaries checked, as Run does.
func (d *clDevice) RunSequence(ctx context.Context, steps []device.Step) (time.Duration, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	if len(steps) == 0 {
		return 0, nil
	}
	events := make([]uintptr, 0, len(steps))
	defer func() {
		for _, ev := range events {
			d.cl.ReleaseEvent(ev)
		}
	}()
	fail := func(i int, err error) (time.Duration, error) {
		// what is enqueued still runs, and reads the buffers: it ends before they change
		d.cl.Finish(d.queue)
		return 0, &device.StepError{Index: i, Err: err}
	}
	kernels := make([]*kernel, len(steps))
	for i, st := range steps {
		k, ok := st.Kernel.(*kernel)
		if !ok || k.dev != d {
			return 0, &device.StepError{Index: i, Err: errors.New("opencl: the kernel is not one of this device's")}
		}
		kernels[i] = k
	}
	for i, st := range steps {
		ev, err := kernels[i].enqueue(st.Launch, st.Args)
		if err != nil {
			return fail(i, err)
		}
		events = append(events, ev)
	}
	for i, ev := range events {
		if err := kernels[i].wait(ev); err != nil {
			return fail(i, err)
		}
	}
	start, _, err := d.profile(events[0])
	if err != nil {
		return fail(0, err)
	}
	_, end, err := d.profile(events[len(events)-1])
	if err != nil {
		return fail(len(events)-1, err)
	}
	if end < start {
		end = start
	}
	for i, k := range kernels {
		if !k.launched {
			k.launched = true
			if err := k.CheckOverruns(steps[i].Args); err != nil {
				return 0, &device.StepError{Index: i, Err: err}
			}
		}
	}
	return time.Duration(end - start), nil
}
