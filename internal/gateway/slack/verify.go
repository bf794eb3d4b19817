package slack

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Tolerance is how far a request's timestamp may be from now: Slack's
// five minutes, so a captured request cannot be replayed later.
const Tolerance = 5 * time.Minute

// Signature is Slack's signature of a request: "v0=" and the hex
// HMAC-SHA256, keyed by the signing secret, of "v0:timestamp:body".
func Signature(secret, timestamp string, body []byte) string {
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte("v0:" + timestamp + ":"))
	mac.Write(body)
	return "v0=" + hex.EncodeToString(mac.Sum(nil))
}

// verify checks the signature and timestamp of a request on its raw
// body, before anything reads it. The errors name what is wrong but
// never the secret, nor the signature expected.
func verify(secret string, h http.Header, body []byte, now time.Time) error {
	tsText := h.Get("X-Slack-Request-Timestamp")
	ts, err := strconv.ParseInt(tsText, 10, 64)
	if err != nil {
		return fmt.Errorf("X-Slack-Request-Timestamp %q is not a Unix time in seconds", tsText)
	}
	if d := now.Sub(time.Unix(ts, 0)); d > Tolerance || d < -Tolerance {
		return fmt.Errorf("X-Slack-Request-Timestamp %d is %s from now; Slack's requests are at most %s old", ts, d.Round(time.Second), Tolerance)
	}
	got := h.Get("X-Slack-Signature")
	hexSig, ok := strings.CutPrefix(got, "v0=")
	sig, err := hex.DecodeString(hexSig)
	if !ok || err != nil || len(sig) != sha256.Size {
		return fmt.Errorf("X-Slack-Signature (%d characters) is not v0= and 64 hex digits", len(got))
	}
	want, _ := hex.DecodeString(strings.TrimPrefix(Signature(secret, tsText, body), "v0="))
	if !hmac.Equal(sig, want) {
		return fmt.Errorf("X-Slack-Signature does not match the body and the signing secret")
	}
	return nil
}
