package api_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/agent"
	"github.com/hermes-go/hermes/internal/api"
	"github.com/hermes-go/hermes/internal/api/apistore"
	"github.com/hermes-go/hermes/internal/sqlitedb"
)

// replicas are two API servers on one store of requests, counting the
// turns they run between them.
type replicas struct {
	a, b    *api.Server
	store   *apistore.Store
	turns   atomic.Int64
	rewinds []string
}

func newReplicas(t *testing.T, more ...func(*api.Options)) *replicas {
	t.Helper()
	db, err := sqlitedb.Open(t.Context(), filepath.Join(t.TempDir(), "state.db"), sqlitedb.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	r := &replicas{store: apistore.New(db)}
	run := func(ctx context.Context, turn api.Turn, sink agent.Sink) (*api.Result, error) {
		id := turn.SessionID
		if id == "" {
			id = "s-new"
		}
		if err := turn.Ready(ctx, id); err != nil {
			return nil, err
		}
		if turn.Started != nil {
			turn.Started(id)
		}
		n := r.turns.Add(1)
		return &api.Result{SessionID: id, Result: &agent.Result{Final: "answer " + string(rune('0'+n)) + " to " + turn.Text, Stopped: agent.StopDone}}, nil
	}
	opts := func(holder string) api.Options {
		o := api.Options{Run: run, MaxBodyBytes: 1 << 20, MaxConcurrentRuns: 2, Requests: r.store, Holder: holder,
			Rewind: func(_ context.Context, id string, after int64) error {
				r.rewinds = append(r.rewinds, id+"@"+string(rune('0'+after)))
				return nil
			},
			LastMessageID: func(context.Context, string) (int64, error) { return 7, nil }}
		for _, f := range more {
			f(&o)
		}
		return o
	}
	r.a, r.b = api.New(opts("a/1")), api.New(opts("b/2"))
	return r
}

// TestIdempotencyKeyIsTheCallers: a user who sends another user's
// Idempotency-Key, with the same request, gets a turn of their own, not
// the other's answer replayed (which would hand them another user's
// conversation), and a different request under that key is not refused
// as the other's: keys are scoped to their caller.
func TestIdempotencyKeyIsTheCallers(t *testing.T) {
	r := newReplicas(t, func(o *api.Options) {
		o.Identify = func(token string) (api.Caller, bool) {
			switch token {
			case "tok-ana":
				return api.Caller{User: "ana", Tenant: "acme"}, true
			case "tok-bob":
				return api.Caller{User: "bob", Tenant: "acme"}, true
			}
			return api.Caller{}, false
		}
	})
	ana, anaBody := send(t, r.a, "k-shared", helloBody, "Authorization", "Bearer tok-ana")
	if ana.StatusCode != 200 || !strings.Contains(anaBody, "answer 1 to hello") {
		t.Fatalf("ana's request: %d %s", ana.StatusCode, anaBody)
	}
	bob, bobBody := send(t, r.a, "k-shared", helloBody, "Authorization", "Bearer tok-bob")
	if bob.StatusCode != 200 || bob.Header.Get("Idempotent-Replayed") == "true" || bobBody == anaBody || !strings.Contains(bobBody, "answer 2 to hello") {
		t.Fatalf("bob with ana's key: %d replayed=%q %s; want a turn of his own", bob.StatusCode, bob.Header.Get("Idempotent-Replayed"), bobBody)
	}
	if other, body := send(t, r.a, "k-shared", `{"messages":[{"role":"user","content":"other"}]}`, "Authorization", "Bearer tok-ana"); other.StatusCode != 422 {
		t.Errorf("ana's own key with another body: %d %s, want 422", other.StatusCode, body)
	}
	if n := r.turns.Load(); n != 2 {
		t.Errorf("%d turns, want ana's and bob's", n)
	}
}

func send(t *testing.T, h http.Handler, key, body string, hdr ...string) (*http.Response, string) {
	t.Helper()
	srv := newHandlerServer(t, h)
	req, _ := http.NewRequest("POST", srv+"/v1/chat/completions", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	if key != "" {
		req.Header.Set(api.IdempotencyHeader, key)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

const helloBody = `{"messages":[{"role":"user","content":"hello"}]}`

// TestIdempotencyAnswersRetriesOnce: a request retried with its key, on
// the same replica or another, gets the first answer back and runs no
// second turn; the same key with another body is refused; a key on a
// streamed request is refused; without a key every request is a turn.
func TestIdempotencyAnswersRetriesOnce(t *testing.T) {
	r := newReplicas(t)
	first, body1 := send(t, r.a, "k-1", helloBody, api.SessionHeader, "sess-9")
	if first.StatusCode != 200 || !strings.Contains(body1, "answer 1 to hello") {
		t.Fatalf("first request: %d %s", first.StatusCode, body1)
	}
	for _, h := range []http.Handler{r.a, r.b} {
		again, body := send(t, h, "k-1", helloBody, api.SessionHeader, "sess-9")
		if again.StatusCode != 200 || body != body1 || again.Header.Get("Idempotent-Replayed") != "true" || again.Header.Get(api.SessionHeader) != "sess-9" {
			t.Errorf("retry: %d %q %v, want the first answer replayed", again.StatusCode, body, again.Header)
		}
	}
	if n := r.turns.Load(); n != 1 {
		t.Errorf("%d turns ran for one key, want 1", n)
	}
	if resp, body := send(t, r.b, "k-1", `{"messages":[{"role":"user","content":"other"}]}`, api.SessionHeader, "sess-9"); resp.StatusCode != 422 || !strings.Contains(body, "different request") {
		t.Errorf("same key, other body: %d %s", resp.StatusCode, body)
	}
	if resp, body := send(t, r.b, "k-2", `{"stream":true,"messages":[{"role":"user","content":"hi"}]}`); resp.StatusCode != 400 || !strings.Contains(body, "stream: false") {
		t.Errorf("key on a streamed request: %d %s", resp.StatusCode, body)
	}
	if resp, body := send(t, r.b, strings.Repeat("k", 300), helloBody); resp.StatusCode != 400 || !strings.Contains(body, "too long") {
		t.Errorf("key too long: %d %s", resp.StatusCode, body)
	}
	send(t, r.a, "", helloBody)
	send(t, r.a, "", helloBody)
	if n := r.turns.Load(); n != 3 {
		t.Errorf("%d turns after two requests without a key, want 3", n)
	}
}

// TestIdempotencyTakesOverADeadReplica: a request whose replica died
// while running it (its claim lapsed) is run by the replica the retry
// reaches, which first rewinds what the dead attempt stored; while the
// claim is live, a retry is told to wait.
func TestIdempotencyTakesOverADeadReplica(t *testing.T) {
	r := newReplicas(t)
	now := time.Now()
	// The dead replica claimed the key and began the turn in sess-9
	// after message 5, then died.
	if _, took, err := r.store.Claim(t.Context(), api.RequestClaim{Caller: "", Key: "k-3", Fingerprint: fingerprint(helloBody, "sess-9"),
		Holder: "dead/3", Now: now, Until: now.Add(time.Hour)}); err != nil || !took {
		t.Fatal(took, err)
	}
	if err := r.store.Begin(t.Context(), "", "k-3", "dead/3", "sess-9", 5); err != nil {
		t.Fatal(err)
	}
	resp, body := send(t, r.a, "k-3", helloBody, api.SessionHeader, "sess-9")
	if resp.StatusCode != 409 || resp.Header.Get("Retry-After") == "" || !strings.Contains(body, "still running") {
		t.Fatalf("retry while the claim is live: %d %s", resp.StatusCode, body)
	}
	// The claim lapses.
	if err := r.store.Release(t.Context(), "", "k-3", "dead/3"); err != nil {
		t.Fatal(err)
	}
	resp, body = send(t, r.b, "k-3", helloBody, api.SessionHeader, "sess-9")
	if resp.StatusCode != 200 || !strings.Contains(body, "to hello") {
		t.Fatalf("retry after the replica died: %d %s", resp.StatusCode, body)
	}
	if len(r.rewinds) != 1 || r.rewinds[0] != "sess-9@5" {
		t.Errorf("rewinds = %v, want sess-9 back to message 5", r.rewinds)
	}
	if again, body2 := send(t, r.a, "k-3", helloBody, api.SessionHeader, "sess-9"); again.StatusCode != 200 || body2 != body {
		t.Errorf("a later retry: %d %s, want the takeover's answer", again.StatusCode, body2)
	}
}

// fingerprint is how the server tells one request from another: its
// path, session header and body.
func fingerprint(body, sessionHeader string) string {
	sum := sha256.Sum256([]byte("/v1/chat/completions\x00" + sessionHeader + "\x00" + body))
	return hex.EncodeToString(sum[:])
}

// newHandlerServer serves h over HTTP for the test.
func newHandlerServer(t *testing.T, h http.Handler) string {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv.URL
}

// deletions records the sessions a server deletes.
type deletions struct{ ids []string }

func (d *deletions) Conversation(context.Context, string) (*api.Conversation, error) { return nil, nil }
func (d *deletions) Delete(_ context.Context, id string) error {
	d.ids = append(d.ids, id)
	return nil
}

// TestIdempotencyDropsADeadAttemptsNewSession: a request that asked for
// a new session and whose replica died after making one is run again in
// a new session, and the dead attempt's session is deleted, so the
// answer is in one session only.
func TestIdempotencyDropsADeadAttemptsNewSession(t *testing.T) {
	r := newReplicas(t)
	var d deletions
	r.b = api.New(api.Options{Run: func(ctx context.Context, turn api.Turn, sink agent.Sink) (*api.Result, error) {
		if err := turn.Ready(ctx, "s-second"); err != nil {
			return nil, err
		}
		return &api.Result{SessionID: "s-second", Result: &agent.Result{Final: "again", Stopped: agent.StopDone}}, nil
	}, MaxBodyBytes: 1 << 20, MaxConcurrentRuns: 1, Requests: r.store, Holder: "b/2", Conversations: &d})
	now := time.Now()
	if _, _, err := r.store.Claim(t.Context(), api.RequestClaim{Key: "k-4", Fingerprint: fingerprint(helloBody, "new"), Holder: "dead/3", Now: now, Until: now}); err != nil {
		t.Fatal(err)
	}
	if err := r.store.Begin(t.Context(), "", "k-4", "dead/3", "s-first", 0); err != nil {
		t.Fatal(err)
	}
	resp, body := send(t, r.b, "k-4", helloBody, api.SessionHeader, "new")
	if resp.StatusCode != 200 || resp.Header.Get(api.SessionHeader) != "s-second" {
		t.Fatalf("takeover: %d %s", resp.StatusCode, body)
	}
	if len(d.ids) != 1 || d.ids[0] != "s-first" {
		t.Errorf("deleted %v, want the dead attempt's s-first", d.ids)
	}
}
