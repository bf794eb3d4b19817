//go:build race

package storage_test

// raceDetector is set when the tests run under the race detector, which
// slows SQLite's engine about 25 times: the search comparison then
// migrates a smaller home.
const raceDetector = true
