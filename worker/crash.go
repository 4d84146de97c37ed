package worker

import (
	"bytes"
	"errors"
	"fmt"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"github.com/ktune/ktune/space"
)

// requestMark is what a child writes on its standard error before it serves a request:
// the parent's record of the child's output starts again after it, so that a crash is
// described with what the child printed for that request alone, not with what an earlier
// configuration's compiler said.
var requestMark = []byte("\x00ktune-worker: next request\x00")

// tail keeps the first and the last bytes a child printed since it began its current
// request (or since it started), for crash reports: the first lines name the fault (a
// runtime's report of a signal, an assertion), the last ones what the kernel printed
// just before.
type tail struct {
	mu         sync.Mutex
	head, last []byte
	carry      []byte // the end of the last write, which may begin a requestMark
}

const tailKeep = 2048

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := len(p)
	data := p
	if len(t.carry) > 0 {
		data = append(t.carry, p...)
	}
	if i := bytes.LastIndex(data, requestMark); i >= 0 {
		// Whatever came before the mark, a part of it carried over included, is gone.
		t.head, t.last = t.head[:0], t.last[:0]
		p = data[i+len(requestMark):]
	}
	t.carry = append(t.carry[:0:0], data[max(len(data)-len(requestMark)+1, 0):]...)
	if room := tailKeep - len(t.head); room > 0 {
		t.head = append(t.head, p[:min(room, len(p))]...)
	}
	t.last = append(t.last, p...)
	if len(t.last) > tailKeep {
		t.last = append([]byte(nil), t.last[len(t.last)-tailKeep:]...)
	}
	return n, nil
}

// lines returns the first non-empty lines (at most n) the child printed, trimmed.
func (t *tail) lines(n int) []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	var out []string
	for _, l := range strings.Split(string(t.head), "\n") {
		if len(out) == n {
			break
		}
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return out
}

// goSignal is the start of the Go runtime's report of a fatal signal outside Go code (a C
// kernel's, an OpenCL runtime's): "SIGSEGV: segmentation violation", then "PC=0x... m=3
// sigcode=2 addr=0x...". It may follow what the kernel printed without a newline on the
// same line ("partial lineSIGSEGV: segmentation violation").
var goSignal = regexp.MustCompile(`(SIG[A-Z0-9]+): `)

// signals are the signals a crashing kernel dies of, by name.
var signals = map[string]syscall.Signal{
	"SIGSEGV": syscall.SIGSEGV, "SIGBUS": syscall.SIGBUS, "SIGFPE": syscall.SIGFPE,
	"SIGILL": syscall.SIGILL, "SIGABRT": syscall.SIGABRT, "SIGTRAP": syscall.SIGTRAP,
	"SIGSYS": syscall.SIGSYS, "SIGQUIT": syscall.SIGQUIT, "SIGKILL": syscall.SIGKILL,
	"SIGTERM": syscall.SIGTERM, "SIGXCPU": syscall.SIGXCPU, "SIGXFSZ": syscall.SIGXFSZ,
	"SIGPIPE": syscall.SIGPIPE,
}

// crash describes how a child died, from its exit status and what it printed for its
// last request (up to maxLines lines).
type crash struct {
	// signal names the signal it died of, in one form whoever reported it (the Go
	// runtime or the exit status): "SIGSEGV (segmentation fault)"; "" when it was none.
	signal string
	// printed is what it printed before the Go runtime's report, if any, or all of it.
	printed []string
	// detail is the runtime's report (addresses, which vary from run to run): for a log,
	// not for a message that configurations failing the same way share.
	detail []string
	// where says where the faulting address lies: "past the end of argument y" (in an
	// array's guard region), "at a null pointer"; or is "".
	where string
	// sig is the signal that ended the process, as its exit status says (0: none).
	sig syscall.Signal
	// outside is set when that was a SIGKILL the supervisor did not send: another
	// process's, or the out-of-memory killer's as a rule.
	outside bool
	// memory says what the crash suggests of the child's memory (it ran out, or may have)
	// and what to do, or is "".
	memory string
}

// faultAddr is the faulting address in the Go runtime's report of a signal ("PC=0x...
// m=3 sigcode=2 addr=0x7f0178a0d000"), after the signal's code: positive when the kernel
// raised the signal for a fault, 0 or negative (printed unsigned) when a process sent
// it, and then addr holds no address.
var faultAddr = regexp.MustCompile(`\bsigcode=([0-9]+) addr=0x([0-9a-f]+)\b`)

// faultAddress is the faulting address of the runtime's report, and false when the report
// has none (no report, a signal another process sent).
func (c crash) faultAddress() (uint64, bool) {
	for _, l := range c.detail {
		if m := faultAddr.FindStringSubmatch(l); m != nil {
			code, err1 := strconv.ParseUint(m[1], 10, 64)
			addr, err2 := strconv.ParseUint(m[2], 16, 64)
			return addr, err1 == nil && err2 == nil && code > 0 && code < 128
		}
	}
	return 0, false
}

// nullPage is where no process maps memory (Linux's vm.mmap_min_addr, 64 KiB by
// default): a fault there is through a null pointer, or near one.
const nullPage = 1 << 16

// nullFault reports whether the runtime's report puts the fault at a null pointer.
func (c crash) nullFault() bool {
	addr, ok := c.faultAddress()
	return ok && addr < nullPage
}

// guardHit reads the faulting address of the runtime's report against a guard map (a line
// per array: "name lo hi lo hi" in hexadecimal, the regions before and after its data;
// runner.ReportGuards) and names the array whose region holds it, with what that says:
// "past the end of argument y (...)", "before the start of argument x (...)"; "" when
// none does.
func (c crash) guardHit(guards string) string {
	addr, ok := c.faultAddress()
	if !ok || addr == 0 {
		return ""
	}
	for _, l := range strings.Split(guards, "\n") {
		f := strings.Fields(l)
		if len(f) != 5 {
			continue
		}
		var r [4]uint64
		ok := true
		for i := range r {
			v, err := strconv.ParseUint(f[i+1], 16, 64)
			r[i], ok = v, ok && err == nil
		}
		switch {
		case !ok:
		case r[0] <= addr && addr < r[1]:
			return "before the start of argument " + f[0] + " (the kernel indexes it below 0)"
		case r[2] <= addr && addr < r[3]:
			return "past the end of argument " + f[0] + " (the spec's length for it is too small, or the kernel overruns it)"
		}
	}
	return ""
}

// describeCrash reads a dead child's exit status and output.
func describeCrash(waitErr error, out []string) crash {
	c := crash{sig: exitSignal(waitErr)}
	for i, l := range out {
		ms := goSignal.FindAllStringSubmatchIndex(l, -1)
		if ms == nil || i+1 == len(out) || !strings.HasPrefix(out[i+1], "PC=") {
			continue
		}
		m := ms[len(ms)-1] // the runtime's report comes last on the line
		name, report := l[m[2]:m[3]], l[m[0]:]
		c.printed = slices.Clone(out[:i])
		if before := strings.TrimSpace(l[:m[0]]); before != "" {
			c.printed = append(c.printed, before)
		}
		c.detail = append([]string{report}, out[i+1:]...)
		if sig, ok := signals[name]; ok {
			c.signal = name + " (" + sig.String() + ")"
		} else {
			c.signal = report
		}
		return c
	}
	c.printed, c.detail = goTraceback(out)
	if c.sig != 0 {
		name := "signal " + c.sig.String()
		for n, s := range signals {
			if s == c.sig {
				name = n + " (" + c.sig.String() + ")"
			}
		}
		c.signal = name
	}
	return c
}

// goTraceback splits what a child printed at the Go runtime's traceback of a fatal error
// or a panic ("fatal error: runtime: out of memory", then "runtime stack:" or "goroutine 1
// [running]:" and frames with addresses, which vary from run to run): the lines before it,
// which say what went wrong, and the traceback. Output without one is all printed.
func goTraceback(out []string) (printed, traceback []string) {
	fatal := false
	for i, l := range out {
		if strings.HasPrefix(l, "fatal error: ") || strings.HasPrefix(l, "panic: ") {
			fatal = true
			continue
		}
		if fatal && (l == "runtime stack:" || strings.HasPrefix(l, "goroutine ")) {
			return out[:i], out[i:]
		}
	}
	return out, nil
}

// exitSignal is the signal a process died of, by its exit status, 0 when none.
func exitSignal(waitErr error) syscall.Signal {
	var ee *exec.ExitError
	if errors.As(waitErr, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return ws.Signal()
		}
	}
	return 0
}

// message is the evaluation's message for a crash of subject ("the kernel", "the worker
// process") during an activity ("compiling"; "" when unknown), the same for every
// configuration that crashes the same way.
func (c crash) message(subject, during string, waitErr error) string {
	msg := c.describe(subject, during, waitErr)
	if c.memory != "" {
		msg += "; " + c.memory
	}
	return msg
}

// describe is message without what it says of memory.
func (c crash) describe(subject, during string, waitErr error) string {
	when := ""
	if during != "" {
		when = " while " + during
	}
	if c.outside {
		msg := subject + " was killed by SIGKILL from outside ktune" + when + ", often the out-of-memory killer"
		if len(c.printed) > 0 {
			msg += ", after printing: " + strings.Join(c.printed, "; ")
		}
		return msg
	}
	if c.signal != "" {
		msg := subject + " crashed" + when + ": " + c.signal
		if c.where != "" {
			msg += ", touching memory " + c.where
		}
		if len(c.printed) > 0 {
			msg += ", after printing: " + strings.Join(c.printed, "; ")
		}
		if strings.HasPrefix(c.signal, "SIGKILL") {
			// no fault of the code sends it, nor can the process catch it: the message would
			// otherwise send the user to look for a bug in the kernel or the reference
			msg += "; SIGKILL comes from outside the process (the out-of-memory killer, a user or a job scheduler), not from the kernel's own code"
		}
		return msg
	}
	if when == "" && subject != "the worker process" {
		when = " while running " + subject
	}
	msg := "the worker process died"
	if waitErr != nil {
		msg += " (" + waitErr.Error() + ")"
	} else {
		msg += " (exit status 0)"
	}
	msg += when
	switch {
	case len(c.printed) > 0:
		msg += ": " + strings.Join(c.printed, "; ")
	case subject != "the worker process":
		// Nothing said why: the kernel's own code ended the process, mostly.
		msg += "; did the kernel call exit()? It must return"
	}
	return msg
}

// outOfMemoryWords are what programs print when an allocation fails, in lower case:
// strerror's ENOMEM ("Cannot allocate memory"), C++'s std::bad_alloc (LLVM's, in PoCL),
// the Go runtime's "fatal error: runtime: out of memory", libgomp's "Out of memory
// allocating ...", gcc's "virtual memory exhausted"; and a thread that could not be
// created, its stack refused (the Go runtime's "pthread_create failed", libgomp's "Thread
// creation failed").
var outOfMemoryWords = []string{"cannot allocate memory", "out of memory", "bad_alloc", "memory exhausted",
	"pthread_create failed", "thread creation failed"}

// nullAssertion is the end of a failed assertion that a pointer is not NULL, as PoCL
// asserts what it allocated ("Assertion `p->mem_ptr != NULL' failed.").
const nullAssertion = "!= null' failed"

// anyContains reports whether one of lines holds one of words, ignoring case.
func anyContains(lines []string, words ...string) bool {
	for _, l := range lines {
		low := strings.ToLower(l)
		for _, w := range words {
			if strings.Contains(low, w) {
				return true
			}
		}
	}
	return false
}

// ranOutOfMemory is how a failure says that memory ran out, or may have, under the
// workers' memory limit (memoryNote); OutOfMemory looks for it.
const ranOutOfMemory = "it ran out of memory"

// OutOfMemory reports whether err says that a worker ran out of memory, or may have,
// under the workers' memory limit (Options.MemoryLimit): what failed may need more.
func OutOfMemory(err error) bool {
	return err != nil && strings.Contains(err.Error(), ranOutOfMemory+": ")
}

// memoryNote is what crash c of a child that printed lines, whose memory was limited to
// limit bytes (0: none; Options.MemoryLimit), says of memory, with what to do; "" when
// nothing points at memory. Where a limit was set, a configuration that needs more than
// it fails its allocations (a C kernel's malloc returns NULL, C++ throws bad_alloc, the
// Go runtime dies): that is said where the output says so, or where the fault is at a
// null pointer (or an assertion finds one), as a failed allocation returns. A SIGKILL
// from outside is the out-of-memory killer's as a rule, whether or not a limit was set.
func memoryNote(c crash, lines []string, limit int64) string {
	more := fmt.Sprintf("a worker's memory is limited to %s (--worker-memory); give more if the configuration needs it", space.FormatBytes(limit))
	switch {
	case c.outside && limit > 0:
		return fmt.Sprintf("if the machine ran out of memory, lower the workers' memory limit of %s (--worker-memory), or free memory", space.FormatBytes(limit))
	case c.outside:
		return "if it ran the machine out of memory, bound each worker's memory with --worker-memory, so that an allocation beyond the bound fails in the configuration alone"
	case limit <= 0:
		return ""
	case anyContains(lines, outOfMemoryWords...):
		return ranOutOfMemory + ": " + more
	case c.nullFault():
		return "if a failed allocation returned that pointer, " + ranOutOfMemory + ": " + more
	case anyContains(lines, nullAssertion):
		return "if a failed allocation returned that NULL, " + ranOutOfMemory + ": " + more
	}
	return ""
}

// fullDisk are strerror's words for a file system that cannot take a write: full, over its
// quota, read-only.
var fullDisk = []string{"no space left on device", "disk quota exceeded", "read-only file system"}

// environmentCrash reports whether the lines a child printed before it died put its
// death down to the machine: a runtime that could not write its own files and exited
// (PoCL's LLVM: "LLVM ERROR: IO failure on output stream: No space left on device"). While
// the child compiles, nothing of the kernel has run and any line counts; once the kernel
// runs (running), what it printed is its own, and only LLVM's fatal errors count (PoCL
// generates code at the first launch).
func environmentCrash(lines []string, running bool) bool {
	for _, l := range lines {
		if running && !strings.HasPrefix(l, "LLVM ERROR:") {
			continue
		}
		low := strings.ToLower(l)
		for _, f := range fullDisk {
			if strings.Contains(low, f) {
				return true
			}
		}
	}
	return false
}
