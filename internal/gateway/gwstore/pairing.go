package gwstore

import (
	"crypto/rand"
	"errors"
	"fmt"
	"strings"
	"time"
)

// The pairing rules, as Hermes Agent has them: a code is short enough to
// read out and type, from an alphabet without the look-alikes 0/O and
// 1/I, lives an hour, and the limits keep a stranger from filling the
// owner's list or guessing a code.
const (
	// CodeAlphabet is every character a pairing code may hold.
	CodeAlphabet = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
	// CodeLength is the number of characters of a code.
	CodeLength = 8
	// CodeTTL is how long a code can be approved after it was issued.
	CodeTTL = time.Hour
	// RequestEvery is how often one user may be issued a new code; within
	// it, asking again returns the pending code.
	RequestEvery = 10 * time.Minute
	// MaxPending is the most codes one platform has pending at a time.
	MaxPending = 3
	// MaxFailures is how many failed approvals in a row lock a
	// platform's pairing.
	MaxFailures = 5
	// LockFor is how long a locked platform's pairing stays locked.
	LockFor = time.Hour
)

// Sentinel errors of pairing, wrapped by the errors the store returns.
var (
	// ErrPairingLocked: too many failed approvals; no code is issued or
	// approved on the platform until the lock ends.
	ErrPairingLocked = errors.New("gateway: pairing locked")
	// ErrTooManyPending: the platform has MaxPending codes waiting.
	ErrTooManyPending = errors.New("gateway: too many pending pairing codes")
	// ErrNoSuchCode: the code is not pending on the platform (never
	// issued, expired, or already approved).
	ErrNoSuchCode = errors.New("gateway: no such pairing code")
	// ErrBadCode: the code is not CodeLength characters of CodeAlphabet.
	ErrBadCode = errors.New("gateway: malformed pairing code")
	// ErrNotPaired: the user has no approved pairing on the platform.
	ErrNotPaired = errors.New("gateway: user not paired")
)

// RefusedError says why no code was issued to a user, in words the
// gateway can send the user as they are.
type RefusedError struct {
	// Reason is ErrPairingLocked or ErrTooManyPending.
	Reason   error
	Platform string
	// Until is when asking again can succeed: the end of the lock, or
	// when the oldest pending code expires.
	Until time.Time
}

func (e *RefusedError) Error() string {
	until := e.Until.UTC().Format("15:04 UTC")
	if errors.Is(e.Reason, ErrPairingLocked) {
		return fmt.Sprintf("pairing on %s is locked until %s after %d failed approvals; ask again after that", e.Platform, until, MaxFailures)
	}
	return fmt.Sprintf("%s already has %d pairing codes waiting for approval, the most allowed; ask the owner to approve one, or ask again after %s", e.Platform, MaxPending, until)
}

func (e *RefusedError) Unwrap() error { return e.Reason }

// NormalizeCode returns code as the store keeps codes: without
// surrounding spaces and in upper case, so an owner may type it in lower
// case. A code that is not CodeLength characters of CodeAlphabet is an
// error naming it and what is accepted.
func NormalizeCode(code string) (string, error) {
	c := strings.ToUpper(strings.TrimSpace(code))
	ok := len(c) == CodeLength
	for i := 0; ok && i < len(c); i++ {
		ok = strings.IndexByte(CodeAlphabet, c[i]) >= 0
	}
	if !ok {
		return "", fmt.Errorf("%w %q: a code is %d characters from %s", ErrBadCode, code, CodeLength, CodeAlphabet)
	}
	return c, nil
}

// newCode draws a code from read, a source of random bytes. The alphabet
// has 32 characters, so the low five bits of a byte pick one without bias.
func newCode(read func([]byte) error) (string, error) {
	var b [CodeLength]byte
	if err := read(b[:]); err != nil {
		return "", fmt.Errorf("draw a pairing code: %w", err)
	}
	for i := range b {
		b[i] = CodeAlphabet[b[i]&31]
	}
	return string(b[:]), nil
}

// cryptoRand fills b from crypto/rand.
func cryptoRand(b []byte) error {
	_, err := rand.Read(b)
	return err
}
