package engine

import (
	"crypto/rand"
	"encoding/hex"
)

// newTurnID is a turn's id in the logs: 8 random hex digits, enough to
// tell the turns of one session apart.
func newTurnID() string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
