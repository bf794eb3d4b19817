//go:build !race

package ui

// raceDetector: see race_test.go.
const raceDetector = false
