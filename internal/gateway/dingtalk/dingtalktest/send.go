package dingtalktest

import (
	"encoding/json"
	"net/http"
	"time"
)

// robotSend is the body of the robot API's sends.
type robotSend struct {
	RobotCode          string   `json:"robotCode"`
	UserIDs            []string `json:"userIds"`
	OpenConversationID string   `json:"openConversationId"`
	MsgKey             string   `json:"msgKey"`
	MsgParam           string   `json:"msgParam"`
}

// markdown decodes a sampleMarkdown msgParam, which is JSON in a string.
func (b robotSend) markdown() (title, text string, ok bool) {
	if b.MsgKey != "sampleMarkdown" {
		return "", "", false
	}
	var p struct{ Title, Text string }
	if json.Unmarshal([]byte(b.MsgParam), &p) != nil {
		return "", "", false
	}
	return p.Title, p.Text, true
}

// decodeSend reads and checks a robot API send; false means it was
// answered with an error.
func (s *Server) decodeSend(w http.ResponseWriter, r *http.Request) (robotSend, string, string, bool) {
	if !s.authorized(w, r) {
		return robotSend{}, "", "", false
	}
	var b robotSend
	if err := readJSON(r, &b); err != nil {
		apiError(w, 400, "MissingParameter", "the body is not JSON")
		return b, "", "", false
	}
	if b.RobotCode != s.RobotCode {
		apiError(w, 400, "robot.notExist", "robotCode "+b.RobotCode+" does not exist")
		return b, "", "", false
	}
	title, text, ok := b.markdown()
	if !ok {
		apiError(w, 400, "InvalidParameter", "this server takes msgKey sampleMarkdown with a msgParam of {title, text}")
		return b, "", "", false
	}
	return b, title, text, true
}

func (s *Server) batchSend(w http.ResponseWriter, r *http.Request) {
	b, title, text, ok := s.decodeSend(w, r)
	if !ok {
		return
	}
	if len(b.UserIDs) != 1 {
		apiError(w, 400, "InvalidParameter", "userIds must name the users to send to")
		return
	}
	if s.record(w, Sent{Chat: b.UserIDs[0], Via: "api", Title: title, Text: text}) {
		writeJSON(w, 200, map[string]any{"processQueryKey": randomID("pqk"), "invalidStaffIdList": []string{}, "flowControlledStaffIdList": []string{}})
	}
}

func (s *Server) groupSend(w http.ResponseWriter, r *http.Request) {
	b, title, text, ok := s.decodeSend(w, r)
	if !ok {
		return
	}
	if b.OpenConversationID == "" {
		apiError(w, 400, "InvalidParameter", "openConversationId is required")
		return
	}
	if s.record(w, Sent{Chat: b.OpenConversationID, Via: "api", Title: title, Text: text}) {
		writeJSON(w, 200, map[string]any{"processQueryKey": randomID("pqk")})
	}
}

// sendBySession is a message's sessionWebhook: no auth, the session in
// the query, until it expires.
func (s *Server) sendBySession(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	sess, ok := s.sessions[r.URL.Query().Get("session")]
	s.mu.Unlock()
	if !ok || !s.clock.Now().Before(sess.expires) {
		errcode(w, 300001, "session not found or expired")
		return
	}
	var b struct {
		MsgType  string `json:"msgtype"`
		Markdown struct{ Title, Text string }
	}
	if err := readJSON(r, &b); err != nil || b.MsgType != "markdown" {
		errcode(w, 40035, "this server takes msgtype markdown with {title, text}")
		return
	}
	if s.record(w, Sent{Chat: sess.chat, Via: "session", Title: b.Markdown.Title, Text: b.Markdown.Text}) {
		errcode(w, 0, "ok")
	}
}

// ExpireSessions ends every sessionWebhook now, as DingTalk may before
// the time it announced.
func (s *Server) ExpireSessions() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for k, sess := range s.sessions {
		sess.expires = time.Time{}
		s.sessions[k] = sess
	}
}
