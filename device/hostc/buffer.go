//go:build linux

package hostc

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"syscall"
	"unsafe"

	"github.com/ktune/ktune/device"
)

// buffer is host memory mapped outside the Go heap: the garbage collector neither moves
// nor frees it, so C code may keep its address and write through it.
//
// A kernel that writes past either end of an array must not go unnoticed, as it would in
// the slack of a mapping rounded up to whole pages: its spec's length for the array is
// wrong, or the kernel is, and a run that "verifies" hides that. So the mapping is
//
//	[guard page][front slack | data | tail slack][guard page]
//
// The guard pages are PROT_NONE: touching one faults, and the kernel is reported as
// crashing. The data starts on a dataAlign boundary (SIMD loads and OpenMP's aligned
// clauses want that much), as close to the rear guard page as that allows while leaving
// dataAlign bytes or more, so the tail slack is 64 to 127 bytes and the front slack 64
// bytes to a page and 127. Both slacks hold the buffer's canary (device.Canary), which
// Run checks after every launch, whole (comparing at most a page and 256 bytes, outside
// the kernel's timing). A stray write that stays in a slack changes a canary and fails
// the launch naming the array; one that goes further reaches a guard page and crashes
// the kernel.
type buffer struct {
	dev  *hostDevice
	mem  []byte // the whole mapping, guard pages included
	off  int    // where the data starts in mem
	size int
	// front and tail are the slack around the data; the check after each launch compares
	// them with the canary they were given at allocation, frontWas and tailWas.
	front, tail       []byte
	frontWas, tailWas []byte
}

const (
	// dataAlign is the alignment of a buffer's data: a cache line, and AVX-512's vectors.
	dataAlign = 64
	// frontReach is the least front slack, which catches an under-run by a few elements.
	frontReach = 64
)

var errReleased = errors.New("used after release")

func newBuffer(dev *hostDevice, n int) (*buffer, error) {
	if n < 0 {
		return nil, fmt.Errorf("alloc %d bytes: negative size", n)
	}
	page := os.Getpagesize()
	// the pages between the guards, with room for the data, at least dataAlign bytes of
	// tail slack and frontReach of front slack after the data's alignment: without them
	// an array of a multiple of 64 bytes would end (or start) right at a guard page, and
	// a stray write by one element would crash (SIGSEGV, which names no array where it
	// happens on a thread of OpenMP's) instead of failing the launch with a message
	// naming the array
	inner := (n + 2*dataAlign + frontReach + page - 1) / page * page
	mem, err := syscall.Mmap(-1, 0, inner+2*page, syscall.PROT_NONE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		return nil, fmt.Errorf("alloc %d bytes: mmap: %w", n, err)
	}
	if err := syscall.Mprotect(mem[page:page+inner], syscall.PROT_READ|syscall.PROT_WRITE); err != nil {
		syscall.Munmap(mem)
		return nil, fmt.Errorf("alloc %d bytes: mprotect: %w", n, err)
	}
	off := (page + inner - n - dataAlign) / dataAlign * dataAlign
	b := &buffer{dev: dev, mem: mem, off: off, size: n, front: mem[page:off], tail: mem[off+n : page+inner]}
	// the buffer's own pattern (device.Canary): after the data from its end, before it in
	// step with the addresses, the data's start being a multiple of 8
	c := device.NewCanary(dev.allocs.Add(1) - 1)
	b.frontWas, b.tailWas = make([]byte, len(b.front)), make([]byte, len(b.tail))
	c.Fill(b.frontWas, (8-(off-page)%8)%8)
	c.Fill(b.tailWas, 0)
	copy(b.front, b.frontWas)
	copy(b.tail, b.tailWas)
	return b, nil
}

// Guards implements device.Guarded: the guard page and the slack before the data, and
// the slack and the guard page after it.
func (b *buffer) Guards() (before, after [2]uintptr) {
	if b.mem == nil {
		return
	}
	base := uintptr(unsafe.Pointer(&b.mem[0]))
	start, end := base+uintptr(b.off), base+uintptr(b.off+b.size)
	return [2]uintptr{base, start}, [2]uintptr{end, base + uintptr(len(b.mem))}
}

// overrun tells what a kernel wrote outside the data, by the canaries: "past the end",
// "before the start", or "" when both are intact. A changed canary is written again, so
// that the buffer's next user is not blamed.
func (b *buffer) overrun() string {
	if b.mem == nil {
		return ""
	}
	past := !bytes.Equal(b.tail, b.tailWas)
	before := !bytes.Equal(b.front, b.frontWas)
	if past {
		copy(b.tail, b.tailWas)
	}
	if before {
		copy(b.front, b.frontWas)
	}
	switch {
	case past && before:
		return "past the end and before the start"
	case past:
		return "past the end"
	case before:
		return "before the start"
	}
	return ""
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
	copy(b.mem[b.off:], src)
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
	copy(dst, b.mem[b.off:b.off+b.size])
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
		b.mem, b.front, b.tail = nil, nil, nil
	}
}

// addr is the address C sees, or 0 after release. A buffer of no bytes has the address
// where the rear guard page starts: nothing may be read or written there.
func (b *buffer) addr() uintptr {
	if b.mem == nil {
		return 0
	}
	return uintptr(unsafe.Pointer(&b.mem[0])) + uintptr(b.off)
}
