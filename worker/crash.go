package worker

import (
	"bytes"
	"errors"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
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

// summary returns the first lines the child printed, which say what went wrong.
func (t *tail) summary(n int) string { return strings.Join(t.lines(n), "; ") }

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
	// where names the array whose guard region the faulting address lies in, as "past
	// the end of argument y", or is "".
	where string
}

// faultAddr is the faulting address in the Go runtime's report of a signal ("PC=0x...
// m=3 sigcode=2 addr=0x7f0178a0d000").
var faultAddr = regexp.MustCompile(`\baddr=0x([0-9a-f]+)\b`)

// guardHit reads the faulting address of the runtime's report against a guard map (a line
// per array: "name lo hi lo hi" in hexadecimal, the regions before and after its data;
// runner.ReportGuards) and names the array whose region holds it, with what that says:
// "past the end of argument y (...)", "before the start of argument x (...)"; "" when
// none does.
func (c crash) guardHit(guards string) string {
	var addr uint64
	for _, l := range c.detail {
		if m := faultAddr.FindStringSubmatch(l); m != nil {
			a, err := strconv.ParseUint(m[1], 16, 64)
			if err != nil {
				return ""
			}
			addr = a
			break
		}
	}
	if addr == 0 {
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
	var c crash
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
	c.printed = out
	var ee *exec.ExitError
	if errors.As(waitErr, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			sig := ws.Signal()
			name := "signal " + sig.String()
			for n, s := range signals {
				if s == sig {
					name = n + " (" + sig.String() + ")"
				}
			}
			c.signal = name
		}
	}
	return c
}

// message is the evaluation's message for a crash of subject ("the kernel", "the worker
// process") during an activity ("compiling"; "" when unknown), the same for every
// configuration that crashes the same way.
func (c crash) message(subject, during string, waitErr error) string {
	when := ""
	if during != "" {
		when = " while " + during
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
