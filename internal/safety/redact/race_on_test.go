//go:build race

package redact

// raceDetector is set when the tests run with -race, whose
// instrumentation, not the code under test, then sets the times.
const raceDetector = true
