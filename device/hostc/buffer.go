//go:build linux

package hostc

import (
	"errors"
	"fmt"
	"os"
	"syscall"
	"unsafe"
)

// buffer is host memory mapped outside the Go heap: the garbage collector neither moves
// nor frees it, so C code may keep its address and write through it.
type buffer struct {
	dev  *hostDevice
	mem  []byte // the whole mapping, whole pages
	size int
}

var errReleased = errors.New("used after release")

func newBuffer(dev *hostDevice, n int) (*buffer, error) {
	if n < 0 {
		return nil, fmt.Errorf("alloc %d bytes: negative size", n)
	}
	page := os.Getpagesize()
	mapped := max((n+page-1)/page*page, page) // a zero-size buffer still has an address
	mem, err := syscall.Mmap(-1, 0, mapped, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		return nil, fmt.Errorf("alloc %d bytes: mmap: %w", n, err)
	}
	return &buffer{dev: dev, mem: mem, size: n}, nil
}

// Size is the buffer's size in bytes as allocated.
func (b *buffer) Size() int { return b.size }

// Write copies src to the start of the buffer.
func (b *buffer) Write(src []byte) error {
	if b.mem == nil {
		return fmt.Errorf("write: buffer %w", errReleased)
	}
	if len(src) > b.size {
		return fmt.Errorf("write %d bytes into a buffer of %d", len(src), b.size)
	}
	copy(b.mem, src)
	return nil
}

// Read copies the start of the buffer into dst.
func (b *buffer) Read(dst []byte) error {
	if b.mem == nil {
		return fmt.Errorf("read: buffer %w", errReleased)
	}
	if len(dst) > b.size {
		return fmt.Errorf("read %d bytes from a buffer of %d", len(dst), b.size)
	}
	copy(dst, b.mem)
	return nil
}

// Release unmaps the buffer; releasing twice does nothing.
func (b *buffer) Release() {
	b.dev.mu.Lock()
	defer b.dev.mu.Unlock()
	b.releaseLocked()
	delete(b.dev.buffers, b)
}

// releaseLocked unmaps the buffer; the caller holds the device's lock.
func (b *buffer) releaseLocked() {
	if b.mem != nil {
		syscall.Munmap(b.mem)
		b.mem = nil
	}
}

// addr is the address C sees, or 0 after release.
func (b *buffer) addr() uintptr {
	if b.mem == nil {
		return 0
	}
	return uintptr(unsafe.Pointer(&b.mem[0]))
}
