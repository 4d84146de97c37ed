package opencl

import (
	"fmt"
	"unsafe"

	"github.com/ktune/ktune/device"
)

// buffer is a cl_mem of the device's context: size bytes of data, then slack bytes of
// canary.
//
// A kernel that writes past the end of an array must not go unnoticed: an OpenCL runtime
// checks nothing, and the write lands in memory of the runtime's (PoCL: the host heap) or
// of another buffer, while the configuration "verifies". The spec's length for the array
// is wrong, or the kernel is. So each buffer has a tail of canary bytes on the device,
// which the first launch of a kernel checks (kernel.Run) and which fails that launch
// naming the argument. Writes before the start, or farther than the slack, are not seen.
type buffer struct {
	dev    *clDevice
	mem    uintptr // 0 once released
	size   int
	slack  int           // canary bytes after the data
	canary device.Canary // the buffer's own pattern (device.NewCanary)
}

// overrunSlack is the canary after a buffer's data: writes up to this far past its end
// are caught, a few rows of a 2D tile that overruns its array.
const overrunSlack = 64 << 10

// fillSlack writes the canary after the data.
func (b *buffer) fillSlack() error {
	if b.slack <= 0 {
		return nil
	}
	pattern := make([]byte, b.slack)
	b.canary.Fill(pattern, 0)
	st := b.dev.cl.EnqueueWriteBuffer(b.dev.queue, b.mem, clTrue, uintptr(b.size), uintptr(b.slack), unsafe.Pointer(&pattern[0]), 0, nil, nil)
	if err := check("clEnqueueWriteBuffer", st); err != nil {
		return &device.RuntimeError{Op: "write", Err: err}
	}
	return nil
}

// overrun reports whether a launch wrote into the canary after the data, which is then
// written again, so that the buffer's next user is not blamed. In the in-order queue the
// read follows every kernel launched before it.
func (b *buffer) overrun() (bool, error) {
	if b.slack <= 0 || b.mem == 0 {
		return false, nil
	}
	got := make([]byte, b.slack)
	st := b.dev.cl.EnqueueReadBuffer(b.dev.queue, b.mem, clTrue, uintptr(b.size), uintptr(b.slack), unsafe.Pointer(&got[0]), 0, nil, nil)
	if err := check("clEnqueueReadBuffer", st); err != nil {
		return false, &device.RuntimeError{Op: "read", Err: err}
	}
	if b.canary.Holds(got, 0) {
		return false, nil
	}
	return true, b.fillSlack()
}

var (
	_ device.Buffer = (*buffer)(nil)
	_ device.Copier = (*buffer)(nil)
)

// Size is the buffer's length in bytes.
func (b *buffer) Size() int { return b.size }

// Write copies src into the start of the buffer and returns when the copy is done, so src
// may be reused at once.
func (b *buffer) Write(src []byte) error {
	if err := b.transferable(len(src)); err != nil || len(src) == 0 {
		return err
	}
	st := b.dev.cl.EnqueueWriteBuffer(b.dev.queue, b.mem, clTrue, 0, uintptr(len(src)), unsafe.Pointer(&src[0]), 0, nil, nil)
	if err := check("clEnqueueWriteBuffer", st); err != nil {
		return &device.RuntimeError{Op: "write", Err: err}
	}
	return nil
}

// Read copies the start of the buffer into dst and returns when the copy is done. In the
// in-order queue it follows every kernel launched before it.
func (b *buffer) Read(dst []byte) error {
	if err := b.transferable(len(dst)); err != nil || len(dst) == 0 {
		return err
	}
	st := b.dev.cl.EnqueueReadBuffer(b.dev.queue, b.mem, clTrue, 0, uintptr(len(dst)), unsafe.Pointer(&dst[0]), 0, nil, nil)
	if err := check("clEnqueueReadBuffer", st); err != nil {
		return &device.RuntimeError{Op: "read", Err: err}
	}
	return nil
}

// CopyFrom copies the first n bytes of src, a buffer of the same device, into the start of
// the buffer on the device, after every kernel launched before, and waits for the copy.
func (b *buffer) CopyFrom(src device.Buffer, n int) error {
	s, ok := src.(*buffer)
	if !ok || s.dev != b.dev {
		return fmt.Errorf("opencl: copy from a buffer of another device")
	}
	if err := b.transferable(n); err != nil || n == 0 {
		return err
	}
	if s.mem == 0 {
		return errClosed
	}
	if n > s.size {
		return fmt.Errorf("opencl: copy of %d bytes from a buffer of %d", n, s.size)
	}
	st := b.dev.cl.EnqueueCopyBuffer(b.dev.queue, s.mem, b.mem, 0, 0, uintptr(n), 0, nil, nil)
	if err := check("clEnqueueCopyBuffer", st); err != nil {
		return &device.RuntimeError{Op: "copy", Err: err}
	}
	if err := check("clFinish", b.dev.cl.Finish(b.dev.queue)); err != nil {
		return &device.RuntimeError{Op: "copy", Err: err}
	}
	return nil
}

func (b *buffer) transferable(n int) error {
	if b.mem == 0 || b.dev.closed {
		return errClosed
	}
	if n > b.size {
		return fmt.Errorf("opencl: a transfer of %d bytes does not fit a buffer of %d bytes", n, b.size)
	}
	return nil
}

// Release frees the buffer; it is harmless to call twice or after the device closed.
func (b *buffer) Release() {
	if b.mem == 0 {
		return
	}
	if !b.dev.closed {
		b.dev.cl.ReleaseMemObject(b.mem)
		delete(b.dev.buffers, b)
	}
	b.mem = 0
}
