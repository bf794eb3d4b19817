package dingtalk

import (
	"context"
	"strings"
	"testing"
)

// Check says who hermes is and how messages come, and why it would not
// connect when the credentials are refused, without the secret.
func TestCheck(t *testing.T) {
	f := newFixture(t, nil, "")
	who, err := f.a.Check(context.Background())
	if err != nil || who != "robot "+f.srv.ClientID+", messages over a Stream connection" {
		t.Errorf("Check = %q, %v", who, err)
	}
	h := newFixture(t, nil, "/dingtalk")
	if who, err := h.a.Check(context.Background()); err != nil || !strings.Contains(who, "HTTP callback on /dingtalk") {
		t.Errorf("Check = %q, %v", who, err)
	}
	f.a.tokens.drop()
	f.a.secret = "wrong-secret-value"
	who, err = f.a.Check(context.Background())
	if err == nil || !strings.Contains(err.Error(), "check client_id and client_secret") || strings.Contains(err.Error(), "wrong-secret-value") {
		t.Errorf("Check with a wrong secret = %q, %v", who, err)
	}
}

// New names what is wrong with its options.
func TestNewRefusesBadOptions(t *testing.T) {
	for _, c := range []struct {
		o    Options
		want string
	}{
		{Options{ClientID: "x"}, "client_id and client_secret are both needed"},
		{Options{ClientID: "x", ClientSecret: "y", BaseURL: "api.dingtalk.com"}, `base_url "api.dingtalk.com" is not an http or https URL`},
		{Options{ClientID: "x", ClientSecret: "y", HTTPPath: "dingtalk"}, `path "dingtalk" does not start with /`},
	} {
		if _, err := New(c.o); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("New(%+v) = %v, want %q", c.o, err, c.want)
		}
	}
}
