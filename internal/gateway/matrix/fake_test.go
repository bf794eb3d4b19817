package matrix

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// fakeToken is the one access token the fake accepts.
const fakeToken = "syt_c2VjcmV0_TOKENvalue123"

// fake is a homeserver of a few endpoints for the paths dendrite cannot
// be made to take: it answers each send with the next scripted failure,
// if any, and records what reached it.
type fake struct {
	t   *testing.T
	srv *httptest.Server

	mu    sync.Mutex
	fails []func(w http.ResponseWriter) // the next sends' answers; nil passes
	syncs []string                      // the next /sync answers
	pages []string                      // the next /messages answers
	sends []sent
	n     int
}

// sent is a send that reached the fake.
type sent struct {
	Room, Txn string
	Content   map[string]any
	Answered  bool
}

func newFake(t *testing.T) *fake {
	f := &fake{t: t}
	f.srv = httptest.NewServer(f)
	t.Cleanup(f.srv.Close)
	return f
}

// fail scripts the next sends' answers.
func (f *fake) fail(answers ...func(w http.ResponseWriter)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.fails = append(f.fails, answers...)
}

func (f *fake) sent() []sent {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]sent(nil), f.sends...)
}

// status answers with a Matrix error.
func status(code int, errcode, msg string, extra string) func(w http.ResponseWriter) {
	return func(w http.ResponseWriter) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		fmt.Fprintf(w, `{"errcode":%q,"error":%q%s}`, errcode, msg, extra)
	}
}

// drop closes the connection after the send was taken: the event exists,
// the answer is lost.
func drop(w http.ResponseWriter) {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err == nil {
		conn.Close()
	}
}

func (f *fake) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get("Authorization") != "Bearer "+fakeToken {
		status(401, "M_UNKNOWN_TOKEN", "Unknown token", "")(w)
		return
	}
	path := r.URL.EscapedPath()
	switch {
	case strings.HasSuffix(path, "/account/whoami"):
		io.WriteString(w, `{"user_id":"@hermes:example.org"}`)
	case strings.Contains(path, "/profile/"):
		io.WriteString(w, `{"displayname":"Hermes"}`)
	case strings.HasSuffix(path, "/sync"):
		f.mu.Lock()
		next := `{"next_batch":"s0"}`
		if len(f.syncs) > 0 {
			next, f.syncs = f.syncs[0], f.syncs[1:]
		}
		f.mu.Unlock()
		io.WriteString(w, next)
	case strings.HasSuffix(path, "/messages"):
		f.mu.Lock()
		next := `{"chunk":[]}`
		if len(f.pages) > 0 {
			next, f.pages = f.pages[0], f.pages[1:]
		}
		f.mu.Unlock()
		io.WriteString(w, next)
	case r.Method == http.MethodPut && strings.Contains(path, "/send/"):
		parts := strings.Split(path, "/")
		var content map[string]any
		if err := json.NewDecoder(r.Body).Decode(&content); err != nil {
			f.t.Errorf("send body: %v", err)
		}
		f.mu.Lock()
		var answer func(http.ResponseWriter)
		if len(f.fails) > 0 {
			answer, f.fails = f.fails[0], f.fails[1:]
		}
		s := sent{Room: parts[len(parts)-4], Txn: parts[len(parts)-1], Content: content, Answered: answer == nil}
		f.sends = append(f.sends, s)
		f.n++
		id := f.n
		f.mu.Unlock()
		if answer != nil {
			answer(w)
			return
		}
		fmt.Fprintf(w, `{"event_id":"$ev%d"}`, id)
	default:
		io.WriteString(w, `{}`)
	}
}

// adapter returns an Adapter of the fake's homeserver.
func (f *fake) adapter(t *testing.T, o Options) *Adapter {
	t.Helper()
	o.Homeserver, o.AccessToken = f.srv.URL, fakeToken
	a, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	return a
}
