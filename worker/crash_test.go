package worker

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// What a child printed before its current request is forgotten, wherever the writes that
// carry the request mark are cut.
func TestTheOutputRecordStartsAgainAtEachRequest(t *testing.T) {
	stream := "1 error generated.\n" + string(requestMark) + "kernel says hi\n" + string(requestMark) + "SIGSEGV: segmentation violation\nPC=0x1 m=3\n"
	for cut := 0; cut <= len(stream); cut++ {
		for second := cut; second <= len(stream); second += 7 {
			var tl tail
			for _, part := range []string{stream[:cut], stream[cut:second], stream[second:]} {
				if n, err := tl.Write([]byte(part)); n != len(part) || err != nil {
					t.Fatalf("Write returned %d, %v for %d bytes", n, err, len(part))
				}
			}
			if got, want := tl.lines(10), []string{"SIGSEGV: segmentation violation", "PC=0x1 m=3"}; !slices.Equal(got, want) {
				t.Fatalf("writes cut at %d and %d: %q, want %q", cut, second, got, want)
			}
		}
	}
}

func TestCrashMessagesNameTheSignalInOneForm(t *testing.T) {
	// A host C kernel's null write, as the Go runtime of a worker reports it (from a QA run).
	goReport := []string{
		"SIGSEGV: segmentation violation",
		"PC=0x7f01c2a0a54a m=3 sigcode=2 addr=0x7f0178a0d000",
		"signal arrived during cgo execution",
		"goroutine 1 gp=0x6e1c0ba41e0 m=4 mp=0x6e1c0bef808 [syscall, locked to thread]:",
		"runtime.cgocall(0xc001c0, 0x6e1c0e52160)",
	}
	// An OpenCL runtime's thread faults: the process dies of the signal itself.
	segv := exec.Command("sh", "-c", "kill -SEGV $$").Run()
	abort := exec.Command("sh", "-c", "kill -ABRT $$").Run()
	exit3 := exec.Command("sh", "-c", "exit 3").Run()
	kill := exec.Command("sh", "-c", "kill -KILL $$").Run()
	for _, tt := range []struct {
		name    string
		waitErr error
		out     []string
		subject string
		during  string
		want    string
	}{
		{"go report", exitErr(t, "exit 2"), goReport, "the kernel", "",
			"the kernel crashed: SIGSEGV (segmentation fault)"},
		{"go report after the kernel's words", exitErr(t, "exit 2"), append([]string{"k.c:3: k: Assertion `n > 0' failed."}, "SIGABRT: abort", "PC=0x7f01c2a0a54a m=0 sigcode=18446744073709551610"),
			"the kernel", "", "the kernel crashed: SIGABRT (aborted), after printing: k.c:3: k: Assertion `n > 0' failed."},
		// what the kernel printed without a newline shares the runtime's first line (a QA
		// saw the addresses in the message, as no signal was recognised)
		{"go report after a partial line", exitErr(t, "exit 2"), append([]string{"partial line without newline, then crash" + goReport[0]}, goReport[1:]...),
			"the kernel", "", "the kernel crashed: SIGSEGV (segmentation fault), after printing: partial line without newline, then crash"},
		{"killed by a signal", segv, nil, "the kernel", "", "the kernel crashed: SIGSEGV (segmentation fault)"},
		{"killed while compiling", abort, nil, "the worker process", "compiling", "the worker process crashed while compiling: SIGABRT (aborted)"},
		// killed from outside (QA: a worker killed while computing the reference said only
		// "the reference crashed: SIGKILL (killed)" and "Fix the reference")
		{"killed from outside", kill, nil, "the reference", "", "the reference crashed: SIGKILL (killed); SIGKILL comes from outside the process " +
			"(the out-of-memory killer, a user or a job scheduler), not from the kernel's own code"},
		{"an exit", exit3, []string{"bye"}, "the kernel", "", "the worker process died (exit status 3) while running the kernel: bye"},
		// A C kernel's exit(0): the process ends well and says nothing.
		{"a quiet exit", nil, nil, "the kernel", "", "the worker process died (exit status 0) while running the kernel; did the kernel call exit()? It must return"},
		{"a quiet exit while compiling", nil, nil, "the worker process", "compiling", "the worker process died (exit status 0) while compiling"},
		// the traceback's addresses vary from run to run: it is no part of the message
		{"a Go panic is no signal", exitErr(t, "exit 2"), []string{"panic: runtime error: index out of range [3] with length 3", "goroutine 1 [running]:", "main.f()", "\t/x/main.go:9 +0x1d"},
			"the worker process", "compiling", "the worker process died (exit status 2) while compiling: panic: runtime error: index out of range [3] with length 3"},
		{"the Go runtime out of memory", exitErr(t, "exit 2"), []string{"fatal error: runtime: out of memory", "runtime stack:", "runtime.throw({0x63a54d?, 0x48feb8?})", "\t/usr/local/go/src/runtime/panic.go:1229 +0x48 fp=0x7ffea8eb5bb0"},
			"the kernel", "", "the worker process died (exit status 2) while running the kernel: fatal error: runtime: out of memory"},
	} {
		c := describeCrash(tt.waitErr, tt.out)
		if got := c.message(tt.subject, tt.during, tt.waitErr); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
		if tt.name == "go report" && !strings.Contains(strings.Join(c.detail, "\n"), "addr=0x7f0178a0d000") {
			t.Errorf("go report: the detail %q lacks the address", c.detail)
		}
	}
}

func exitErr(t *testing.T, script string) error {
	t.Helper()
	err := exec.Command("sh", "-c", script).Run()
	if err == nil {
		t.Fatalf("%s succeeded", script)
	}
	return err
}

// A fault in an array's guard region names the array (runner.ReportGuards sends the map).
func TestAFaultInAGuardRegionNamesTheArray(t *testing.T) {
	guards := "out 1000 2000 2fa0 4000\nin 5000 6040 7000 8000\n"
	for _, tt := range []struct{ addr, want string }{
		{"0x3000", "past the end of argument out (the spec's length for it is too small, or the kernel overruns it)"},
		{"0x5008", "before the start of argument in (the kernel indexes it below 0)"},
		{"0x2fa0", "past the end of argument out"},
		{"0x2f9f", ""}, // inside out's data: no guard
		{"0x9000", ""},
	} {
		c := crash{detail: []string{"SIGSEGV: segmentation violation", "PC=0x7f01c2a0a54a m=3 sigcode=2 addr=" + tt.addr}}
		if got := c.guardHit(guards); !strings.HasPrefix(got, tt.want) || (tt.want == "") != (got == "") {
			t.Errorf("addr %s: %q, want %q", tt.addr, got, tt.want)
		}
	}
	c := crash{signal: "SIGSEGV (segmentation fault)", where: "past the end of argument out (x)"}
	if got := c.message("the kernel", "", nil); got != "the kernel crashed: SIGSEGV (segmentation fault), touching memory past the end of argument out (x)" {
		t.Errorf("message %q", got)
	}
}

// A fault at a null pointer, as the kernel raises it, is named so; a signal another
// process sent carries no address, whatever the report's addr field holds.
func TestAFaultAtANullPointerIsNamed(t *testing.T) {
	for _, tt := range []struct {
		pc   string
		want bool
	}{
		{"PC=0x7f1bd775d0ba m=6 sigcode=1 addr=0x0", true},
		{"PC=0x7f1bd775d0ba m=6 sigcode=2 addr=0xfff8", true},
		{"PC=0x7f1bd775d0ba m=6 sigcode=1 addr=0x7f0178a0d000", false},
		{"PC=0x7f1bd775d0ba m=6 sigcode=0 addr=0x4d2", false},                    // kill(2): addr holds the sender's pid
		{"PC=0x7f1bd775d0ba m=6 sigcode=18446744073709551610 addr=0x4d2", false}, // tgkill(2)
	} {
		c := crash{detail: []string{"SIGSEGV: segmentation violation", tt.pc}}
		if got := c.nullFault(); got != tt.want {
			t.Errorf("%s: null fault %v, want %v", tt.pc, got, tt.want)
		}
	}
}

// What a crash says of memory: a SIGKILL from outside is the out-of-memory killer's as a
// rule, with or without a limit; under a limit, an allocation that failed (the output says
// so, or the fault is at a null pointer, as malloc returns) ran out of it; otherwise
// nothing.
func TestACrashSaysWhatItTellsOfMemory(t *testing.T) {
	null := []string{"SIGSEGV: segmentation violation", "PC=0x7f1bd775d0ba m=6 sigcode=1 addr=0x0"}
	more := "a worker's memory is limited to 512.0 MiB (--worker-memory); give more if the configuration needs it"
	for _, tt := range []struct {
		name  string
		c     crash
		lines []string
		limit int64
		want  string
	}{
		{"killed from outside", crash{outside: true}, nil, 0,
			"if it ran the machine out of memory, bound each worker's memory with --worker-memory, so that an allocation beyond the bound fails in the configuration alone"},
		{"killed from outside under a limit", crash{outside: true}, nil, 512 << 20,
			"if the machine ran out of memory, lower the workers' memory limit of 512.0 MiB (--worker-memory), or free memory"},
		{"malloc's NULL under a limit", crash{detail: null}, nil, 512 << 20, "if a failed allocation returned that pointer, it ran out of memory: " + more},
		{"a null pointer without a limit", crash{detail: null}, nil, 0, ""},
		{"bad_alloc under a limit", crash{}, []string{"terminate called after throwing an instance of 'std::bad_alloc'"}, 512 << 20, "it ran out of memory: " + more},
		{"ENOMEM under a limit", crash{}, []string{"hog: Cannot allocate memory"}, 512 << 20, "it ran out of memory: " + more},
		{"no thread under a limit", crash{}, []string{"runtime/cgo: pthread_create failed: Resource temporarily unavailable"}, 512 << 20, "it ran out of memory: " + more},
		{"PoCL's assertion under a limit", crash{}, []string{"ktune: ./lib/CL/pocl_util.c:789: pocl_create_migration_commands: Assertion `p->mem_ptr != NULL' failed."}, 512 << 20,
			"if a failed allocation returned that NULL, it ran out of memory: " + more},
		{"another crash under a limit", crash{}, []string{"k.c:3: k: Assertion `n > 0' failed."}, 512 << 20, ""},
	} {
		if got := memoryNote(tt.c, tt.lines, tt.limit); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
	c := crash{signal: "SIGSEGV (segmentation fault)", where: "at a null pointer", memory: "it ran out of memory"}
	if got, want := c.message("the kernel", "", nil), "the kernel crashed: SIGSEGV (segmentation fault), touching memory at a null pointer; it ran out of memory"; got != want {
		t.Errorf("message %q, want %q", got, want)
	}
	c = crash{outside: true, signal: "SIGKILL (killed)", printed: []string{"compiling"}}
	if got, want := c.message("the worker process", "compiling", nil), "the worker process was killed by SIGKILL from outside ktune while compiling, often the out-of-memory killer, after printing: compiling"; got != want {
		t.Errorf("message %q, want %q", got, want)
	}
}
