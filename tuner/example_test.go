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

// A program that builds its spec in memory tunes it from its text, SpecData; SpecPath
// names it, and its relative paths (the kernel source here) resolve against SpecPath's
// folder, a file that need not exist. The worker processes get the same text.
// (TestTuneOfASpecGivenInMemory runs this on PoCL.)
func ExampleOptions_specData() {
	tuner.WorkerMain()

	n := 1 << 20
	text := fmt.Sprintf(`kernel: {name: vector_add, source: vector_add.cl}
constants: {N: %d}
parameters:
  - {name: block_size_x, values: [32, 64, 128, 256]}
  - {name: tile_size_x, values: [1, 2, 4]}
problem_size: [N]
grid_div_x: [block_size_x, tile_size_x]
arguments:
  - {name: c, type: float32, length: N, output: true}
  - {name: a, type: float32, length: N, fill: random}
  - {name: b, type: float32, length: N, fill: random}
  - {name: n, type: int32, value: N}
verification:
  reference:
    config: {block_size_x: 32, tile_size_x: 1}
`, n)
	rep, err := tuner.Tune(context.Background(), tuner.Options{
		SpecData: []byte(text),
		SpecPath: "examples/vector_add/generated.yaml", // beside vector_add.cl
		Device:   "opencl",
		Budget:   6,
		DB:       "ktune.db",
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("best time %.3g ms at %s\n", *rep.BestObjective, rep.Best)
}
