package dingtalk

import (
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/notify"
)

// PLATFORMS.md §10's DingTalk vector (timestamp 1700000000000, secret
// SECdemo) holds for the signature callbacks are checked with.
func TestSignKnownAnswer(t *testing.T) {
	if got := notify.DingTalkSign("1700000000000", "SECdemo"); got != "lOvVf9TQCVugV68mGbSZCg0gzOl1SVjxWi1MyVZCUuA=" {
		t.Errorf("DingTalkSign = %q", got)
	}
}

// Every way a callback's headers can fail is refused, and no refusal
// names the secret or the expected signature.
func TestVerifyRefusesForgeries(t *testing.T) {
	const secret = "app-secret-value"
	now := time.UnixMilli(1700000000000)
	ts := "1700000000000"
	good := notify.DingTalkSign(ts, secret)
	if err := verify(ts, good, secret, now); err != nil {
		t.Fatalf("a good signature: %v", err)
	}
	old := "1699996399999" // an hour and a millisecond ago
	for _, c := range []struct{ name, ts, sign, want string }{
		{"no headers", "", "", "both needed"},
		{"no sign", ts, "", "both needed"},
		{"wrong secret", ts, notify.DingTalkSign(ts, "other"), "does not match"},
		{"sign of another time", ts, notify.DingTalkSign("1700000000001", secret), "does not match"},
		{"not base64", ts, "%%%", "does not match"},
		{"truncated sign", ts, good[:20], "does not match"},
		{"stale", old, notify.DingTalkSign(old, secret), "from now"},
		{"future", "1700003600001", notify.DingTalkSign("1700003600001", secret), "from now"},
		{"seconds not ms", "1700000000", notify.DingTalkSign("1700000000", secret), "from now"},
		{"not a number", "soon", notify.DingTalkSign("soon", secret), "not milliseconds"},
		{"negative", "-5", notify.DingTalkSign("-5", secret), "not milliseconds"},
	} {
		err := verify(c.ts, c.sign, secret, now)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error saying %q", c.name, err, c.want)
			continue
		}
		if strings.Contains(err.Error(), secret) || strings.Contains(err.Error(), good) {
			t.Errorf("%s: the error gives away a secret: %v", c.name, err)
		}
	}
}
