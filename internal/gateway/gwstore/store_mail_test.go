package gwstore

import (
	"testing"

	"github.com/hermes-go/hermes/internal/clock"
	"github.com/hermes-go/hermes/internal/dbtest"
)

// A mailbox's cursor and a thread's last message are kept across a
// restart (a second store over the same file), and updated in place.
func TestMailStateSurvivesRestart(t *testing.T) {
	each(t, func(t *testing.T, s *Store, clk *clock.Fake, x dbtest.Target) {
		ctx := t.Context()
		if v, last, err := s.MailCursor(ctx, "hermes@imap/INBOX"); err != nil || v != 0 || last != 0 {
			t.Fatalf("new cursor = %d, %d, %v; want zeros", v, last, err)
		}
		if err := s.SetMailCursor(ctx, "hermes@imap/INBOX", 7, 41); err != nil {
			t.Fatal(err)
		}
		if err := s.SetMailCursor(ctx, "hermes@imap/INBOX", 7, 42); err != nil {
			t.Fatal(err)
		}
		th := MailThread{Subject: "Plans", LastID: "<b@x>", References: "<a@x>"}
		if err := s.SetMailThread(ctx, "ana@example.com", "<a@x>", th); err != nil {
			t.Fatal(err)
		}

		s2 := storeAt(t, x, clk)
		if v, last, err := s2.MailCursor(ctx, "hermes@imap/INBOX"); err != nil || v != 7 || last != 42 {
			t.Errorf("cursor after restart = %d, %d, %v; want 7, 42", v, last, err)
		}
		if v, last, _ := s2.MailCursor(ctx, "hermes@imap/Other"); v != 0 || last != 0 {
			t.Errorf("another mailbox's cursor = %d, %d; want zeros", v, last)
		}
		got, ok, err := s2.MailThread(ctx, "ana@example.com", "<a@x>")
		if err != nil || !ok || got != th {
			t.Errorf("thread after restart = %+v, %v, %v; want %+v", got, ok, err, th)
		}
		if _, ok, _ := s2.MailThread(ctx, "bob@example.com", "<a@x>"); ok {
			t.Error("a thread of another correspondent is known")
		}
	})
}
