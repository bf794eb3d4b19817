//go:build !race

package storage_test

// raceDetector: see race_test.go.
const raceDetector = false
