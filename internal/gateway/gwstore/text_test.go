package gwstore

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/hermes-go/hermes/internal/clock"
	"github.com/hermes-go/hermes/internal/dbtest"
	"github.com/hermes-go/hermes/internal/sqldb"
)

// raw are strings PostgreSQL's text cannot hold as they are (NUL,
// invalid UTF-8) and strings that look like the store's escapes of them;
// each is a different string and must stay one.
var raw = []string{
	"a\x00b", "a\xffb", "a\xfeb", "a\uFFFDb", "a\uFFFDffb", "a\uFFFDub", "a\uFFFD00b",
	"\x00", "\xff", "\uFFFD", "\uFFFD\uFFFD", "Re: caf\xe9 \x00 \xc3", "tail\uFFFD", "tail\uFFFDf",
}

// TestHoldArbitraryBytes: a held event is kept byte for byte, whatever
// its bytes: every byte value, NUL and invalid UTF-8 included.
func TestHoldArbitraryBytes(t *testing.T) {
	var event []byte
	for i := range 512 {
		event = append(event, byte(i))
	}
	each(t, func(t *testing.T, s *Store, clk *clock.Fake, x dbtest.Target) {
		if _, err := s.Hold(t.Context(), "webhook:\x00hook", "id\xff\x00", event, false); err != nil {
			t.Fatal(err)
		}
		held, err := storeAt(t, x, clk).HeldMessages(t.Context())
		if err != nil || len(held) != 1 {
			t.Fatalf("HeldMessages = %+v, %v", held, err)
		}
		h := held[0]
		if !bytes.Equal(h.Event, event) || h.Platform != "webhook:\x00hook" || h.EventID != "id\xff\x00" {
			t.Errorf("held = %q %q %q, want the event, platform and id as held", h.Event, h.Platform, h.EventID)
		}
	})
}

// TestSeenTextAsIs: event ids and platforms with NUL or invalid UTF-8
// (a webhook's JSON id, a mail's Message-ID) are recorded, and each is
// an event of its own: none is taken for another.
func TestSeenTextAsIs(t *testing.T) {
	each(t, func(t *testing.T, s *Store, clk *clock.Fake, x dbtest.Target) {
		ctx := t.Context()
		for _, platform := range []string{"email", "hook\x00\xff"} {
			for _, id := range raw {
				if first, err := s.Seen(ctx, platform, id, time.Hour); err != nil || !first {
					t.Errorf("Seen(%q, %q) = %v, %v; want a first delivery", platform, id, first, err)
				}
			}
			other := storeAt(t, x, clk)
			for _, id := range raw {
				if first, err := other.Seen(ctx, platform, id, time.Hour); err != nil || first {
					t.Errorf("redelivered Seen(%q, %q) = %v, %v; want not first", platform, id, first, err)
				}
			}
		}
	})
}

// TestMailAndChatTextAsIs: what users put in mail (subjects, Message-IDs,
// addresses) and in chat commands (/model, /agent), and platform cursors,
// read back exactly as written, NUL and invalid UTF-8 included, each
// under its own key.
func TestMailAndChatTextAsIs(t *testing.T) {
	each(t, func(t *testing.T, s *Store, clk *clock.Fake, x dbtest.Target) {
		ctx := t.Context()
		for i, v := range raw {
			th := MailThread{Subject: "Re: " + v, LastID: "<" + v + "@x>", References: v}
			if err := s.SetMailThread(ctx, "ana"+v+"@example.com", v, th); err != nil {
				t.Fatalf("SetMailThread with %q: %v", v, err)
			}
			if err := s.SetMailCursor(ctx, "INBOX"+v, 1, uint32(i)); err != nil {
				t.Fatalf("SetMailCursor(%q): %v", "INBOX"+v, err)
			}
			if err := s.SetChatModel(ctx, "key"+v, "model"+v); err != nil {
				t.Fatalf("SetChatModel with %q: %v", v, err)
			}
			if err := s.SetChatAgent(ctx, "key"+v, "agent"+v); err != nil {
				t.Fatalf("SetChatAgent with %q: %v", v, err)
			}
			if err := s.SaveCursor(ctx, "matrix"+v, "since"+v, "s"+v); err != nil {
				t.Fatalf("SaveCursor with %q: %v", v, err)
			}
			if err := s.Bind(ctx, "key"+v, "session"+v); err != nil {
				t.Fatalf("Bind with %q: %v", v, err)
			}
		}
		r := storeAt(t, x, clk)
		for i, v := range raw {
			want := MailThread{Subject: "Re: " + v, LastID: "<" + v + "@x>", References: v}
			if got, ok, err := r.MailThread(ctx, "ana"+v+"@example.com", v); err != nil || !ok || got != want {
				t.Errorf("MailThread of %q = %q, %v, %v; want %q", v, got, ok, err, want)
			}
			if _, last, err := r.MailCursor(ctx, "INBOX"+v); err != nil || last != uint32(i) {
				t.Errorf("MailCursor(%q) = %d, %v; want %d", "INBOX"+v, last, err, i)
			}
			if got, err := r.ChatModel(ctx, "key"+v); err != nil || got != "model"+v {
				t.Errorf("ChatModel(%q) = %q, %v", "key"+v, got, err)
			}
			if got, err := r.ChatAgent(ctx, "key"+v); err != nil || got != "agent"+v {
				t.Errorf("ChatAgent(%q) = %q, %v", "key"+v, got, err)
			}
			if got, err := r.Cursor(ctx, "matrix"+v, "since"+v); err != nil || got != "s"+v {
				t.Errorf("Cursor(%q) = %q, %v", "matrix"+v, got, err)
			}
			if got, _, err := r.Resolve(ctx, "key"+v, clk.Now(), ResetPolicy{}); err != nil || got != "session"+v {
				t.Errorf("Resolve(%q) = %q, %v", "key"+v, got, err)
			}
		}
	})
}

// TestPairingTextAsIs: a user id with NUL or invalid UTF-8 (a forged
// From line) is paired as it is and listed as it is; no other id, not
// one its bytes would be replaced with, passes for it. An address still
// matches in any ASCII case.
func TestPairingTextAsIs(t *testing.T) {
	each(t, func(t *testing.T, s *Store, clk *clock.Fake, x dbtest.Target) {
		ctx := t.Context()
		for _, user := range []string{"K\xffate@Example.com", "\x00ab"} {
			code, _ := request(t, s, "email", user)
			if _, err := s.Approve(ctx, "email", code); err != nil {
				t.Fatal(err)
			}
			clk.Advance(time.Second)
		}
		r := storeAt(t, x, clk)
		for user, want := range map[string]bool{
			"K\xffate@Example.com":     true,
			"k\xffate@example.com":     true,
			"K\xfeate@Example.com":     false,
			"K\uFFFDate@Example.com":   false,
			"K\uFFFDffate@Example.com": false,
			"K\uFFFDFFate@Example.com": false,
			"\x00ab":                   true,
			"\x00AB":                   false,
			"\uFFFDab":                 false,
			"\uFFFD00ab":               false,
			"ab":                       false,
		} {
			if ok, err := r.Paired(ctx, "email", user); err != nil || ok != want {
				t.Errorf("Paired(email, %q) = %v, %v; want %v", user, ok, err, want)
			}
		}
		list, err := r.ListPairings(ctx)
		if err != nil || len(list.Approved) != 2 {
			t.Fatalf("ListPairings = %+v, %v", list, err)
		}
		got := fmt.Sprintf("%q", []string{list.Approved[0].User, list.Approved[1].User})
		if want := fmt.Sprintf("%q", []string{"K\xffate@Example.com", "\x00ab"}); got != want {
			t.Errorf("listed users %s, want %s", got, want)
		}
		if err := r.Revoke(ctx, "email", "\x00ab"); err != nil {
			t.Errorf("Revoke of %q: %v", "\x00ab", err)
		}
	})
}

// postgresDialect is a database that only says it is PostgreSQL, for
// testing the escaping without a server.
type postgresDialect struct{ sqldb.DB }

func (postgresDialect) Dialect() sqldb.Dialect { return sqldb.Postgres }

// FuzzTextRoundTrip: any string is stored as text PostgreSQL holds, reads
// back as it was, is stored as it is when PostgreSQL holds it and it has
// no escape mark, and lowering ASCII before or after storing is the same
// (Paired compares addresses lowered in the database).
func FuzzTextRoundTrip(f *testing.F) {
	for _, v := range raw {
		f.Add(v)
	}
	f.Add("Kate@Example.COM")
	s := &Store{db: postgresDialect{}}
	f.Fuzz(func(t *testing.T, v string) {
		stored := s.text(v)
		if !utf8.ValidString(stored) || strings.ContainsRune(stored, 0) {
			t.Errorf("text(%q) = %q, which PostgreSQL's text does not hold", v, stored)
		}
		if got := s.untext(stored); got != v {
			t.Errorf("untext(text(%q)) = %q", v, got)
		}
		if clean(v) && stored != v {
			t.Errorf("text(%q) = %q, want it as it is", v, stored)
		}
		if lowered := s.text(asciiLower(v)); lowered != asciiLower(stored) {
			t.Errorf("text(asciiLower(%q)) = %q, asciiLower(text) = %q", v, lowered, asciiLower(stored))
		}
	})
}
