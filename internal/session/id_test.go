package session_test

import (
	"regexp"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/session"
)

func TestNewID(t *testing.T) {
	at := time.Date(2026, 12, 2, 19, 7, 37, 0, time.FixedZone("CST", 8*3600))
	id := session.NewID(at)
	if !regexp.MustCompile(`^20261202_110737_[0-9a-f]{6}$`).MatchString(id) {
		t.Errorf("NewID = %q, want 20261202_110737_ (the time in UTC) and six hex digits", id)
	}
	if other := session.NewID(at); other == id {
		t.Errorf("two ids in one second are both %q", id)
	}
}
