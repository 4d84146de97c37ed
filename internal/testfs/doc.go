// Package testfs holds file-system fixtures for tests: a small file system of their own to
// fill (Small), to check what ktune does on a full disk, and a FIFO whose reader collects
// what is written into it (ReadFIFO), to check that outputs are written into special
// files, not replaced. Where a fixture cannot be made (mounting needs Linux and the right
// to mount; FIFOs need Unix), the test is skipped, saying why.
package testfs
