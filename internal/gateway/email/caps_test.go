package email

import "testing"

// Two pollers of one mailbox would take the same mail, so replicas
// elect who polls.
func TestCapsOneConsumer(t *testing.T) {
	a, err := New(Options{IMAP: Server{Addr: "imap.example.com:993", TLS: NoTLS}, SMTP: Server{Addr: "smtp.example.com:465", TLS: NoTLS},
		Username: "hermes", Password: "secret", Address: "hermes@example.com"})
	if err != nil {
		t.Fatal(err)
	}
	if !a.Caps().OneConsumer {
		t.Fatal("email does not say it allows one consumer")
	}
}
