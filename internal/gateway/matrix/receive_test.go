package matrix

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/clock"
	"github.com/hermes-go/hermes/internal/gateway"
)

// memCursor is a Cursor in memory that records its saves.
type memCursor struct {
	mu    sync.Mutex
	since string
	saves []string
}

func (c *memCursor) Load(context.Context) (string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.since, nil
}

func (c *memCursor) Save(_ context.Context, s string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.since, c.saves = s, append(c.saves, s)
	return nil
}

// sinceOf is the sync token c holds.
func sinceOf(c *memCursor) string {
	saved, _ := c.Load(context.Background())
	var p position
	json.Unmarshal([]byte(saved), &p)
	return p.Since
}

// timeline is a /sync answer with events in one joined room of members
// members.
func timeline(next string, members int, events ...string) string {
	evs := ""
	for i, e := range events {
		if i > 0 {
			evs += ","
		}
		evs += e
	}
	return fmt.Sprintf(`{"next_batch":%q,"rooms":{"join":{"!r:example.org":{"summary":{"m.joined_member_count":%d},"timeline":{"events":[%s]}}}}}`, next, members, evs)
}

func text(id, sender, body string) string {
	return fmt.Sprintf(`{"type":"m.room.message","event_id":%q,"sender":%q,"content":{"msgtype":"m.text","body":%q}}`, id, sender, body)
}

// Only text messages from others are events: hermes's own messages,
// notices (other bots), edits, and state are not; an encrypted message
// gets one notice per room that hermes cannot read it.
func TestReceiveTakesOnlyOthersTextMessages(t *testing.T) {
	f := newFake(t)
	cur := &memCursor{since: `{"since":"s1"}`}
	f.syncs = []string{timeline("s2", 3,
		text("$own", "@hermes:example.org", "my own"),
		`{"type":"m.room.message","event_id":"$notice","sender":"@bot:example.org","content":{"msgtype":"m.notice","body":"a bot"}}`,
		`{"type":"m.room.message","event_id":"$edit","sender":"@alice:example.org","content":{"msgtype":"m.text","body":"* fixed","m.new_content":{"msgtype":"m.text","body":"fixed"},"m.relates_to":{"rel_type":"m.replace","event_id":"$x"}}}`,
		`{"type":"m.room.encrypted","event_id":"$enc1","sender":"@alice:example.org","content":{"algorithm":"m.megolm.v1.aes-sha2","ciphertext":"x"}}`,
		`{"type":"m.room.encrypted","event_id":"$enc2","sender":"@alice:example.org","content":{"algorithm":"m.megolm.v1.aes-sha2","ciphertext":"y"}}`,
		text("$hi", "@alice:example.org", "> <@bob:example.org> earlier\n\nhello Hermes"),
	)}
	a := f.adapter(t, Options{Cursor: cur, PollTimeout: time.Millisecond})
	var got []gateway.Event
	ctx, cancel := context.WithCancel(context.Background())
	err := a.Receive(ctx, func(_ context.Context, ev gateway.Event) error {
		got = append(got, ev)
		cancel()
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].ID != "$hi" || got[0].Text != "hello Hermes" || got[0].Chat.Type != gateway.Group || !got[0].Addressed {
		t.Errorf("events = %+v; want only $hi, its quote removed, addressed by the display name", got)
	}
	var notices int
	for _, s := range f.sent() {
		if s.Content["msgtype"] == "m.notice" {
			notices++
		}
	}
	if notices != 1 {
		t.Errorf("%d notices about encryption; want one for the room", notices)
	}
}

// An event deliver refused leaves the position where it was, so the next
// sync offers the batch again; the position moves once all was taken.
func TestReceiveRefusedEventIsOfferedAgain(t *testing.T) {
	f := newFake(t)
	cur := &memCursor{since: `{"since":"s1"}`}
	batch := timeline("s2", 2, text("$a", "@alice:example.org", "one"), text("$b", "@alice:example.org", "two"))
	f.syncs = []string{batch, batch}
	clk := clock.NewFake(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	a := f.adapter(t, Options{Cursor: cur, Clock: clk, PollTimeout: time.Millisecond})
	var ids []string
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() {
		done <- a.Receive(ctx, func(_ context.Context, ev gateway.Event) error {
			ids = append(ids, ev.ID)
			if len(ids) == 2 {
				return errors.New("the store is busy")
			}
			if len(ids) == 4 {
				cancel()
			}
			return nil
		})
	}()
	clk.BlockUntil(1)
	if s := sinceOf(cur); s != "s1" {
		t.Errorf("the position moved to %q past a refused event", s)
	}
	clk.Advance(time.Minute)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if s := sinceOf(cur); fmt.Sprint(ids) != "[$a $b $a $b]" || s != "s2" {
		t.Errorf("delivered %v, position %q; want the batch offered again, then s2", ids, s)
	}
}

// A sync refused with 429 waits the server's retry_after_ms (longer than
// the backoff) before it asks again.
func TestReceiveSyncRateLimitWaits(t *testing.T) {
	f := newFake(t)
	var mu sync.Mutex
	calls := 0
	limited := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/_matrix/client/v3/sync" {
			mu.Lock()
			calls++
			n := calls
			mu.Unlock()
			if n == 1 {
				status(429, "M_LIMIT_EXCEEDED", "slow", `,"retry_after_ms":7000`)(w)
				return
			}
		}
		f.ServeHTTP(w, r)
	})
	f.srv.Config.Handler = limited
	f.syncs = []string{timeline("s2", 2, text("$a", "@alice:example.org", "one"))}
	clk := clock.NewFake(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	a := f.adapter(t, Options{Cursor: &memCursor{since: `{"since":"s1"}`}, Clock: clk, PollTimeout: time.Millisecond})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- a.Receive(ctx, func(context.Context, gateway.Event) error { cancel(); return nil }) }()
	clk.BlockUntil(1)
	clk.Advance(6 * time.Second)
	mu.Lock()
	if calls != 1 {
		t.Errorf("%d syncs before the 7 s wait ended; want 1", calls)
	}
	mu.Unlock()
	clk.Advance(time.Second)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// A token the server does not know ends Receive with an error saying so,
// without the token.
func TestReceiveUnknownTokenStops(t *testing.T) {
	f := newFake(t)
	a, err := New(Options{Homeserver: f.srv.URL, AccessToken: "syt_wrong_token_value"})
	if err != nil {
		t.Fatal(err)
	}
	err = a.Receive(context.Background(), func(context.Context, gateway.Event) error { return nil })
	if err == nil || !containsAll(err.Error(), "refused the access token") || containsAll(err.Error(), "syt_wrong") {
		t.Errorf("err = %v; want the token refused, without it", err)
	}
}

// A limited timeline has its gap read back with /messages, oldest first,
// before the timeline; the reading stops at events older than the saved
// position's time (less the clock skew allowed), as a server that ignores
// the "to" token would go on to the room's creation.
func TestReceiveGapReadBackStopsAtPosition(t *testing.T) {
	f := newFake(t)
	at := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	cur := &memCursor{since: fmt.Sprintf(`{"since":"s1","at":%d}`, at.UnixMilli())}
	stamped := func(id, body string, ts time.Time) string {
		return fmt.Sprintf(`{"type":"m.room.message","event_id":%q,"sender":"@alice:example.org","origin_server_ts":%d,"content":{"msgtype":"m.text","body":%q}}`, id, ts.UnixMilli(), body)
	}
	f.syncs = []string{fmt.Sprintf(`{"next_batch":"s2","rooms":{"join":{"!r:example.org":{"summary":{"m.joined_member_count":2},"timeline":{"limited":true,"prev_batch":"p1","events":[%s]}}}}}`,
		stamped("$c", "three", at.Add(3*time.Minute)))}
	f.pages = []string{
		fmt.Sprintf(`{"chunk":[%s],"end":"p2"}`, stamped("$b", "two", at.Add(2*time.Minute))),
		fmt.Sprintf(`{"chunk":[%s,%s],"end":"p3"}`, stamped("$a", "one", at.Add(time.Minute)), stamped("$old", "old", at.Add(-time.Hour))),
	}
	a := f.adapter(t, Options{Cursor: cur, PollTimeout: time.Millisecond})
	var ids []string
	ctx, cancel := context.WithCancel(context.Background())
	err := a.Receive(ctx, func(_ context.Context, ev gateway.Event) error {
		ids = append(ids, ev.ID)
		if len(ids) == 3 {
			cancel()
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(ids) != "[$a $b $c]" {
		t.Errorf("delivered %v; want the gap read back in order, without the event from before the position", ids)
	}
}
