package device

import (
	"context"
	"fmt"
	"time"
)

// Step is one launch of a sequence: a compiled kernel of the device, its geometry and its
// arguments.
type Step struct {
	Kernel Kernel
	Launch Launch
	Args   []Arg
}

// Sequencer is a Device that runs a sequence of launches back to back, without waiting
// between them, and times the sequence with its own clock from the first launch's start
// to the last one's end (OpenCL profiling events on an in-order queue, CUDA events on the
// default stream).
type Sequencer interface {
	// RunSequence launches the steps in order and waits for the last. A step that fails
	// gives a *StepError naming it.
	RunSequence(ctx context.Context, steps []Step) (time.Duration, error)
}

// StepError is the failure of one step of a sequence.
type StepError struct {
	Index int // the step's position in the sequence
	Err   error
}

// Error names the step by its position.
func (e *StepError) Error() string {
	return fmt.Sprintf("launch %d of the sequence: %v", e.Index, e.Err)
}

// Unwrap returns the step's failure.
func (e *StepError) Unwrap() error { return e.Err }

// RunSequence runs steps on dev as one timed run: through its Sequencer where it has one
// (OpenCL, CUDA), else one launch after another, each waited for, their times added up
// (host C, where a launch is a function call timed by a monotonic clock, and the time
// between two calls is a return and a call).
func RunSequence(ctx context.Context, dev Device, steps []Step) (time.Duration, error) {
	if sq, ok := dev.(Sequencer); ok {
		return sq.RunSequence(ctx, steps)
	}
	var total time.Duration
	for i, st := range steps {
		d, err := st.Kernel.Run(ctx, st.Launch, st.Args)
		if err != nil {
			return 0, &StepError{Index: i, Err: err}
		}
		total += d
	}
	return total, nil
}
