package notify

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/hermes-go/hermes/internal/safety/redact"
)

// SendError is a classified failure of one try. Transient failures are
// retried (after RetryAfter when the platform named a wait); permanent
// ones end the target's turn in the chain.
type SendError struct {
	Msg        string
	Transient  bool
	RetryAfter time.Duration
	Err        error
}

func (e *SendError) Error() string {
	if e.Err != nil {
		return e.Msg + ": " + e.Err.Error()
	}
	return e.Msg
}

func (e *SendError) Unwrap() error { return e.Err }

// Transient returns a failure worth another try.
func Transient(format string, args ...any) *SendError {
	return &SendError{Msg: fmt.Sprintf(format, args...), Transient: true}
}

// Permanent returns a failure another try would only repeat.
func Permanent(format string, args ...any) *SendError {
	return &SendError{Msg: fmt.Sprintf(format, args...)}
}

// wrapTransient keeps err (for errors.Is) under a message of our own.
func wrapTransient(err error, format string, args ...any) *SendError {
	return &SendError{Msg: fmt.Sprintf(format, args...), Transient: true, Err: err}
}

// classify reports whether err deserves another try and how long the
// platform asked to wait. Unclassified errors are transient: a target
// that forgot to classify should not lose a delivery to a network blip.
func classify(err error) (transient bool, wait time.Duration) {
	var se *SendError
	if errors.As(err, &se) {
		return se.Transient, se.RetryAfter
	}
	return true, 0
}

// masker hides a target's secrets in text about it. Secrets are replaced
// whole, longest first, then anything that looks like a credential by
// its format is redacted too.
type masker struct {
	r *strings.Replacer
}

// minMasked is the shortest value masked: shorter ones ("1", a port)
// would blank out ordinary words.
const minMasked = 6

func newMasker(secrets []string) masker {
	var pairs []string
	for _, s := range longestFirst(secrets) {
		if len(s) >= minMasked {
			pairs = append(pairs, s, "****")
		}
	}
	if len(pairs) == 0 {
		return masker{}
	}
	return masker{r: strings.NewReplacer(pairs...)}
}

func (m masker) mask(text string) string {
	if m.r != nil {
		text = m.r.Replace(text)
	}
	return redact.Secrets(text)
}

func longestFirst(in []string) []string {
	out := append([]string(nil), in...)
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && len(out[j]) > len(out[j-1]); j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

// tail shows the last four characters of a secret, enough for a person
// to tell two keys apart, and stars for the rest.
func tail(secret string) string {
	if len(secret) <= 8 {
		return "****"
	}
	return "****" + secret[len(secret)-4:]
}
