package worker

import (
	"context"
	"fmt"
	"math"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/ktune/ktune/result"
	"github.com/ktune/ktune/space"
)

// The test binary doubles as the worker: with KTUNE_WORKER_TEST set it serves a fake
// measurer whose behaviour depends on the configuration's first value.
func TestMain(m *testing.M) {
	if os.Getenv("KTUNE_WORKER_TEST") == "1" {
		err := ServeChild(context.Background(), func() (Measurer, error) {
			if os.Getenv("KTUNE_WORKER_FAIL_OPEN") == "1" {
				return nil, fmt.Errorf("no such device")
			}
			return fakeMeasurer{}, nil
		})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

const (
	behaveOK = iota
	behaveCrash
	behaveHang
	behaveNoisy
	behaveSlowCompile
)

type fakeMeasurer struct{}

func (fakeMeasurer) Evaluate(_ context.Context, c space.Config, phase func(string)) result.Evaluation {
	if c[0] == behaveSlowCompile {
		time.Sleep(300 * time.Millisecond)
	}
	phase(phaseCompiled)
	phase(phaseTiming)
	switch c[0] {
	case behaveCrash:
		fmt.Fprintln(os.Stderr, "about to crash on purpose")
		syscall.Kill(os.Getpid(), syscall.SIGSEGV)
		time.Sleep(time.Second)
	case behaveHang:
		time.Sleep(time.Hour)
	case behaveNoisy:
		// A kernel that prints must not corrupt the protocol.
		fmt.Println("\x00\xffgarbage on stdout")
	}
	return result.Evaluation{Status: result.OK, Objective: float64(10 + c[1]), Samples: []float64{1, 2}, Time: time.Now()}
}

func (fakeMeasurer) Compile(context.Context, space.Config) error { return nil }

func newTestSupervisor(t *testing.T, extraEnv ...string) *Supervisor {
	t.Helper()
	s := NewSupervisor(Options{
		Command:        []string{os.Args[0], "-test.run=^$"},
		Env:            append([]string{"KTUNE_WORKER_TEST=1"}, extraEnv...),
		Timeout:        500 * time.Millisecond,
		CompileTimeout: 10 * time.Second,
		Precompile:     true,
	})
	t.Cleanup(func() { s.Close() })
	return s
}

func TestCrashesAndHangsAreResultsAndTheWorkerIsReplaced(t *testing.T) {
	s := newTestSupervisor(t)
	ctx := context.Background()
	tests := []struct {
		behaviour int
		status    result.Status
		message   string
	}{
		{behaveOK, result.OK, ""},
		{behaveCrash, result.RuntimeError, "about to crash on purpose"},
		{behaveOK, result.OK, ""},
		{behaveHang, result.Timeout, "time limit"},
		{behaveNoisy, result.OK, ""},
		{behaveSlowCompile, result.OK, ""}, // compilation does not count against the run limit
		{behaveCrash, result.RuntimeError, "segmentation"},
		{behaveOK, result.OK, ""},
	}
	for i, tt := range tests {
		s.Hint(space.Config{behaveOK, i + 1})
		e, err := s.Evaluate(ctx, space.Config{tt.behaviour, i})
		if err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		if e.Status != tt.status {
			t.Fatalf("step %d: status %v (%s), want %v", i, e.Status, e.Message, tt.status)
		}
		if tt.status == result.OK && e.Objective != float64(10+i) {
			t.Fatalf("step %d: objective %v", i, e.Objective)
		}
		if tt.status != result.OK && (!math.IsNaN(e.Objective) || !contains(e.Message, tt.message)) {
			t.Fatalf("step %d: %v %q, want a message with %q", i, e.Objective, e.Message, tt.message)
		}
	}
	if s.Crashes != 3 {
		t.Fatalf("%d crashes counted, want 3", s.Crashes)
	}
}

func TestAWorkerThatCannotStartIsAnError(t *testing.T) {
	s := newTestSupervisor(t, "KTUNE_WORKER_FAIL_OPEN=1")
	_, err := s.Evaluate(context.Background(), space.Config{behaveOK, 0})
	if err == nil || !contains(err.Error(), "no such device") {
		t.Fatalf("error %v", err)
	}
}

func TestCancellationKillsTheWorker(t *testing.T) {
	s := newTestSupervisor(t)
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	s.opts.Timeout = time.Hour
	start := time.Now()
	_, err := s.Evaluate(ctx, space.Config{behaveHang, 0})
	if err == nil || time.Since(start) > 5*time.Second {
		t.Fatalf("error %v after %v", err, time.Since(start))
	}
}

func contains(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return true
		}
	}
	return false
}
