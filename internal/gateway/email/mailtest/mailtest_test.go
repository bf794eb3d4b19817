package mailtest

import (
	"strings"
	"testing"

	"github.com/emersion/go-smtp"
)

// The servers start, a delivered mail is unread in the mailbox, and a mail
// sent over SMTP is seen through Mailpit's API.
func TestServers(t *testing.T) {
	s := Start(t)
	uid := s.Deliver(t, "INBOX", "From: ana@example.com\nTo: hermes@example.com\nSubject: hi\nMessage-ID: <1@example.com>\n\nhello\n")
	if uid == 0 || s.Seen(t, "INBOX", uid) {
		t.Errorf("delivered mail: uid %d, seen %v; want an unread mail", uid, s.Seen(t, "INBOX", uid))
	}
	c, err := smtp.Dial(s.SMTPAddr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	msg := "From: hermes@example.com\r\nTo: ana@example.com\r\nSubject: re\r\nMessage-ID: <2@example.com>\r\n\r\nhi\r\n"
	if err := c.SendMail("hermes@example.com", []string{"ana@example.com"}, strings.NewReader(msg)); err != nil {
		t.Fatal(err)
	}
	if got := s.Next(t); got.Header("Message-Id") != "<2@example.com>" {
		t.Errorf("mailpit received %q", got.Raw)
	}
	if n := s.Count(t); n != 1 {
		t.Errorf("count = %d, want 1", n)
	}
}
