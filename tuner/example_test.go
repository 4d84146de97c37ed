package tuner_test

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
	"os"
	"os/signal"

	_ "github.com/ktune/ktune/device/all" // the device backends, for the worker processes too
	"github.com/ktune/ktune/tuner"
)

// A program tunes a kernel as 'ktune tune' does. Its worker processes are the program
// itself, started with tuner.WorkerArg: WorkerMain serves them, first thing in main.
func Example() {
	tuner.WorkerMain()

	// Ctrl-C stops the search; the same options resume the run later.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	rep, err := tuner.Tune(ctx, tuner.Options{
		SpecPath: "examples/vector_add/vector_add_c.yaml",
		Budget:   20,
		DB:       "ktune.db",
	})
	switch {
	case errors.Is(err, context.Canceled):
		log.Fatal("interrupted: run again to resume") // what was measured is stored
	case err != nil:
		log.Fatal(err) // ErrNothingSucceeded comes with the report, which says why (rep.Failures)
	}
	fmt.Printf("best %s %.3g at %s\n", rep.Objective, *rep.BestObjective, rep.Best) // set when err is nil
	// the speedup is left out where no ratio means anything (an objective of 0 or below)
	if rep.SpeedupOverMed != nil {
		fmt.Printf("%.2fx the median configuration\n", *rep.SpeedupOverMed)
	}
}

// A program with a command of its own for the worker processes, as ktune has its hidden
// 'worker' command, names it in Options.WorkerCommand and serves the Worker there.
func ExampleWorker_Serve() {
	if len(os.Args) > 1 && os.Args[1] == "serve-device" {
		var w tuner.Worker
		fs := flag.NewFlagSet("serve-device", flag.ExitOnError)
		w.DefineFlags(fs)
		fs.Parse(os.Args[2:])
		if err := w.Serve(context.Background()); err != nil {
			log.Fatal(err)
		}
		return
	}
	exe, err := os.Executable()
	if err != nil {
		log.Fatal(err)
	}
	rep, err := tuner.Tune(context.Background(), tuner.Options{
		SpecPath:      "examples/vector_add/vector_add_c.yaml",
		Budget:        20,
		DB:            "ktune.db",
		WorkerCommand: []string{exe, "serve-device"},
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(rep.Best)
}
