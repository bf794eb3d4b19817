package matrixtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Client is a user of the homeserver, for a test to play the people who
// talk to hermes.
type Client struct {
	t      testing.TB
	base   string
	UserID string
	Token  string
	// Password is the account's password, for a password login.
	Password string
	txn      atomic.Int64
	// mu holds since, the position of the user's own /sync for Await.
	mu    sync.Mutex
	since string
}

// Register creates the account localpart with a password and returns a
// client logged in as it.
func (hs *Homeserver) Register(t testing.TB, localpart string) *Client {
	t.Helper()
	c := &Client{t: t, base: hs.URL, Password: "pw-" + localpart + "-0123456789"}
	var out struct {
		UserID string `json:"user_id"`
		Token  string `json:"access_token"`
	}
	c.do(http.MethodPost, "/_matrix/client/v3/register", map[string]any{
		"username": localpart, "password": c.Password, "auth": map[string]string{"type": "m.login.dummy"},
	}, &out)
	c.UserID, c.Token = out.UserID, out.Token
	return c
}

// Event is a room event as the homeserver returns it.
type Event struct {
	Type     string         `json:"type"`
	EventID  string         `json:"event_id"`
	Sender   string         `json:"sender"`
	StateKey *string        `json:"state_key"`
	Content  map[string]any `json:"content"`
}

// Body is the event's content.body.
func (e Event) Body() string { s, _ := e.Content["body"].(string); return s }

// Relation is the event's m.relates_to (rel_type, event_id and the
// m.in_reply_to event id), empty when it has none.
func (e Event) Relation() (relType, eventID, inReplyTo string) {
	rel, _ := e.Content["m.relates_to"].(map[string]any)
	relType, _ = rel["rel_type"].(string)
	eventID, _ = rel["event_id"].(string)
	if r, ok := rel["m.in_reply_to"].(map[string]any); ok {
		inReplyTo, _ = r["event_id"].(string)
	}
	return
}

// CreateRoom creates a private room, inviting invite; encrypted turns on
// m.room.encryption.
func (c *Client) CreateRoom(encrypted bool, invite ...string) string {
	c.t.Helper()
	body := map[string]any{"preset": "private_chat", "invite": invite}
	if encrypted {
		body["initial_state"] = []map[string]any{{"type": "m.room.encryption", "state_key": "",
			"content": map[string]string{"algorithm": "m.megolm.v1.aes-sha2"}}}
	}
	var out struct {
		RoomID string `json:"room_id"`
	}
	c.do(http.MethodPost, "/_matrix/client/v3/createRoom", body, &out)
	return out.RoomID
}

// Invite invites user to room.
func (c *Client) Invite(room, user string) {
	c.t.Helper()
	c.do(http.MethodPost, "/_matrix/client/v3/rooms/"+url.PathEscape(room)+"/invite", map[string]string{"user_id": user}, nil)
}

// Join joins room.
func (c *Client) Join(room string) {
	c.t.Helper()
	c.do(http.MethodPost, "/_matrix/client/v3/join/"+url.PathEscape(room), map[string]any{}, nil)
}

// Say sends an m.text message and returns its event id.
func (c *Client) Say(room, text string) string {
	c.t.Helper()
	return c.SendContent(room, "m.room.message", map[string]any{"msgtype": "m.text", "body": text})
}

// SendContent sends an event of type typ and returns its id.
func (c *Client) SendContent(room, typ string, content map[string]any) string {
	c.t.Helper()
	var out struct {
		EventID string `json:"event_id"`
	}
	txn := "t" + strconv.FormatInt(c.txn.Add(1), 10)
	c.do(http.MethodPut, "/_matrix/client/v3/rooms/"+url.PathEscape(room)+"/send/"+typ+"/"+txn, content, &out)
	return out.EventID
}

// Upload puts data in the media repository and returns its mxc:// URI.
func (c *Client) Upload(name, contentType string, data []byte) string {
	c.t.Helper()
	req, err := http.NewRequest(http.MethodPost, c.base+"/_matrix/media/v3/upload?filename="+url.QueryEscape(name), bytes.NewReader(data))
	if err != nil {
		c.t.Fatal(err)
	}
	req.Header.Set("Content-Type", contentType)
	var out struct {
		URI string `json:"content_uri"`
	}
	c.send(req, &out)
	return out.URI
}

// Download reads an mxc:// URI's file.
func (c *Client) Download(uri string) []byte {
	c.t.Helper()
	req, err := http.NewRequest(http.MethodGet, c.base+"/_matrix/media/v3/download/"+strings.TrimPrefix(uri, "mxc://"), nil)
	if err != nil {
		c.t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		c.t.Fatalf("download %s: %d %s", uri, resp.StatusCode, b)
	}
	return b
}

// Members returns the user ids joined to room.
func (c *Client) Members(room string) []string {
	c.t.Helper()
	var out struct {
		Joined map[string]any `json:"joined"`
	}
	c.do(http.MethodGet, "/_matrix/client/v3/rooms/"+url.PathEscape(room)+"/joined_members", nil, &out)
	var ids []string
	for id := range out.Joined {
		ids = append(ids, id)
	}
	return ids
}

// Devices returns the ids of the account's devices.
func (c *Client) Devices() []string {
	c.t.Helper()
	var out struct {
		Devices []struct {
			ID string `json:"device_id"`
		} `json:"devices"`
	}
	c.do(http.MethodGet, "/_matrix/client/v3/devices", nil, &out)
	var ids []string
	for _, d := range out.Devices {
		ids = append(ids, d.ID)
	}
	return ids
}

// Messages returns room's latest events, oldest first.
func (c *Client) Messages(room string) []Event {
	c.t.Helper()
	var out struct {
		Chunk []Event `json:"chunk"`
	}
	c.do(http.MethodGet, "/_matrix/client/v3/rooms/"+url.PathEscape(room)+"/messages?dir=b&limit=200", nil, &out)
	evs := make([]Event, 0, len(out.Chunk))
	for i := len(out.Chunk) - 1; i >= 0; i-- {
		evs = append(evs, out.Chunk[i])
	}
	return evs
}

// From returns room's m.room.message events sent by sender, oldest
// first.
func (c *Client) From(room, sender string) []Event {
	c.t.Helper()
	var out []Event
	for _, e := range c.Messages(room) {
		if e.Sender == sender && e.Type == "m.room.message" {
			out = append(out, e)
		}
	}
	return out
}

// WaitFor waits until ok holds for sender's messages in room, or fails
// the test after d.
func (c *Client) WaitFor(room, sender string, d time.Duration, what string, ok func([]Event) bool) []Event {
	c.t.Helper()
	var evs []Event
	if c.Await(d, func() bool { evs = c.From(room, sender); return ok(evs) }) {
		return evs
	}
	var bodies []string
	for _, e := range evs {
		bodies = append(bodies, e.Body())
	}
	c.t.Fatalf("%s: not within %s; %s sent %q", what, d, sender, bodies)
	return nil
}

// Await reports whether ok came to hold within d. It checks again each
// time something new reaches the user (a /sync long poll returns), so it
// waits on the homeserver rather than on a timer.
func (c *Client) Await(d time.Duration, ok func() bool) bool {
	c.t.Helper()
	deadline := time.Now().Add(d)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.since == "" {
		c.since = c.sync("", 0)
	}
	for !ok() {
		left := time.Until(deadline)
		if left <= 0 {
			return false
		}
		c.since = c.sync(c.since, min(left, 5*time.Second))
	}
	return true
}

// sync makes one /sync long poll of at most wait from since and returns
// the next position.
func (c *Client) sync(since string, wait time.Duration) string {
	c.t.Helper()
	q := url.Values{"timeout": {strconv.FormatInt(wait.Milliseconds(), 10)}, "filter": {`{"room":{"timeline":{"limit":1}}}`}}
	if since != "" {
		q.Set("since", since)
	}
	var out struct {
		Next string `json:"next_batch"`
	}
	c.do(http.MethodGet, "/_matrix/client/v3/sync?"+q.Encode(), nil, &out)
	return out.Next
}

func (c *Client) do(method, path string, body, out any) {
	c.t.Helper()
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			c.t.Fatal(err)
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, c.base+path, rd)
	if err != nil {
		c.t.Fatal(err)
	}
	c.send(req, out)
}

// send makes req as the user and decodes the answer into out.
func (c *Client) send(req *http.Request, out any) {
	c.t.Helper()
	if c.Token != "" {
		req.Header.Set("Authorization", "Bearer "+c.Token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatalf("%s %s: %v", req.Method, req.URL.Path, err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		c.t.Fatalf("%s %s: %d %s", req.Method, req.URL.Path, resp.StatusCode, raw)
	}
	if out != nil {
		if err := json.Unmarshal(raw, out); err != nil {
			c.t.Fatalf("%s %s: %v in %s", req.Method, req.URL.Path, err, raw)
		}
	}
}

// String names the client in test output.
func (c *Client) String() string { return fmt.Sprintf("matrix user %s", c.UserID) }
