package main

import (
	"context"
	"fmt"

	"github.com/ktune/ktune/device"
	_ "github.com/ktune/ktune/device/all" // every device backend
	"github.com/ktune/ktune/runner"
	"github.com/ktune/ktune/spec"
	"github.com/ktune/ktune/worker"
)

func init() {
	register(&command{
		name:    "worker",
		hidden:  true,
		summary: "serve device work for a tuning run (started by ktune itself)",
		usage: `--spec FILE --backend NAME --device INDEX

Started by 'ktune tune' as a supervised child process: it opens the device, then compiles,
runs, verifies and times the configurations the parent sends over its private pipes. It is
not meant to be run by hand.`,
		run: runWorker,
	})
}

func runWorker(ctx context.Context, env *cliEnv, args []string) error {
	c := lookup("worker")
	fs := newFlags(env, c)
	specPath := fs.String("spec", "", "kernel spec")
	backend := fs.String("backend", "", "device backend")
	index := fs.Int("device", 0, "device index")
	if _, err := parseFlags(env, c, fs, args); err != nil {
		return err
	}
	return worker.ServeChild(ctx, func() (worker.Measurer, error) {
		s, err := spec.Load(*specPath)
		if err != nil {
			return nil, err
		}
		sp, err := s.Space()
		if err != nil {
			return nil, err
		}
		b, ok := device.Lookup(*backend)
		if !ok {
			return nil, fmt.Errorf("unknown backend %q", *backend)
		}
		dev, err := b.Open(ctx, *index)
		if err != nil {
			return nil, fmt.Errorf("opening %s device %d: %w", *backend, *index, err)
		}
		return runner.New(s, sp, dev), nil
	})
}
