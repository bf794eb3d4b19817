//go:build race

package storage_test

// raceDetector is set when the tests run under the race detector, which
// slows SQLite's engine about 25 times: the search comparison over a
// large generated home then does not run.
const raceDetector = true
