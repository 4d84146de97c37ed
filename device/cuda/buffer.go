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
	dev    *cuDevice
	base   uint64 // the allocation's CUdeviceptr; 0 once released
	ptr    uint64 // the data's, base + front; 0 once released
	front  int    // canary bytes before the data
	size   int
	slack  int           // canary bytes after the data
	canary device.Canary // the buffer's own pattern (device.NewCanary)
}

// overrunSlack is the canary after a buffer's data: writes up to this far past its end
// are caught, a few rows of a 2D tile that overruns its array. The canary before the data
// is as long. The OpenCL backend's are the same.
const overrunSlack = 64 << 10

// frontPhase is the canary's phase at the start of the front slack, so that the pattern
// before the data is in step with the addresses, as after it.
func (b *buffer) frontPhase() int { return (8 - b.front%8) % 8 }

// fillCanaries writes the canary before the data (when before) and after it (when
// after). The copies from pageable host memory are synchronous.
func (b *buffer) fillCanaries(before, after bool) error {
	if before {
		if err := b.fill(b.base, b.front, b.frontPhase()); err != nil {
			return err
		}
	}
	if after {
		return b.fill(b.ptr+uint64(b.size), b.slack, 0)
	}
	return nil
}

// fill writes n bytes of the canary from phase at at.
func (b *buffer) fill(at uint64, n, phase int) error {
	if n <= 0 {
		return nil
	}
	pattern := make([]byte, n)
	b.canary.Fill(pattern, phase)
	r := Result(b.dev.cu.MemcpyHtoD(at, unsafe.Pointer(&pattern[0]), uintptr(n)))
	if err := b.dev.cu.check("cuMemcpyHtoD", r); err != nil {
		return b.dev.failed(&device.RuntimeError{Op: "write", Err: err})
	}
	return nil
}

// holds reports whether the n bytes at at still hold the canary from phase. The copy
// waits for every kernel launched before it on the default stream.
func (b *buffer) holds(at uint64, n, phase int) (bool, error) {
	if n <= 0 {
		return true, nil
	}
	got := make([]byte, n)
	r := Result(b.dev.cu.MemcpyDtoH(unsafe.Pointer(&got[0]), at, uintptr(n)))
	if err := b.dev.cu.check("cuMemcpyDtoH", r); err != nil {
		return false, b.dev.failed(&device.RuntimeError{Op: "read", Err: err})
	}
	return b.canary.Holds(got, phase), nil
}

// overrun tells where a launch wrote outside the data, by the canaries, in the host C
// backend's words: "past the end", "before the start", both, or "" when both canaries are
// intact. A changed canary is written again, so that the buffer's next user is not
// blamed.
func (b *buffer) overrun() (string, error) {
	if b.ptr == 0 {
		return "", nil
	}
	frontOK, err := b.holds(b.base, b.front, b.frontPhase())
	if err != nil {
		return "", err
	}
	tailOK, err := b.holds(b.ptr+uint64(b.size), b.slack, 0)
	if err != nil {
		return "", err
	}
	if err := b.fillCanaries(!frontOK, !tailOK); err != nil {
		return "", err
	}
	switch {
	case !frontOK && !tailOK:
		return "past the end and before the start", nil
	case !tailOK:
		return "past the end", nil
	case !frontOK:
		return "before the start", nil
	}
	return "", nil
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
			b.dev.cu.MemFree(b.base)
		}
		delete(b.dev.buffers, b)
	}
	b.base, b.ptr = 0, 0
}
