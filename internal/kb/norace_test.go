//go:build !race

package kb

// raceDetector: see race_test.go.
const raceDetector = false
