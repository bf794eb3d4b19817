package session

import (
	"crypto/rand"
	"encoding/hex"
	"time"
)

// idTimeLayout puts the time first so ids sort by creation second, the
// way people read them in file names and logs.
const idTimeLayout = "20060102_150405"

// NewID returns a fresh session id such as "20261202_110737_a1b2c3": the
// time t in UTC to the second, then six random hex digits so sessions
// started in the same second by different processes do not collide.
// Stores call it when a session is created without an id.
func NewID(t time.Time) string {
	var b [3]byte
	// crypto/rand.Read never fails (it panics on a broken system source).
	_, _ = rand.Read(b[:])
	return t.UTC().Format(idTimeLayout) + "_" + hex.EncodeToString(b[:])
}
