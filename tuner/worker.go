package tuner

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"syscall"

	"github.com/ktune/ktune/device"
	"github.com/ktune/ktune/runner"
	"github.com/ktune/ktune/spec"
	"github.com/ktune/ktune/worker"
)

// WorkerArg is the first argument of the worker processes that Tune starts from the
// program's own executable (Options.WorkerCommand nil); WorkerMain looks for it. A program
// that forgot WorkerMain runs as itself in its workers; its Tune then returns
// ErrNoWorkerMain there instead of starting workers of its own, and the tuning stops.
const WorkerArg = "--ktune-worker"

// Worker is what one worker process serves: a kernel spec on one device. Tune starts every
// worker process with Args after Options.WorkerCommand.
type Worker struct {
	Spec string // the kernel spec file
	// SpecData, when set, is a file holding the spec's text (Options.SpecData): the
	// worker parses it as Spec's, which need not exist, and resolves its relative paths
	// against Spec's folder.
	SpecData string
	Backend  string // the device backend's name (device.Lookup)
	Device   int    // the device's index in its backend
}

// Args is w as a worker process's arguments: --spec FILE [--spec-data FILE] --backend
// NAME --device INDEX, which DefineFlags parses.
func (w Worker) Args() []string {
	args := []string{"--spec", w.Spec}
	if w.SpecData != "" {
		args = append(args, "--spec-data", w.SpecData)
	}
	return append(args, "--backend", w.Backend, "--device", strconv.Itoa(w.Device))
}

// DefineFlags defines the flags of Args in fs, to be parsed into w.
func (w *Worker) DefineFlags(fs *flag.FlagSet) {
	fs.StringVar(&w.Spec, "spec", "", "kernel spec")
	fs.StringVar(&w.SpecData, "spec-data", "", "a file holding the spec's text, named as --spec")
	fs.StringVar(&w.Backend, "backend", "", "device backend")
	fs.IntVar(&w.Device, "device", 0, "device index")
}

// Serve is the body of a worker process: it opens the device, then compiles, runs,
// verifies and times the configurations that Tune's supervisor sends over the private
// pipes it started the process with (worker.ServeChild), until the parent closes them.
// The device backend must be registered in the process (blank-import
// github.com/ktune/ktune/device/all, or the backend's package).
func (w Worker) Serve(ctx context.Context) error {
	return worker.ServeChild(ctx, func() (worker.Measurer, error) {
		var text []byte
		if w.SpecData != "" {
			data, err := os.ReadFile(w.SpecData)
			if err != nil {
				return nil, fmt.Errorf("the spec's text: %w", err)
			}
			text = data
		}
		s, err := loadSpec(w.Spec, text)
		if err != nil {
			return nil, err
		}
		sp, err := s.Space()
		if err != nil {
			return nil, err
		}
		b, ok := device.Lookup(w.Backend)
		if !ok {
			return nil, fmt.Errorf("unknown backend %q", w.Backend)
		}
		dev, err := b.Open(ctx, w.Device)
		if err != nil {
			return nil, fmt.Errorf("opening %s device %d: %w", w.Backend, w.Device, err)
		}
		return runner.New(s, sp, dev), nil
	})
}

// loadSpec loads the spec file at path, or parses text as the spec path names when text
// is not nil, and reads the files it names.
func loadSpec(path string, text []byte) (*spec.Spec, error) {
	if text == nil {
		return spec.Load(path)
	}
	s, err := spec.Parse(text, path)
	if err != nil {
		return nil, err
	}
	if err := s.ReadFiles(); err != nil {
		return nil, err
	}
	return s, nil
}

// writeSpecData writes a spec's text to a file of its own in the temporary directory, for
// the worker processes (Worker.SpecData), and returns its path.
func writeSpecData(text []byte) (string, error) {
	f, err := os.CreateTemp("", "ktune-spec-*.yaml")
	if err != nil {
		return "", fmt.Errorf("writing the spec's text for the workers: %w", err)
	}
	_, err = f.Write(text)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(f.Name())
		return "", fmt.Errorf("writing the spec's text for the workers: %w", err)
	}
	return f.Name(), nil
}

// WorkerMain makes the program a worker process when Tune started it as one: when its
// first argument is WorkerArg it serves (Worker.Serve) and exits, and otherwise it returns
// at once. A program that calls Tune without its own Options.WorkerCommand calls
// WorkerMain first thing in main, before it parses flags or does anything else; a test
// binary whose tests call Tune, in its TestMain before m.Run.
func WorkerMain() {
	if len(os.Args) < 2 || os.Args[1] != WorkerArg {
		return
	}
	var w Worker
	fs := flag.NewFlagSet(os.Args[0]+" "+WorkerArg, flag.ContinueOnError)
	w.DefineFlags(fs)
	if err := fs.Parse(os.Args[2:]); err != nil {
		os.Exit(2)
	}
	// A worker runs in a process group of its own and ends when its parent closes the
	// pipes (the parent exiting or killed); a signal sent to it alone stops it too.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	err := w.Serve(ctx)
	stop()
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", fs.Name(), err)
		os.Exit(1)
	}
	os.Exit(0)
}
