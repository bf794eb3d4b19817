package gateway

import (
	"context"
	"fmt"
	"strings"
)

// Pairings says which users the owner paired with hermes on a platform
// (gwstore.Store has them in state.db).
type Pairings interface {
	Paired(ctx context.Context, platform, user string) (bool, error)
}

// Authorizer decides who may talk to hermes, in Hermes Agent's order:
// a platform that allows everyone, then approved pairings, then the
// platform's allowlist, then the global allowlist; anyone else is
// denied. Its fields are the configuration's values; the zero value
// denies everyone.
type Authorizer struct {
	// AllowAll lists the platforms where anyone may talk to hermes.
	AllowAll map[string]bool
	// Allow is each platform's allowlist of user ids.
	Allow map[string][]string
	// GlobalAllow is the allowlist of every platform.
	GlobalAllow []string
	// Pairings are the approved pairings; nil means none.
	Pairings Pairings
}

// Allowed reports whether user may talk to hermes on platform, and the
// rule that decided, for the log. Allowlist entries compare exactly with
// the user's id, except entries with an @, which are email addresses and
// compare without regard to ASCII case. A user without an id is denied:
// hermes could not tell them from anyone else. When the pairings cannot
// be read, the allowlists are still consulted, and the error is returned
// only when they do not allow the user.
func (a Authorizer) Allowed(ctx context.Context, platform, user string) (bool, string, error) {
	if platform == "" || user == "" {
		return false, "the message has no platform or user id", nil
	}
	if a.AllowAll[platform] {
		return true, platform + " allows everyone", nil
	}
	var pairErr error
	if a.Pairings != nil {
		ok, err := a.Pairings.Paired(ctx, platform, user)
		if err != nil {
			pairErr = fmt.Errorf("gateway: authorize user %q on %s: %w", user, platform, err)
		} else if ok {
			return true, "paired on " + platform, nil
		}
	}
	if listed(a.Allow[platform], user) {
		return true, "in the allowlist of " + platform, nil
	}
	if listed(a.GlobalAllow, user) {
		return true, "in the global allowlist", nil
	}
	if pairErr != nil {
		return false, "", pairErr
	}
	return false, "not paired on " + platform + " nor in an allowlist", nil
}

// listed reports whether an entry of list is user.
func listed(list []string, user string) bool {
	for _, entry := range list {
		if entry == user || strings.Contains(entry, "@") && asciiEqualFold(entry, user) {
			return true
		}
	}
	return false
}

// asciiEqualFold is strings.EqualFold for ASCII letters only: Unicode
// folding would let a user named with the Kelvin sign (U+212A) pass for
// an address with a k.
func asciiEqualFold(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		if lower(a[i]) != lower(b[i]) {
			return false
		}
	}
	return true
}

// lower is c in lower case when it is an ASCII capital letter.
func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}
