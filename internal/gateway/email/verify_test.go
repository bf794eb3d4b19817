package email

import (
	"bufio"
	"strings"
	"testing"

	"github.com/emersion/go-message/textproto"

	"github.com/emersion/go-message"
)

// headerOf reads raw header lines.
func headerOf(t *testing.T, raw string) message.Header {
	t.Helper()
	h, err := textproto.ReadHeader(bufio.NewReader(strings.NewReader(strings.ReplaceAll(raw, "\n", "\r\n") + "\r\n")))
	if err != nil {
		t.Fatal(err)
	}
	return message.Header{Header: h}
}

// Only the receiving server's own record counts, and only a DKIM or
// DMARC pass for the From domain itself: records other senders wrote
// into the mail, failures, and passes for other domains do not.
func TestVerified(t *testing.T) {
	gmail := "Authentication-Results: mx.google.com;\n       dkim=pass header.i=@example.com header.s=s1 header.b=abc;\n       spf=pass (google.com: domain of ana@example.com designates 1.2.3.4 as permitted sender) smtp.mailfrom=ana@example.com;\n       dmarc=pass (p=REJECT sp=REJECT dis=NONE) header.from=example.com\n"
	for _, tt := range []struct {
		name, headers string
		want          bool
	}{
		{"gmail pass", gmail, true},
		{"dkim d= pass", "Authentication-Results: mx.google.com; dkim=pass header.d=example.com\n", true},
		{"dkim of a parent domain", "Authentication-Results: mx.google.com; dkim=pass header.d=example.com\n", true},
		{"dmarc only", "Authentication-Results: MX.Google.com (v1); dmarc=pass header.from=example.com\n", true},
		{"spf only", "Authentication-Results: mx.google.com; spf=pass smtp.mailfrom=ana@example.com\n", false},
		{"dkim fail", "Authentication-Results: mx.google.com; dkim=fail header.d=example.com; dmarc=fail header.from=example.com\n", false},
		{"dkim of another domain", "Authentication-Results: mx.google.com; dkim=pass header.d=attacker.net; dmarc=fail header.from=example.com\n", false},
		{"dkim of a top-level domain", "Authentication-Results: mx.google.com; dkim=pass header.d=com\n", false},
		{"no record", "Received: from x\n", false},
		{"record of another server", "Authentication-Results: evil.example.net; dkim=pass header.d=example.com; dmarc=pass header.from=example.com\n", false},
		{"forged record below the server's", "Authentication-Results: mx.google.com; dkim=none; dmarc=fail header.from=example.com\nAuthentication-Results: mx.google.com; dkim=pass header.d=example.com\n", false},
		{"pass hidden in a comment", "Authentication-Results: mx.google.com; dkim=fail (dkim=pass header.d=example.com) header.d=example.com\n", false},
	} {
		from := "sub.example.com"
		if tt.name != "dkim of a parent domain" {
			from = "example.com"
		}
		if got := verified(headerOf(t, tt.headers), "mx.google.com", from); got != tt.want {
			t.Errorf("%s: verified = %v, want %v", tt.name, got, tt.want)
		}
	}
}
