//go:build !race

package redact

// raceDetector is set when the tests run with -race.
const raceDetector = false
