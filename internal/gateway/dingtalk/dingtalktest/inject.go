package dingtalktest

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"time"
)

// Message is a robot message as DingTalk delivers it.
type Message struct {
	MsgID                     string `json:"msgId"`
	MsgType                   string `json:"msgtype"`
	Text                      Text   `json:"text"`
	ConversationID            string `json:"conversationId"`
	ConversationType          string `json:"conversationType"`
	ConversationTitle         string `json:"conversationTitle,omitempty"`
	SenderID                  string `json:"senderId"`
	SenderStaffID             string `json:"senderStaffId,omitempty"`
	SenderNick                string `json:"senderNick"`
	ChatbotUserID             string `json:"chatbotUserId"`
	IsInAtList                bool   `json:"isInAtList"`
	CreateAt                  int64  `json:"createAt"`
	SessionWebhook            string `json:"sessionWebhook,omitempty"`
	SessionWebhookExpiredTime int64  `json:"sessionWebhookExpiredTime,omitempty"`
	RobotCode                 string `json:"robotCode"`
}

// Text is a text message's content.
type Text struct {
	Content string `json:"content"`
}

// Incoming is what a user writes, for UserMessage.
type Incoming struct {
	// Staff is the sender's user id; "manager42" by default.
	Staff, Nick string
	Text        string
	// Group is the group's conversation id; "" for a direct chat.
	Group string
	// AtBot marks a group message that @-mentions the robot.
	AtBot bool
	// SessionTTL is how long the sessionWebhook lasts: 0 means an hour,
	// a negative one gives the message no sessionWebhook.
	SessionTTL time.Duration
	// SessionWebhook, when set, is put in the message as it is (for
	// messages that point the reply elsewhere).
	SessionWebhook string
}

// UserMessage builds the message a user's text makes, with a
// sessionWebhook on this server; Deliver or Callback sends it.
func (s *Server) UserMessage(in Incoming) Message {
	if in.Staff == "" {
		in.Staff = "manager42"
	}
	if in.Nick == "" {
		in.Nick = "Alice"
	}
	now := s.clock.Now()
	m := Message{MsgID: randomID("msg"), MsgType: "text", SenderID: "$:LWCP_v1:$" + in.Staff, SenderStaffID: in.Staff,
		SenderNick: in.Nick, ChatbotUserID: "$:LWCP_v1:$robot", CreateAt: now.UnixMilli(), RobotCode: s.RobotCode}
	m.Text.Content = in.Text
	chat := in.Staff
	if in.Group != "" {
		m.ConversationID, m.ConversationType, m.ConversationTitle, m.IsInAtList = in.Group, "2", "team", in.AtBot
		chat = in.Group
		if in.AtBot {
			m.Text.Content = " " + in.Text // DingTalk takes the @name out and leaves its space
		}
	} else {
		m.ConversationID, m.ConversationType = "cid"+in.Staff, "1"
	}
	if in.SessionTTL >= 0 {
		ttl := in.SessionTTL
		if ttl == 0 {
			ttl = time.Hour
		}
		sess := randomID("sess")
		s.mu.Lock()
		s.sessions[sess] = session{chat: chat, expires: now.Add(ttl)}
		s.mu.Unlock()
		m.SessionWebhook = s.URL + "/robot/sendBySession?session=" + sess
		m.SessionWebhookExpiredTime = now.Add(ttl).UnixMilli()
	}
	if in.SessionWebhook != "" {
		m.SessionWebhook = in.SessionWebhook
	}
	return m
}

// Deliver pushes m as a CALLBACK frame on the Stream connection and
// returns the frame's messageId. Delivering the same message again is
// what DingTalk does when an ack comes late: a new messageId, the same
// msgId.
func (s *Server) Deliver(ctx context.Context, m Message) (string, error) {
	return s.deliver(ctx, m, 3)
}

// deliver pushes m, and when the server redelivers, arranges for it to
// be pushed again (at most left more times) unless it is acked with 200.
func (s *Server) deliver(ctx context.Context, m Message, left int) (string, error) {
	data, _ := json.Marshal(m)
	id := s.frameID()
	f := Frame{SpecVersion: "1.0", Type: "CALLBACK", Data: string(data), Headers: map[string]string{
		"topic": BotTopic, "messageId": id, "contentType": "application/json",
		"time": strconv.FormatInt(s.clock.Now().UnixMilli(), 10), "appId": s.ClientID}}
	if err := s.WaitConnected(ctx, 1); err != nil {
		return id, err
	}
	pushed := s.push(ctx, f)
	if s.redeliverAfter > 0 && left > 0 {
		s.clock.AfterFunc(s.redeliverAfter, func() {
			for _, a := range s.Acks() {
				if a.Headers["messageId"] == id && a.Code == 200 {
					return
				}
			}
			s.mu.Lock()
			s.redelivered++
			s.mu.Unlock()
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			s.deliver(ctx, m, left-1)
		})
	}
	if !pushed {
		return id, fmt.Errorf("dingtalktest: the Stream connection dropped before message %s was pushed", m.MsgID)
	}
	return id, nil
}

// Redelivered is how many times a message was delivered again for want
// of its ack.
func (s *Server) Redelivered() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.redelivered
}

// Sign is DingTalk's signature of a callback: base64(HMAC-SHA256(key =
// secret, timestamp + "\n" + secret)).
func Sign(timestamp, secret string) string {
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(timestamp + "\n" + secret))
	return base64.StdEncoding.EncodeToString(mac.Sum(nil))
}

// Callback posts m to url as DingTalk's outgoing robot does, signed with
// the app secret at the server's now, and returns the answer's status.
func (s *Server) Callback(url string, m Message) (int, error) {
	ts := strconv.FormatInt(s.clock.Now().UnixMilli(), 10)
	return s.CallbackSigned(url, m, ts, Sign(ts, s.ClientSecret))
}

// CallbackSigned posts m to url with the given timestamp and sign
// headers, for forged and replayed callbacks.
func (s *Server) CallbackSigned(url string, m Message, timestamp, sign string) (int, error) {
	body, _ := json.Marshal(m)
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	if timestamp != "" {
		req.Header.Set("timestamp", timestamp)
	}
	if sign != "" {
		req.Header.Set("sign", sign)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err
	}
	resp.Body.Close()
	return resp.StatusCode, nil
}
