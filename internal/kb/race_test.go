//go:build race

package kb

// raceDetector is set when the tests run under the race detector, which
// slows SQLite's engine about 25 times: measurement tests then sample
// fewer of their cases, with the same floors.
const raceDetector = true
