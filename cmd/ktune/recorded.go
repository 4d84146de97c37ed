package main

import (
	"fmt"
	"io"

	"github.com/ktune/ktune/format"
	_ "github.com/ktune/ktune/format/all" // registers every result format
	"github.com/ktune/ktune/result"
	"github.com/ktune/ktune/simulator"
	"github.com/ktune/ktune/space"
)

func openRecording(path string) (*result.Recording, error) {
	return format.Open(path)
}

// printWarnings writes what reading a recording or building its simulator noticed without
// failing, one line each, as "ktune CMD: warning: ...".
func printWarnings(w io.Writer, cmd string, warnings []string) {
	for _, s := range warnings {
		fmt.Fprintf(w, "ktune %s: warning: %s\n", cmd, s)
	}
}

// recordedSpace is the space of the configurations a recording holds that its producer did
// not mark as restricted: the space the simulator's recorded mode searches.
func recordedSpace(rec *result.Recording) (*space.Space, error) {
	sim, err := simulator.New(rec, simulator.Options{Mode: simulator.Recorded})
	if err != nil {
		return nil, err
	}
	return sim.Space(), nil
}
