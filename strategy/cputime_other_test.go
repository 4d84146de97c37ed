//go:build !unix

package strategy_test

import "time"

var started = time.Now()

// processCPU stands in for the process's CPU time where getrusage is missing: the wall
// clock since the test binary began, which a loaded machine stretches.
func processCPU() time.Duration { return time.Since(started) }
