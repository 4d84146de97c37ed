package opencl

import (
	"fmt"
	"unsafe"

	"github.com/ktune/ktune/device"
)

// buffer is a cl_mem of the device's context: front bytes of canary, size bytes of data,
// then slack bytes of canary.
//
// A kernel that writes past either end of an array must not go unnoticed: an OpenCL
// runtime checks nothing, and the write lands in memory of the runtime's (PoCL: the host
// heap, where a write before the start corrupts malloc's bookkeeping and crashes ktune's
// worker far from the kernel) or of another buffer, while the configuration "verifies".
// The spec's length for the array is wrong, or the kernel is. So each buffer has canary
// bytes around its data on the device, which the first launch of a kernel checks
// (kernel.Run) and which fail that launch naming the argument. Kernels get the data as a
// sub-buffer of the whole (clCreateSubBuffer, OpenCL 1.1), whose origin, front, is a
// multiple of the device's base address alignment; a runtime without sub-buffers gets no
// front canary. Writes farther than the canaries are not seen.
type buffer struct {
	dev  *clDevice
	mem  uintptr // the whole allocation, canaries included; 0 once released
	data uintptr // what kernels are given: a sub-buffer of mem from front, or mem
	// Front bytes of canary, Size bytes of data, Slack bytes of canary, and the buffer's
	// own Canary (device.NewCanary)
	device.Guard
}

// overrun tells where a launch wrote outside the data, by the canaries (device.Guard's
// Overrun): "past the end", "before the start", both, or "" when both canaries are
// intact, or the buffer is released.
func (b *buffer) overrun() (string, error) {
	if b.mem == 0 {
		return "", nil
	}
	return b.Overrun(b.readAt, b.writeAt)
}

// writeAt copies p to offset off of the whole allocation.
func (b *buffer) writeAt(off int, p []byte) error {
	st := b.dev.cl.EnqueueWriteBuffer(b.dev.queue, b.mem, clTrue, uintptr(off), uintptr(len(p)), unsafe.Pointer(&p[0]), 0, nil, nil)
	if err := check("clEnqueueWriteBuffer", st); err != nil {
		return &device.RuntimeError{Op: "write", Err: err}
	}
	return nil
}

// readAt copies the bytes at offset off of the whole allocation into p. In the in-order
// queue the read follows every kernel launched before it.
func (b *buffer) readAt(off int, p []byte) error {
	st := b.dev.cl.EnqueueReadBuffer(b.dev.queue, b.mem, clTrue, uintptr(off), uintptr(len(p)), unsafe.Pointer(&p[0]), 0, nil, nil)
	if err := check("clEnqueueReadBuffer", st); err != nil {
		return &device.RuntimeError{Op: "read", Err: err}
	}
	return nil
}

var (
	_ device.Buffer = (*buffer)(nil)
	_ device.Copier = (*buffer)(nil)
)

// Size is the buffer's length in bytes.
func (b *buffer) Size() int { return b.Guard.Size }

// Write copies src into the start of the buffer and returns when the copy is done, so src
// may be reused at once.
func (b *buffer) Write(src []byte) error {
	if err := b.transferable(len(src)); err != nil || len(src) == 0 {
		return err
	}
	return b.writeAt(b.Front, src)
}

// Read copies the start of the buffer into dst and returns when the copy is done. In the
// in-order queue it follows every kernel launched before it.
func (b *buffer) Read(dst []byte) error {
	if err := b.transferable(len(dst)); err != nil || len(dst) == 0 {
		return err
	}
	return b.readAt(b.Front, dst)
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
	if n > s.Size() {
		return fmt.Errorf("opencl: copy of %d bytes from a buffer of %d", n, s.Size())
	}
	st := b.dev.cl.EnqueueCopyBuffer(b.dev.queue, s.mem, b.mem, uintptr(s.Front), uintptr(b.Front), uintptr(n), 0, nil, nil)
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
	if n > b.Size() {
		return fmt.Errorf("opencl: a transfer of %d bytes does not fit a buffer of %d bytes", n, b.Size())
	}
	return nil
}

// Release frees the buffer; it is harmless to call twice or after the device closed.
func (b *buffer) Release() {
	if b.mem == 0 {
		return
	}
	if !b.dev.closed {
		if b.data != b.mem {
			b.dev.cl.ReleaseMemObject(b.data) // a sub-buffer goes before its buffer
		}
		b.dev.cl.ReleaseMemObject(b.mem)
		delete(b.dev.buffers, b)
	}
	b.mem, b.data = 0, 0
}
