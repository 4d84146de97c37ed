package cuda

import (
	"fmt"
	"unsafe"

	"github.com/ktune/ktune/device"
)

// buffer is device memory of the device's context: front bytes of canary, size bytes of
// data, then slack bytes of canary, in one allocation.
//
// A kernel that writes a little past either end of an array seldom faults on a GPU: the
// driver hands out memory in large granules, and the write lands in the rest of one,
// or in another buffer, while the configuration "verifies". The spec's length for the
// array is wrong, or the kernel's bounds check is. So each buffer has canary bytes on the
// device around its data, as on OpenCL, which the first launch of a kernel checks
// (kernel.Run) and which fail that launch naming the argument. Kernels get the address
// of the data, front bytes into the allocation (a multiple of 256, so the data keep
// cuMemAlloc's alignment). Writes farther than the canaries are not seen.
type buffer struct {
	dev  *cuDevice
	base uint64 // the allocation's CUdeviceptr; 0 once released
	ptr  uint64 // the data's, base + front; 0 once released
	// Front bytes of canary, Size bytes of data, Slack bytes of canary, and the buffer's
	// own Canary (device.NewCanary)
	device.Guard
}

// overrun tells where a launch wrote outside the data, by the canaries (device.Guard's
// Overrun): "past the end", "before the start", both, or "" when both canaries are
// intact, or the buffer is released.
func (b *buffer) overrun() (string, error) {
	if b.ptr == 0 {
		return "", nil
	}
	return b.Overrun(b.readAt, b.writeAt)
}

// writeAt copies p to offset off of the allocation.
func (b *buffer) writeAt(off int, p []byte) error {
	r := Result(b.dev.cu.MemcpyHtoD(b.base+uint64(off), unsafe.Pointer(&p[0]), uintptr(len(p))))
	if err := b.dev.cu.check("cuMemcpyHtoD", r); err != nil {
		return b.dev.failed(&device.RuntimeError{Op: "write", Err: err})
	}
	return nil
}

// readAt copies the bytes at offset off of the allocation into p. The copy waits for
// every kernel launched before it on the default stream.
func (b *buffer) readAt(off int, p []byte) error {
	r := Result(b.dev.cu.MemcpyDtoH(unsafe.Pointer(&p[0]), b.base+uint64(off), uintptr(len(p))))
	if err := b.dev.cu.check("cuMemcpyDtoH", r); err != nil {
		return b.dev.failed(&device.RuntimeError{Op: "read", Err: err})
	}
	return nil
}

var (
	_ device.Buffer = (*buffer)(nil)
	_ device.Copier = (*buffer)(nil)
)

// Size is the buffer's length in bytes.
func (b *buffer) Size() int { return b.Guard.Size }

// Write copies src into the start of the buffer. The copy from pageable host memory is
// synchronous: src may be reused at once.
func (b *buffer) Write(src []byte) error {
	if err := b.transferable(len(src)); err != nil || len(src) == 0 {
		return err
	}
	r := Result(b.dev.cu.MemcpyHtoD(b.ptr, unsafe.Pointer(&src[0]), uintptr(len(src))))
	if err := b.dev.cu.check("cuMemcpyHtoD", r); err != nil {
		return b.dev.failed(&device.RuntimeError{Op: "write", Err: err})
	}
	return nil
}

// Read copies the start of the buffer into dst once every kernel launched before has
// finished. A kernel's fault can surface here, as the copy is the first call to wait
// for it after a launch that was not timed.
func (b *buffer) Read(dst []byte) error {
	if err := b.transferable(len(dst)); err != nil || len(dst) == 0 {
		return err
	}
	r := Result(b.dev.cu.MemcpyDtoH(unsafe.Pointer(&dst[0]), b.ptr, uintptr(len(dst))))
	if err := b.dev.cu.check("cuMemcpyDtoH", r); err != nil {
		return b.dev.failed(&device.RuntimeError{Op: "read", Err: err})
	}
	return nil
}

// CopyFrom copies the first n bytes of src, a buffer of the same device, into the start of
// the buffer on the device, after every kernel launched before, and waits for the copy.
func (b *buffer) CopyFrom(src device.Buffer, n int) error {
	s, ok := src.(*buffer)
	if !ok || s.dev != b.dev {
		return fmt.Errorf("cuda: copy from a buffer of another device")
	}
	if err := b.transferable(n); err != nil || n == 0 {
		return err
	}
	if s.ptr == 0 {
		return errClosed
	}
	if n > s.Size() {
		return fmt.Errorf("cuda: copy of %d bytes from a buffer of %d", n, s.Size())
	}
	r := Result(b.dev.cu.MemcpyDtoD(b.ptr, s.ptr, uintptr(n)))
	if err := b.dev.cu.check("cuMemcpyDtoD", r); err != nil {
		return b.dev.failed(&device.RuntimeError{Op: "copy", Err: err})
	}
	// The copy is asynchronous to the host; waiting here keeps its time out of the next
	// launch's, and a fault of a kernel before it surfaces here rather than later.
	r = Result(b.dev.cu.CtxSynchronize())
	if err := b.dev.cu.check("cuCtxSynchronize", r); err != nil {
		return b.dev.failed(&device.RuntimeError{Op: "copy", Err: err})
	}
	return nil
}

func (b *buffer) transferable(n int) error {
	if b.ptr == 0 || b.dev.closed {
		return errClosed
	}
	if err := b.dev.usable(); err != nil {
		return err
	}
	if n > b.Size() {
		return fmt.Errorf("cuda: a transfer of %d bytes does not fit a buffer of %d bytes", n, b.Size())
	}
	return nil
}

// Release frees the memory; it is harmless to call twice or after the device closed.
func (b *buffer) Release() {
	if b.ptr == 0 {
		return
	}
	if !b.dev.closed {
		if b.dev.lost == nil {
			b.dev.cu.MemFree(b.base)
		}
		delete(b.dev.buffers, b)
	}
	b.base, b.ptr = 0, 0
}
