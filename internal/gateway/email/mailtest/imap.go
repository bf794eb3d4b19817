package mailtest

import (
	"testing"

	"github.com/emersion/go-imap/v2"
	"github.com/emersion/go-imap/v2/imapclient"
)

// login opens an IMAP session of its own, as a mail program beside
// hermes would, closed when fn returns.
func (s *Server) login(t testing.TB, fn func(c *imapclient.Client)) {
	t.Helper()
	c, err := imapclient.DialInsecure(s.IMAPAddr, nil)
	if err != nil {
		t.Fatalf("mailtest: imap dial: %v", err)
	}
	defer c.Close()
	if err := c.Login(s.User, s.Password).Wait(); err != nil {
		t.Fatalf("mailtest: imap login: %v", err)
	}
	fn(c)
	_ = c.Logout().Wait()
}

// Deliver puts raw (a whole message, CRLF or LF line ends) into mailbox
// as delivered mail: unread, with IMAP APPEND. It returns the message's
// UID.
func (s *Server) Deliver(t testing.TB, mailbox, raw string) imap.UID {
	t.Helper()
	var uid imap.UID
	s.login(t, func(c *imapclient.Client) {
		data := []byte(crlf(raw))
		cmd := c.Append(mailbox, int64(len(data)), nil)
		if _, err := cmd.Write(data); err != nil {
			t.Fatalf("mailtest: append: %v", err)
		}
		if err := cmd.Close(); err != nil {
			t.Fatalf("mailtest: append: %v", err)
		}
		res, err := cmd.Wait()
		if err != nil {
			t.Fatalf("mailtest: append to %s: %v", mailbox, err)
		}
		uid = res.UID
	})
	return uid
}

// Seen reports whether the message uid of mailbox has the \Seen flag.
func (s *Server) Seen(t testing.TB, mailbox string, uid imap.UID) bool {
	t.Helper()
	seen := false
	s.login(t, func(c *imapclient.Client) {
		if _, err := c.Select(mailbox, &imap.SelectOptions{ReadOnly: true}).Wait(); err != nil {
			t.Fatalf("mailtest: select %s: %v", mailbox, err)
		}
		msgs, err := c.Fetch(imap.UIDSetNum(uid), &imap.FetchOptions{Flags: true}).Collect()
		if err != nil || len(msgs) != 1 {
			t.Fatalf("mailtest: fetch flags of %d: %v (%d messages)", uid, err, len(msgs))
		}
		for _, f := range msgs[0].Flags {
			seen = seen || f == imap.FlagSeen
		}
	})
	return seen
}

// Create makes mailbox.
func (s *Server) Create(t testing.TB, mailbox string) {
	t.Helper()
	s.login(t, func(c *imapclient.Client) {
		if err := c.Create(mailbox, nil).Wait(); err != nil {
			t.Fatalf("mailtest: create %s: %v", mailbox, err)
		}
	})
}

// Recreate deletes mailbox and makes it again, empty, with a new
// UIDVALIDITY: its UIDs start over, as after a server's mailbox was
// rebuilt.
func (s *Server) Recreate(t testing.TB, mailbox string) {
	t.Helper()
	s.login(t, func(c *imapclient.Client) {
		if err := c.Delete(mailbox).Wait(); err != nil {
			t.Fatalf("mailtest: delete %s: %v", mailbox, err)
		}
		if err := c.Create(mailbox, nil).Wait(); err != nil {
			t.Fatalf("mailtest: create %s: %v", mailbox, err)
		}
	})
}

// crlf gives raw CRLF line ends, as mail on the wire has.
func crlf(raw string) string {
	out := make([]byte, 0, len(raw)+32)
	for i := 0; i < len(raw); i++ {
		if raw[i] == '\n' && (i == 0 || raw[i-1] != '\r') {
			out = append(out, '\r')
		}
		out = append(out, raw[i])
	}
	return string(out)
}

// MarkUnread takes the \Seen flag off message uid of mailbox, as a person
// reading the mailbox in a mail program may.
func (s *Server) MarkUnread(t testing.TB, mailbox string, uid imap.UID) {
	t.Helper()
	s.login(t, func(c *imapclient.Client) {
		if _, err := c.Select(mailbox, nil).Wait(); err != nil {
			t.Fatalf("mailtest: select %s: %v", mailbox, err)
		}
		flags := &imap.StoreFlags{Op: imap.StoreFlagsDel, Silent: true, Flags: []imap.Flag{imap.FlagSeen}}
		if err := c.Store(imap.UIDSetNum(uid), flags, nil).Close(); err != nil {
			t.Fatalf("mailtest: store -\\Seen on %d: %v", uid, err)
		}
	})
}
