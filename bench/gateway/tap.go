package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path"
	"regexp"
	"strings"
	"sync"
	"time"
)

// tokenRE finds the token that names a message and its reply.
var tokenRE = regexp.MustCompile(`msg-[0-9]+:`)

// token returns the text's token without its colon, "" for none.
func token(text string) string {
	return strings.TrimSuffix(tokenRE.FindString(text), ":")
}

// tap stands between hermes and the Bot API server and times the calls
// the figures need: when each update was handed to hermes's poll (just
// before the response is written to hermes), when the first sendMessage
// carrying a reply arrived (as the call comes in), and when a reply
// showed its whole text. It also hands chosen updates a second time, as
// Telegram redelivers an update it does not know was taken.
type tap struct {
	next http.Handler

	mu        sync.Mutex
	raw       map[int]json.RawMessage // every update handed, by id
	handed    map[int]time.Time
	redeliver []json.RawMessage
	again     int                      // updates handed a second time
	first     map[string]time.Time     // by token: the first sendMessage with the reply
	sends     map[string]int           // by token: messages sent with the reply
	want      map[string]string        // by token: the reply's whole text
	done      map[string]chan struct{} // by token: closed when the whole reply shows
	shown     map[string]time.Time     // by token: when the whole reply showed
}

func newTap(next http.Handler) *tap {
	return &tap{next: next, raw: map[int]json.RawMessage{}, handed: map[int]time.Time{},
		first: map[string]time.Time{}, sends: map[string]int{}, want: map[string]string{},
		done: map[string]chan struct{}{}, shown: map[string]time.Time{}}
}

// expect notes the reply a token's message should get and returns a
// channel closed when the chat shows it whole.
func (t *tap) expect(tok, reply string) <-chan struct{} {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.want[tok] = reply
	c := make(chan struct{})
	t.done[tok] = c
	return c
}

// redeliverUpdate hands update id to hermes again with the next poll,
// and reports whether it had been handed at all.
func (t *tap) redeliverUpdate(id int) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	raw, ok := t.raw[id]
	if ok {
		t.redeliver = append(t.redeliver, raw)
	}
	return ok
}

func (t *tap) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	method := strings.ToLower(path.Base(r.URL.Path))
	switch method {
	case "getupdates", "sendmessage", "editmessagetext":
	default:
		t.next.ServeHTTP(w, r)
		return
	}
	arrived := time.Now()
	rec := httptest.NewRecorder()
	t.next.ServeHTTP(rec, r)
	body := rec.Body.Bytes()
	if rec.Code == http.StatusOK {
		switch method {
		case "getupdates":
			body = t.updates(body)
		default:
			t.message(body, arrived, method == "sendmessage")
		}
	}
	for k, v := range rec.Header() {
		w.Header()[k] = v
	}
	w.WriteHeader(rec.Code)
	w.Write(body)
}

// updates notes when each update of a poll's answer is handed and adds
// the updates to redeliver, first, as their ids are the oldest.
func (t *tap) updates(body []byte) []byte {
	var resp struct {
		Result []json.RawMessage `json:"result"`
	}
	if json.Unmarshal(body, &resp) != nil {
		return body
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	now := time.Now()
	for _, raw := range resp.Result {
		var u struct {
			UpdateID int `json:"update_id"`
		}
		if json.Unmarshal(raw, &u) == nil {
			if _, ok := t.handed[u.UpdateID]; !ok {
				t.handed[u.UpdateID], t.raw[u.UpdateID] = now, raw
			}
		}
	}
	if len(t.redeliver) == 0 || len(resp.Result) == 0 {
		return body
	}
	all := append(t.redeliver, resp.Result...)
	t.again += len(t.redeliver)
	t.redeliver = nil
	out, err := json.Marshal(map[string]any{"ok": true, "result": all})
	if err != nil {
		return body
	}
	return out
}

// message notes a bot message sent or edited.
func (t *tap) message(body []byte, arrived time.Time, sent bool) {
	var resp struct {
		Result struct {
			Text string `json:"text"`
		} `json:"result"`
	}
	if json.Unmarshal(body, &resp) != nil {
		return
	}
	tok := token(resp.Result.Text)
	if tok == "" {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if sent {
		t.sends[tok]++
		if _, ok := t.first[tok]; !ok {
			t.first[tok] = arrived
		}
	}
	if _, shown := t.shown[tok]; shown {
		return
	}
	if want, ok := t.want[tok]; ok && strings.TrimSpace(resp.Result.Text) == strings.TrimSpace(want) {
		t.shown[tok] = time.Now()
		close(t.done[tok])
	}
}

// handedAt returns when update id was first handed to hermes.
func (t *tap) handedAt(id int) (time.Time, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	at, ok := t.handed[id]
	return at, ok
}

// reply returns what the chat saw of a token's reply: when its first
// message arrived, how many messages carried it, and when it showed
// whole (zero for never).
func (t *tap) reply(tok string) (first time.Time, sends int, whole time.Time) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.first[tok], t.sends[tok], t.shown[tok]
}

// redelivered returns how many updates were handed a second time.
func (t *tap) redelivered() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.again
}

var _ http.Handler = (*tap)(nil)
