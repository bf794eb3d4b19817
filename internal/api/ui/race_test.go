//go:build race

package ui

// raceDetector is set under the race detector, which slows SQLite's
// engine about 25 times: the soak then takes bigger steps through its
// simulated day.
const raceDetector = true
