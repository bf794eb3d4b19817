package slacktest

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// The people and channels of the tests.
const (
	// Alice is a user; AliceDM is her direct-message channel with the
	// bot.
	Alice, AliceDM = "UALICE", "DALICE"
	// General is a public channel.
	General = "CGENERAL"
)

// Incoming is a message someone writes.
type Incoming struct {
	// User defaults to Alice, Channel to AliceDM.
	User, Channel string
	// ChannelType is im, mpim, channel or group; it defaults to im for a
	// D… channel and channel otherwise.
	ChannelType string
	Text        string
	// ThreadTS puts the message in a thread.
	ThreadTS string
	// Subtype and BotID are set on events that are not someone writing
	// (message_changed, channel_join, the bot's own posts).
	Subtype, BotID string
	// Mention sends an app_mention event as well, as Slack does for a
	// message that mentions the bot in a channel the app is subscribed
	// to: two events, two event_ids, one message.
	Mention bool
	// Files are shared with the message; the bot downloads them from
	// url_private_download with its token.
	Files []File
}

// File is a file someone shares.
type File struct {
	Name, MIME string
	Data       []byte
}

// Message delivers what someone writes as an events_api envelope (or a
// signed post, once SetEventsURL was called) and returns its ts.
func (s *Server) Message(in Incoming) string {
	if in.User == "" {
		in.User = Alice
	}
	if in.Channel == "" {
		in.Channel = AliceDM
	}
	if in.ChannelType == "" {
		in.ChannelType = "channel"
		if strings.HasPrefix(in.Channel, "D") {
			in.ChannelType = "im"
		}
	}
	s.mu.Lock()
	m := &Message{Channel: in.Channel, TS: s.tsLocked(), ThreadTS: in.ThreadTS, User: in.User, Text: in.Text}
	s.channels[in.Channel] = append(s.channels[in.Channel], m)
	s.changedLocked()
	s.mu.Unlock()
	ev := map[string]any{"type": "message", "user": in.User, "text": in.Text, "ts": m.TS, "channel": in.Channel,
		"channel_type": in.ChannelType, "event_ts": m.TS}
	if in.ThreadTS != "" {
		ev["thread_ts"] = in.ThreadTS
	}
	if in.Subtype != "" {
		ev["subtype"] = in.Subtype
	}
	if in.BotID != "" {
		ev["bot_id"] = in.BotID
	}
	if len(in.Files) > 0 {
		ev["files"] = s.share(in.Files)
	}
	s.event(ev)
	if in.Mention {
		mention := map[string]any{"type": "app_mention", "user": in.User, "text": in.Text, "ts": m.TS, "channel": in.Channel, "event_ts": m.TS}
		if in.ThreadTS != "" {
			mention["thread_ts"] = in.ThreadTS
		}
		s.event(mention)
	}
	return m.TS
}

// event sends one event_callback.
func (s *Server) event(ev map[string]any) {
	s.mu.Lock()
	s.nextID++
	id := fmt.Sprintf("Ev%06d", s.nextID)
	s.mu.Unlock()
	body, _ := json.Marshal(map[string]any{"token": "legacy", "team_id": "T0001", "api_app_id": "A0001",
		"type": "event_callback", "event_id": id, "event_time": s.clock.Now().Unix(), "event": ev})
	s.deliver("events_api", body, "application/json", 0, "")
}

// Press presses the button with value on the bot's message ts in
// channel, as user: a block_actions payload, over Socket Mode as an
// interactive envelope, over HTTP form-encoded in the payload field.
func (s *Server) Press(channel, ts, user, value string) error {
	s.mu.Lock()
	m := s.findLocked(channel, ts)
	var actionID string
	if m != nil {
		for _, b := range m.Blocks {
			for _, e := range b.Elements {
				if e.Value == value {
					actionID = e.ActionID
				}
			}
		}
	}
	s.nextID++
	trigger := fmt.Sprintf("trigger-%d", s.nextID)
	s.mu.Unlock()
	if m == nil {
		return fmt.Errorf("slacktest: no message %s in %s", ts, channel)
	}
	if actionID == "" {
		// A forged press names a value the message has no button for:
		// Slack would never send it, but a test may.
		actionID = "forged"
	}
	now := s.clock.Now()
	payload, _ := json.Marshal(map[string]any{
		"type":       "block_actions",
		"trigger_id": trigger,
		"user":       map[string]any{"id": user, "username": strings.ToLower(user)},
		"team":       map[string]any{"id": "T0001"},
		"api_app_id": "A0001",
		"channel":    map[string]any{"id": channel},
		"container":  map[string]any{"type": "message", "channel_id": channel, "message_ts": ts, "thread_ts": m.ThreadTS},
		"message":    map[string]any{"type": "message", "ts": ts, "thread_ts": m.ThreadTS, "user": m.User, "text": m.Text},
		"actions": []map[string]any{{"type": "button", "action_id": actionID, "block_id": "b", "value": value,
			"action_ts": fmt.Sprintf("%d.%06d", now.Unix(), now.Nanosecond()/1000)}},
		"response_url": s.http.URL + "/response/" + trigger,
	})
	s.deliver("interactive", payload, "application/x-www-form-urlencoded", 0, "")
	return nil
}

// deliver sends a payload by Socket Mode, or posts it when an events URL
// is set.
func (s *Server) deliver(typ string, payload []byte, contentType string, retry int, reason string) {
	s.mu.Lock()
	target := s.eventsURL
	s.mu.Unlock()
	if target == "" {
		s.push(typ, payload, retry, reason)
		return
	}
	body := payload
	if contentType != "application/json" {
		body = []byte("payload=" + url.QueryEscape(string(payload)))
	}
	s.post(target, body, contentType, retry, reason)
}

// SetEventsURL switches the server to the Events API: events and
// interactions are posted to u, signed, instead of sent by Socket Mode.
func (s *Server) SetEventsURL(u string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.eventsURL = u
}

// Sign returns the headers of a request signed as Slack signs it at the
// server's clock: X-Slack-Request-Timestamp and X-Slack-Signature.
func (s *Server) Sign(body []byte) http.Header {
	ts := strconv.FormatInt(s.clock.Now().Unix(), 10)
	mac := hmac.New(sha256.New, []byte(s.SigningSecret))
	fmt.Fprintf(mac, "v0:%s:%s", ts, body)
	h := http.Header{}
	h.Set("X-Slack-Request-Timestamp", ts)
	h.Set("X-Slack-Signature", "v0="+hex.EncodeToString(mac.Sum(nil)))
	return h
}

// post posts body, signed, and records the answer.
func (s *Server) post(target string, body []byte, contentType string, retry int, reason string) int {
	req, err := http.NewRequest(http.MethodPost, target, bytes.NewReader(body))
	if err != nil {
		return 0
	}
	req.Header = s.Sign(body)
	req.Header.Set("Content-Type", contentType)
	if retry > 0 {
		req.Header.Set("X-Slack-Retry-Num", strconv.Itoa(retry))
		req.Header.Set("X-Slack-Retry-Reason", reason)
	}
	status := 0
	if resp, err := http.DefaultClient.Do(req); err == nil {
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		status = resp.StatusCode
	}
	s.mu.Lock()
	s.posts = append(s.posts, Post{Body: string(body), Status: status, Retry: retry})
	s.history = append(s.history, &envelope{Type: contentType, Payload: body})
	s.changedLocked()
	s.mu.Unlock()
	return status
}

// Posts returns the posts made to the events URL, in order.
func (s *Server) Posts() []Post {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Post(nil), s.posts...)
}

// Redeliver sends the last event or interaction again, as Slack retries
// one whose acknowledgement it did not get: over Socket Mode in a new
// envelope with retry_attempt 1, over HTTP with X-Slack-Retry-Num 1.
func (s *Server) Redeliver() {
	s.mu.Lock()
	if len(s.history) == 0 {
		s.mu.Unlock()
		return
	}
	last := s.history[len(s.history)-1]
	target := s.eventsURL
	s.mu.Unlock()
	if target != "" {
		s.post(target, last.Payload, last.Type, 1, "http_timeout")
		return
	}
	s.push(last.Type, last.Payload, 1, "timeout")
}

// Verify makes Slack's url_verification handshake with the events URL
// and reports whether the challenge came back.
func (s *Server) Verify(ctx context.Context) (bool, error) {
	s.mu.Lock()
	target := s.eventsURL
	s.mu.Unlock()
	body := []byte(`{"token":"legacy","challenge":"3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P","type":"url_verification"}`)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, target, bytes.NewReader(body))
	if err != nil {
		return false, err
	}
	req.Header = s.Sign(body)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return false, err
	}
	defer resp.Body.Close()
	got, _ := io.ReadAll(resp.Body)
	return resp.StatusCode == 200 && strings.Contains(string(got), "3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P"), nil
}
