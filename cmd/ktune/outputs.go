package main

import (
	"fmt"
	"io"

	"github.com/ktune/ktune/internal/outfile"
)

// writeFile writes an output file (--csv, --checkpoint) whole or not at all
// (outfile.Write); a variable, so that tests can make it fail as a full disk does.
var writeFile = outfile.Write

// resultWriter is standard output for a command's results that keeps the first error a
// write met (a full disk under 'ktune bench > FILE'), so that the results are printed
// whole, or as far as they go, and the failure is said with the others at the end.
type resultWriter struct {
	w   io.Writer
	err error
}

func (r *resultWriter) Write(p []byte) (int, error) {
	if r.err != nil {
		return 0, r.err
	}
	n, err := r.w.Write(p)
	r.err = err
	return n, err
}

// failedOutputs ends a command whose results are printed: every output that could not be
// written (a --csv or --plot on a full disk, the final checkpoint, standard output) is
// said on stderr, one line each, and the exit status is not 0. An interruption keeps its
// own status (130), having been said already.
func failedOutputs(env *cliEnv, cmd string, failed []error, interrupted error) error {
	if len(failed) == 0 {
		return interrupted
	}
	last := len(failed) - 1
	if interrupted != nil {
		last = len(failed) // main says nothing more of an interruption
	}
	for _, err := range failed[:last] {
		fmt.Fprintf(env.stderr, "ktune %s: %v\n", cmd, err)
	}
	if interrupted != nil {
		return interrupted
	}
	return failed[last] // main says it as the others
}
