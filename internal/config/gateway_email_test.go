package config

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// emailYAML is a gateway.email section with one line replaced or added.
func emailYAML(extra string) string {
	lines := map[string]string{
		"imap":     "imap: {addr: \"127.0.0.1:1143\", tls: none}",
		"smtp":     "smtp: {addr: \"127.0.0.1:1025\", tls: none}",
		"username": "username: hermes",
		"password": "password: ${EMAIL_PASSWORD}",
		"address":  "address: hermes@example.com",
	}
	if k, _, ok := strings.Cut(extra, ":"); ok {
		lines[k] = extra
	}
	var b strings.Builder
	b.WriteString("gateway:\n  email:\n")
	for _, k := range []string{"imap", "smtp", "username", "password", "address", "mailbox", "poll_every", "allow", "authserv_id"} {
		if l := lines[k]; l != "" {
			fmt.Fprintf(&b, "    %s\n", l)
		}
	}
	return b.String()
}

// The email section: its defaults, a working local setup, and every
// wrong value refused with its key, the value and what is accepted; the
// password never appears in an error.
func TestGatewayEmailSection(t *testing.T) {
	env := map[string]string{"EMAIL_PASSWORD": "s3cret-pass"}
	e := mustLoad(t, nil, nil, nil).Config.Gateway.Email
	if e.IMAP.TLS != MailTLSImplicit || e.SMTP.TLS != MailTLSStartTLS || e.Mailbox != "INBOX" || e.PollEvery != time.Minute || e.AllowAll {
		t.Errorf("defaults = %+v", e)
	}
	e = mustLoad(t, map[string]string{"config.yaml": emailYAML("allow: [ana@example.com]") + "    authserv_id: mx.google.com\n"}, env, nil).Config.Gateway.Email
	if e.IMAP.Addr != "127.0.0.1:1143" || e.SMTP.TLS != MailTLSNone || string(e.Password) != "s3cret-pass" || len(e.Allow) != 1 || e.AuthservID != "mx.google.com" {
		t.Errorf("email = %+v", e)
	}
	for _, tt := range []struct{ extra, want string }{
		{"imap: {addr: \"127.0.0.1:1143\", tls: ssl}", "none, starttls, tls"},
		{"imap: {addr: \"mail.example.com\", tls: tls}", `gateway.email.imap.addr: "mail.example.com" is not accepted; use host:port`},
		{"smtp: {addr: \"\"}", `gateway.email.smtp.addr: "" is not accepted; email needs both servers`},
		{"smtp: {addr: \"smtp.example.com:25\", tls: none}", `gateway.email.smtp.tls: "none" is not accepted for smtp.example.com`},
		{"username: \"\"", "gateway.email.username"},
		{"password: \"\"", "gateway.email.password"},
		{"address: Hermes <hermes@example.com>", "gateway.email.address"},
		{"address: hermes", `gateway.email.address: "hermes" is not accepted`},
		{"mailbox: \" \"", "gateway.email.mailbox"},
		{"authserv_id: \"mx.google.com; dkim=pass\"", `gateway.email.authserv_id: "mx.google.com; dkim=pass" is not accepted`},
		{"poll_every: 10ms", `gateway.email.poll_every: "10ms" is not accepted; use a duration of a second or more`},
		{"allow: [ana@example.com, \"not an address\"]", `gateway.email.allow[1]: "not an address" is not accepted`},
	} {
		_, err := loadFiles(t, map[string]string{"config.yaml": emailYAML(tt.extra)}, env, nil)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want an error with %q", tt.extra, err, tt.want)
		} else if strings.Contains(err.Error(), "s3cret-pass") {
			t.Errorf("%s: the error shows the password: %v", tt.extra, err)
		}
	}
}
