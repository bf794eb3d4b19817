package api

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/hermes-go/hermes/agent"
	"github.com/hermes-go/hermes/llm"
)

// responsePrefix starts a response id; the rest is the session the turn
// ran in, so previous_response_id continues that session without a table
// of its own.
const responsePrefix = "resp_"

// responsesRequest is the part of a Responses API request hermes reads.
type responsesRequest struct {
	Model              string          `json:"model"`
	Input              json.RawMessage `json:"input"`
	PreviousResponseID string          `json:"previous_response_id"`
	Stream             bool            `json:"stream"`
}

// responses answers POST /v1/responses: input is the turn, and
// previous_response_id continues the conversation of that response.
// Streaming is not offered here; chat completions stream.
func (s *Server) responses(w http.ResponseWriter, r *http.Request) {
	var req responsesRequest
	if bad := decodeBody(r, &req, "responses"); bad != nil {
		writeError(w, bad.status, "invalid_request_error", bad.param, bad.msg)
		return
	}
	if req.Stream {
		writeError(w, http.StatusBadRequest, "invalid_request_error", "stream", "stream: true is not accepted on /v1/responses; send it without stream, or use /v1/chat/completions with stream: true")
		return
	}
	sessionID := ""
	if req.PreviousResponseID != "" {
		id, ok := strings.CutPrefix(req.PreviousResponseID, responsePrefix)
		if !ok || id == "" {
			writeError(w, http.StatusBadRequest, "invalid_request_error", "previous_response_id", fmt.Sprintf("previous_response_id: %q is not accepted; give the id of a response hermes returned (resp_...)", req.PreviousResponseID))
			return
		}
		sessionID = id
	}
	chat, bad := responsesInput(req.Input)
	if bad == nil {
		bad = s.checkModel(req.Model)
	}
	var text string
	var images []llm.Part
	if bad == nil {
		if text, images, bad = turnText(chat, sessionID != ""); bad != nil {
			bad = asInput(bad)
		}
	}
	if bad != nil {
		writeError(w, bad.status, "invalid_request_error", bad.param, bad.msg)
		return
	}
	release, ok := s.acquire(w)
	if !ok {
		return
	}
	defer release()
	res, err := s.opt.Run(r.Context(), Turn{SessionID: sessionID, Text: text, Images: images, Model: s.modelName(req.Model)},
		agent.SinkFunc(func(agent.Event) {}))
	if err == nil && res.Err != nil && strings.TrimSpace(res.Final) == "" {
		err = fmt.Errorf("the turn stopped before an answer: %w", res.Err)
	}
	if err != nil {
		status, param := http.StatusInternalServerError, ""
		var ae *Error
		if errors.As(err, &ae) {
			status, param = ae.Status, ae.Param
			if param == "" && sessionID != "" && status == http.StatusNotFound {
				param = "previous_response_id"
			}
		}
		writeError(w, status, "api_error", param, err.Error())
		return
	}
	id := responsePrefix + res.SessionID
	u := toUsage(res.Usage)
	writeJSON(w, http.StatusOK, map[string]any{
		"id": id, "object": "response", "created_at": s.opt.Clock.Now().Unix(), "status": "completed",
		"model": cmp.Or(req.Model, "hermes"), "previous_response_id": nullable(req.PreviousResponseID),
		"output": []map[string]any{{"type": "message", "id": "msg_" + randomID(), "status": "completed", "role": "assistant",
			"content": []map[string]any{{"type": "output_text", "text": res.Final, "annotations": []any{}}}}},
		"usage": map[string]int{"input_tokens": u.PromptTokens, "output_tokens": u.CompletionTokens, "total_tokens": u.TotalTokens},
	})
}

// responsesInput reads input, a string or a list of messages, as the
// messages of a chat request, so both endpoints judge them alike.
func responsesInput(raw json.RawMessage) (*chatRequest, *badRequest) {
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		b, _ := json.Marshal(s)
		return &chatRequest{Messages: []chatMessage{{Role: "user", Content: b}}}, nil
	}
	var items []struct {
		Type    string          `json:"type"`
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	}
	if err := json.Unmarshal(raw, &items); err != nil || len(items) == 0 {
		return nil, &badRequest{http.StatusBadRequest, "input", "input: is not accepted; use a string or a non-empty list of messages with role and content"}
	}
	req := &chatRequest{}
	for i, it := range items {
		if it.Type != "" && it.Type != "message" {
			return nil, &badRequest{http.StatusBadRequest, fmt.Sprintf("input[%d].type", i), fmt.Sprintf("input[%d].type: %q is not accepted; hermes runs its own tools, so send messages only", i, it.Type)}
		}
		req.Messages = append(req.Messages, chatMessage{Role: it.Role, Content: responsesContent(it.Content)})
	}
	if bad := checkMessages(req.Messages); bad != nil {
		return nil, asInput(bad)
	}
	return req, nil
}

// responsesContent turns the Responses API's input_text and input_image
// parts into chat parts.
func responsesContent(raw json.RawMessage) json.RawMessage {
	var parts []map[string]any
	if err := json.Unmarshal(raw, &parts); err != nil {
		return raw
	}
	for _, p := range parts {
		switch p["type"] {
		case "input_text", "output_text":
			p["type"] = "text"
		case "input_image":
			p["type"], p["image_url"] = "image_url", map[string]any{"url": p["image_url"]}
		}
	}
	b, _ := json.Marshal(parts)
	return b
}

func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// asInput names the Responses API's field, input, in an error about the
// messages.
func asInput(bad *badRequest) *badRequest {
	bad.param = strings.Replace(bad.param, "messages", "input", 1)
	bad.msg = strings.Replace(bad.msg, "messages", "input", 1)
	return bad
}
