package feishutest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// poster is Feishu's side of the event subscription: where events go,
// what was posted, and the faults asked for.
type poster struct {
	wg     sync.WaitGroup
	url    string
	next   int
	events map[string][]byte // event id → the event's JSON
	// statuses are the answers each event got, in order (0: no answer).
	statuses map[string][]int
	// lostAcks are answers to treat as lost: the event is posted again.
	lostAcks int
}

// retryPost is the wait before an event is posted again. Feishu waits
// longer (15 s, then minutes); a test does not need to.
const retryPost = 20 * time.Millisecond

// maxPosts bounds how often one event is posted.
const maxPosts = 200

// Incoming is a message a user writes to the bot.
type Incoming struct {
	// ChatID defaults to the user's chat with the bot, "oc_" + OpenID.
	ChatID string
	// ChatType is p2p (the default) or group.
	ChatType string
	// From defaults to Alice.
	From User
	// Text is the text; mentions are written as their keys, @_user_1 for
	// Mentions[0] and so on, as Feishu writes them.
	Text     string
	Mentions []User
}

// SetEventURL is the console's request URL: where events are posted.
func (s *Server) SetEventURL(url string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.posts.url = url
}

// Message posts an im.message.receive_v1 event of what in says, retrying
// until the bot answers 200, and returns the event's and the message's
// ids.
func (s *Server) Message(in Incoming) (eventID, messageID string) {
	if in.From == (User{}) {
		in.From = Alice()
	}
	if in.ChatType == "" {
		in.ChatType = "p2p"
	}
	if in.ChatID == "" {
		in.ChatID = "oc_" + in.From.OpenID
	}
	content, _ := json.Marshal(map[string]string{"text": in.Text})
	var mentions []map[string]any
	for i, u := range in.Mentions {
		mentions = append(mentions, map[string]any{"key": fmt.Sprintf("@_user_%d", i+1),
			"id": map[string]string{"open_id": u.OpenID}, "name": u.Name, "tenant_key": "tenant"})
	}
	s.mu.Lock()
	s.nextMsg++
	m := &Message{ID: fmt.Sprintf("om_user%d", s.nextMsg), ChatID: in.ChatID, From: in.From, MsgType: "text", Content: string(content), Text: in.Text}
	s.messages[m.ID], s.order = m, append(s.order, m.ID)
	s.mu.Unlock()
	eventID = s.postEvent("im.message.receive_v1", map[string]any{
		"sender": map[string]any{"sender_id": map[string]string{"open_id": in.From.OpenID, "union_id": "on_" + in.From.OpenID},
			"sender_type": "user", "tenant_key": "tenant"},
		"message": map[string]any{"message_id": m.ID, "create_time": strconv.FormatInt(s.clock.Now().UnixMilli(), 10),
			"chat_id": in.ChatID, "chat_type": in.ChatType, "message_type": "text", "content": string(content), "mentions": mentions},
	})
	return eventID, m.ID
}

// postEvent wraps event in a schema 2.0 envelope and posts it in the
// background, retrying as Feishu does.
func (s *Server) postEvent(eventType string, event map[string]any) string {
	s.mu.Lock()
	s.posts.next++
	id := fmt.Sprintf("ev_%d_%d", s.clock.Now().UnixNano(), s.posts.next)
	env := map[string]any{"schema": "2.0", "header": map[string]any{"event_id": id, "event_type": eventType,
		"create_time": strconv.FormatInt(s.clock.Now().UnixMilli(), 10), "token": s.VerificationToken,
		"app_id": s.AppID, "tenant_key": "tenant"}, "event": event}
	plain, _ := json.Marshal(env)
	if s.posts.events == nil {
		s.posts.events, s.posts.statuses = map[string][]byte{}, map[string][]int{}
	}
	s.posts.events[id] = plain
	s.mu.Unlock()
	s.deliver(id)
	return id
}

// Redeliver posts an event again, as Feishu does when it did not see the
// answer in time.
func (s *Server) Redeliver(eventID string) { s.deliver(eventID) }

// LoseAcks makes the next n answers of 200 count as lost, so that their
// events are posted again.
func (s *Server) LoseAcks(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.posts.lostAcks += n
}

// Statuses returns the answers an event's posts got, in order; 0 is a
// post that got none.
func (s *Server) Statuses(eventID string) []int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]int(nil), s.posts.statuses[eventID]...)
}

// deliver posts the event until it is answered 2xx (and the answer not
// lost), the server closes, or maxPosts.
func (s *Server) deliver(id string) {
	s.posts.wg.Add(1)
	go func() {
		defer s.posts.wg.Done()
		for range maxPosts {
			s.mu.Lock()
			plain, url := s.posts.events[id], s.posts.url
			s.mu.Unlock()
			status, _ := s.send("event", plain)
			s.mu.Lock()
			s.posts.statuses[id] = append(s.posts.statuses[id], status)
			lost := status/100 == 2 && s.posts.lostAcks > 0
			if lost {
				s.posts.lostAcks--
			}
			s.changedLocked()
			s.mu.Unlock()
			if status/100 == 2 && !lost || (url == "" && !s.Connected() && status == 0 && !s.longConnection()) {
				return
			}
			select {
			case <-time.After(retryPost):
			case <-s.closed:
				return
			}
		}
	}()
}

// send hands an event (or card callback) to the bot: down the long
// connection when it was ever opened, else as a post to the event URL.
func (s *Server) send(kind string, plain []byte) (int, []byte) {
	if s.longConnection() {
		return s.sendFrame(kind, plain)
	}
	return s.Post(s.Seal(plain))
}

// longConnection reports whether the bot has ever opened the long
// connection: it receives that way, also while it reconnects.
func (s *Server) longConnection() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ws.connects > 0
}

// Seal makes the post Feishu would make of an event's JSON: encrypted
// and signed with the encrypt key, or plain without one.
func (s *Server) Seal(plain []byte) ([]byte, http.Header) {
	h := http.Header{"Content-Type": {"application/json; charset=utf-8"}}
	if s.EncryptKey == "" {
		return plain, h
	}
	body, _ := json.Marshal(map[string]string{"encrypt": Encrypt(s.EncryptKey, plain)})
	ts := strconv.FormatInt(s.clock.Now().Unix(), 10)
	nonce := fmt.Sprintf("n%d", s.clock.Now().UnixNano())
	h.Set("X-Lark-Request-Timestamp", ts)
	h.Set("X-Lark-Request-Nonce", nonce)
	h.Set("X-Lark-Signature", Sign(ts, nonce, s.EncryptKey, body))
	return body, h
}

// Post posts body with headers to the event URL once and returns the
// status (0 when there was no answer) and the answer's body.
func (s *Server) Post(body []byte, h http.Header) (int, []byte) {
	s.mu.Lock()
	url := s.posts.url
	s.mu.Unlock()
	if url == "" {
		return 0, nil
	}
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return 0, nil
	}
	req.Header = h.Clone()
	resp, err := s.client.Do(req)
	if err != nil {
		return 0, nil
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	return resp.StatusCode, out
}
