package gateway

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// pairings is a fake Pairings: the users paired, as "platform/user".
type pairings struct {
	paired map[string]bool
	err    error
}

func (p pairings) Paired(_ context.Context, platform, user string) (bool, error) {
	return p.paired[platform+"/"+user], p.err
}

// allowed calls a.Allowed and fails on an error.
func allowed(t *testing.T, a Authorizer, platform, user string) (bool, string) {
	t.Helper()
	ok, why, err := a.Allowed(t.Context(), platform, user)
	if err != nil {
		t.Fatalf("Allowed(%s, %s): %v", platform, user, err)
	}
	return ok, why
}

// TestAuthorizerOrder: each rule allows in its turn and says so, and the
// first that allows decides.
func TestAuthorizerOrder(t *testing.T) {
	a := Authorizer{
		AllowAll:    map[string]bool{"webhook": true},
		Allow:       map[string][]string{"telegram": {"100", "200"}},
		GlobalAllow: []string{"200", "300"},
		Pairings:    pairings{paired: map[string]bool{"telegram/100": true, "webhook/1": true}},
	}
	for _, c := range []struct {
		platform, user string
		ok             bool
		why            string
	}{
		{"webhook", "1", true, "webhook allows everyone"},
		{"webhook", "anyone", true, "webhook allows everyone"},
		{"telegram", "100", true, "paired on telegram"},
		{"telegram", "200", true, "in the allowlist of telegram"},
		{"telegram", "300", true, "in the global allowlist"},
		{"email", "300", true, "in the global allowlist"},
		{"telegram", "400", false, "not paired on telegram nor in an allowlist"},
		{"telegram", "", false, "the message has no platform or user id"},
		{"webhook", "", false, "the message has no platform or user id"},
	} {
		if ok, why := allowed(t, a, c.platform, c.user); ok != c.ok || why != c.why {
			t.Errorf("Allowed(%s, %q) = %v %q, want %v %q", c.platform, c.user, ok, why, c.ok, c.why)
		}
	}
	if ok, _ := allowed(t, Authorizer{}, "telegram", "1"); ok {
		t.Error("the zero Authorizer allows")
	}
}

// TestAuthorizerAttacks: ids that resemble allowed ones, and allowances
// of another platform, are denied.
func TestAuthorizerAttacks(t *testing.T) {
	a := Authorizer{
		AllowAll:    map[string]bool{"webhook": true},
		Allow:       map[string][]string{"telegram": {"12345"}, "email": {"Bob@Example.com"}},
		GlobalAllow: []string{"alice@example.com", "kate@example.com", "sam@example.com", "42"},
		Pairings:    pairings{paired: map[string]bool{"email/eve@example.com": true}},
	}
	for _, c := range []struct{ platform, user, attack string }{
		{"telegram", "1234", "prefix of an allowed id"},
		{"telegram", "123456", "allowed id as a prefix"},
		{"telegram", "012345", "allowed id as a suffix"},
		{"telegram", "12345 ", "trailing space"},
		{"telegram", "412", "global id as a suffix"},
		{"telegram", "eve@example.com", "paired on another platform"},
		{"email", "12345", "allowlisted on another platform"},
		{"telegram", "anyone", "allow-all of another platform"},
		{"email", "bob@example.com.evil", "address as a prefix"},
		{"email", "xbob@example.com", "address as a suffix"},
		{"email", "alice@example.co", "prefix of an address"},
		{"email", "\u212aate@example.com", "Kelvin sign folding to k"},
		{"email", "\u017fam@example.com", "long s folding to s"},
	} {
		if ok, why := allowed(t, a, c.platform, c.user); ok {
			t.Errorf("%s: Allowed(%s, %q) = true (%s)", c.attack, c.platform, c.user, why)
		}
	}
	for _, user := range []string{"bob@example.com", "BOB@EXAMPLE.COM"} {
		if ok, _ := allowed(t, a, "email", user); !ok {
			t.Errorf("address %q in another case is denied", user)
		}
	}
	if ok, _ := allowed(t, a, "email", "ALICE@example.com"); !ok {
		t.Error("a global address in another case is denied")
	}
}

// TestAuthorizerPairingsError: when pairings cannot be read an
// allowlisted user still gets through, and anyone else is denied with
// the error.
func TestAuthorizerPairingsError(t *testing.T) {
	broken := errors.New("disk I/O error")
	a := Authorizer{Allow: map[string][]string{"telegram": {"1"}}, Pairings: pairings{err: broken}}
	if ok, _, err := a.Allowed(t.Context(), "telegram", "1"); !ok || err != nil {
		t.Errorf("allowlisted user: %v, %v", ok, err)
	}
	ok, _, err := a.Allowed(t.Context(), "telegram", "2")
	if ok || !errors.Is(err, broken) || !strings.Contains(err.Error(), `user "2" on telegram`) {
		t.Errorf("other user: %v, %v", ok, err)
	}
}
