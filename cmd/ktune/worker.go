package main

import (
	"context"

	_ "github.com/ktune/ktune/device/all" // every device backend
	"github.com/ktune/ktune/tuner"
)

func init() {
	register(&command{
		name:    "worker",
		hidden:  true,
		summary: "serve device work for a tuning run (started by ktune itself)",
		usage: `--spec FILE [--spec-data FILE] --backend NAME --device INDEX

Started by 'ktune tune' as a supervised child process: it opens the device, then compiles,
runs, verifies and times the configurations the parent sends over its private pipes. It is
not meant to be run by hand.`,
		run: runWorker,
	})
}

func runWorker(ctx context.Context, env *cliEnv, args []string) error {
	c := lookup("worker")
	fs := newFlags(env, c)
	var w tuner.Worker
	w.DefineFlags(fs)
	if _, err := parseFlags(env, c, fs, args); err != nil {
		return err
	}
	return w.Serve(ctx)
}
