package cuda

import (
	"fmt"
	"unsafe"

	"github.com/ktune/ktune/device"
)

// buffer is device memory of the device's context: size bytes of data, then slack bytes
// of canary.
//
// A kernel that writes a little past the end of an array seldom faults on a GPU: the
// driver hands out memory in large granules, and the write lands in the rest of one,
// or in another buffer, while the configuration "verifies". The spec's length for the
// array is wrong, or the kernel's bounds check is. So each buffer has a tail of canary
// bytes on the device, as on OpenCL, which the first launch of a kernel checks
// (kernel.Run) and which fails that launch naming the argument. Writes before the start,
// or farther than the slack, are not seen.
type buffer struct {
	dev    *cuDevice
	ptr    uint64 // CUdeviceptr; 0 once released
	size   int
	slack  int           // canary bytes after the data
	canary device.Canary // the buffer's own pattern (device.NewCanary)
}

// overrunSlack is the canary after a buffer's data: writes up to this far past its end
// are caught, a few rows of a 2D tile that overruns its array. The OpenCL backend's is
// the same.
const overrunSlack = 64 << 10

// fillSlack writes the canary after the data. The copy from pageable host memory is
// synchronous.
func (b *buffer) fillSlack() error {
	if b.slack <= 0 {
		return nil
	}
	pattern := make([]byte, b.slack)
	b.canary.Fill(pattern, 0)
	r := Result(b.dev.cu.MemcpyHtoD(b.ptr+uint64(b.size), unsafe.Pointer(&pattern[0]), uintptr(b.slack)))
	if err := b.dev.cu.check("cuMemcpyHtoD", r); err != nil {
		return b.dev.failed(&device.RuntimeError{Op: "write", Err: err})
	}
	return nil
}

// overrun reports whether a launch wrote into the canary after the data, which is then
// written again, so that the buffer's next user is not blamed. The copy waits for every
// kernel launched before it on the default stream.
func (b *buffer) overrun() (bool, error) {
	if b.slack <= 0 || b.ptr == 0 {
		return false, nil
	}
	got := make([]byte, b.slack)
	r := Result(b.dev.cu.MemcpyDtoH(unsafe.Pointer(&got[0]), b.ptr+uint64(b.size), uintptr(b.slack)))
	if err := b.dev.cu.check("cuMemcpyDtoH", r); err != nil {
		return false, b.dev.failed(&device.RuntimeError{Op: "read", Err: err})
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
	if n > s.size {
		return fmt.Errorf("cuda: copy of %d bytes from a buffer of %d", n, s.size)
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
	if n > b.size {
		return fmt.Errorf("cuda: a transfer of %d bytes does not fit a buffer of %d bytes", n, b.size)
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
			b.dev.cu.MemFree(b.ptr)
		}
		delete(b.dev.buffers, b)
	}
	b.ptr = 0
}
