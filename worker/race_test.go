//go:build race

package worker

// raceDetector says the tests run under the race detector, whose runtime (ThreadSanitizer)
// maps memory of its own and dies of a data limit in its own words.
const raceDetector = true
