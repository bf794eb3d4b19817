package feishutest

import (
	"encoding/json"
	"fmt"
	"strconv"
)

// PressResult is the bot's answer to a card callback.
type PressResult struct {
	Status int
	// Toast is the toast's type and text, "" when the answer had none.
	ToastType, Toast string
}

// Press posts a card.action.trigger for a press of a button with data on
// the card message by from, once, and returns the answer, which Feishu
// needs within three seconds.
func (s *Server) Press(message string, from User, data string) (PressResult, error) {
	s.mu.Lock()
	m := s.messages[message]
	s.posts.next++
	id := fmt.Sprintf("ev_card_%d", s.posts.next)
	s.mu.Unlock()
	if m == nil {
		return PressResult{}, fmt.Errorf("feishutest: no message %q", message)
	}
	value, _ := json.Marshal(map[string]string{"d": data})
	env := map[string]any{"schema": "2.0", "header": map[string]any{"event_id": id, "event_type": "card.action.trigger",
		"create_time": strconv.FormatInt(s.clock.Now().UnixMilli(), 10), "token": s.VerificationToken, "app_id": s.AppID, "tenant_key": "tenant"},
		"event": map[string]any{"operator": map[string]string{"open_id": from.OpenID, "union_id": "on_" + from.OpenID},
			"token": "c-" + id, "action": map[string]any{"value": json.RawMessage(value), "tag": "button"}, "host": "im_message",
			"context": map[string]string{"open_message_id": m.ID, "open_chat_id": m.ChatID}}}
	plain, _ := json.Marshal(env)
	status, body := s.send("card", plain)
	res := PressResult{Status: status}
	var ans struct {
		Toast *struct {
			Type    string `json:"type"`
			Content string `json:"content"`
		} `json:"toast"`
	}
	if status == 200 {
		if err := json.Unmarshal(body, &ans); err != nil {
			return res, fmt.Errorf("feishutest: the answer to a card callback is not JSON: %q", body)
		}
		if ans.Toast != nil {
			res.ToastType, res.Toast = ans.Toast.Type, ans.Toast.Content
		}
	}
	return res, nil
}

// Verify posts a url_verification, as the console does when the request
// URL is saved, and checks that the challenge comes back.
func (s *Server) Verify() error {
	challenge := fmt.Sprintf("challenge-%d", s.clock.Now().UnixNano())
	plain, _ := json.Marshal(map[string]string{"challenge": challenge, "token": s.VerificationToken, "type": "url_verification"})
	body, h := s.Seal(plain)
	// The console's verification is not signed.
	h.Del("X-Lark-Signature")
	status, out := s.Post(body, h)
	var ans struct {
		Challenge string `json:"challenge"`
	}
	if status != 200 || json.Unmarshal(out, &ans) != nil || ans.Challenge != challenge {
		return fmt.Errorf("feishutest: url_verification answered %d %q, want the challenge %q", status, out, challenge)
	}
	return nil
}
