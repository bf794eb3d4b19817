package api

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/hermes-go/hermes/internal/agent"
	"github.com/hermes-go/hermes/internal/llm"
)

// responsePrefix starts a response id; the rest names the session and
// the turn (responseRef), so hermes finds a response in the stored
// conversation without a table of its own.
const responsePrefix = "resp_"

// responsesRequest is the part of a Responses API request hermes reads.
type responsesRequest struct {
	Model              string          `json:"model"`
	Input              json.RawMessage `json:"input"`
	PreviousResponseID string          `json:"previous_response_id"`
	Stream             bool            `json:"stream"`
}

// responses answers POST /v1/responses: input is the turn, and
// previous_response_id continues the conversation of that response. A
// hermes conversation is one line of turns, so only its latest response
// can be continued; an earlier one is refused with 409 rather than
// forked, since a fork would copy the conversation and its approvals
// into a session the client never asked for.
func (s *Server) responses(w http.ResponseWriter, r *http.Request) {
	var req responsesRequest
	if bad := decodeBody(r, &req, "responses"); bad != nil {
		writeError(w, bad.status, "invalid_request_error", bad.param, bad.msg)
		return
	}
	sessionID := ""
	var prev *responseRef
	if req.PreviousResponseID != "" {
		ref, bad := parseResponseID(req.PreviousResponseID, "previous_response_id")
		if bad != nil {
			writeError(w, bad.status, "invalid_request_error", bad.param, bad.msg)
			return
		}
		sessionID, prev = ref.session, &ref
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
	if bad == nil && s.opt.Conversations == nil {
		bad = &badRequest{http.StatusNotFound, "", "this server keeps no responses; use /v1/chat/completions"}
	}
	release, ok := s.admit(w, bad)
	if !ok {
		return
	}
	defer release()
	rs := &responseStream{w: w, model: cmp.Or(req.Model, "hermes"), created: s.opt.Clock.Now().Unix(),
		prev: req.PreviousResponseID, stream: req.Stream}
	rs.flush, _ = w.(http.Flusher)
	turn := Turn{SessionID: sessionID, Text: text, Images: images, Model: s.modelName(req.Model),
		Ready: func(ctx context.Context, id string) error {
			ref, err := s.nextResponse(ctx, id, prev)
			if err == nil {
				rs.start(ref)
			}
			return err
		}}
	res, err := s.run(r.Context(), turn, agent.SinkFunc(rs.event))
	if err == nil && res.Err != nil && strings.TrimSpace(res.Final) == "" {
		err = fmt.Errorf("the turn stopped before an answer: %w", res.Err)
	}
	if err != nil {
		var ae *Error
		if errors.As(err, &ae) && ae.Param == "" && sessionID != "" && ae.Status == http.StatusNotFound {
			err = &Error{Status: ae.Status, Param: "previous_response_id", Message: fmt.Sprintf(
				"previous_response_id: %q names no response of the API; use the id of a response hermes returned, or leave previous_response_id out to start a conversation", req.PreviousResponseID)}
		}
		rs.fail(err)
		return
	}
	if rs.id != "" && res.SessionID != rs.session {
		// The conversation was compressed during the turn and went on in
		// a child session, where the answer is stored: the response is
		// named there.
		if c, err := s.opt.Conversations.Conversation(r.Context(), res.SessionID); err == nil {
			rs.rename(c.latestRef())
		}
	}
	rs.finish(res)
}

// nextResponse is the ref of the response a turn starting now in the
// session id gets. Continuing a response other than the conversation's
// latest is refused with 409: the turn would answer a conversation that
// went on without it.
func (s *Server) nextResponse(ctx context.Context, id string, prev *responseRef) (responseRef, error) {
	c, err := s.opt.Conversations.Conversation(ctx, id)
	if err != nil {
		return responseRef{}, err
	}
	if prev == nil {
		return c.next(), nil
	}
	last := c.ContinuedIn == ""
	if !prev.latest {
		f, err := c.find(*prev)
		if err != nil {
			return responseRef{}, err
		}
		last = f.last
	}
	if !last {
		latest := c.latestRef().String()
		if c.ContinuedIn != "" {
			latest = responsePrefix + c.ContinuedIn
			if next, err := s.opt.Conversations.Conversation(ctx, c.ContinuedIn); err == nil {
				latest = next.latestRef().String()
			}
		}
		return responseRef{}, &Error{Status: http.StatusConflict, Param: "previous_response_id", Message: fmt.Sprintf(
			"previous_response_id: %s is not the latest response of its conversation, and a hermes conversation is one line of turns; continue the latest, %s, or start a new conversation without previous_response_id",
			prev, latest)}
	}
	return c.next(), nil
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
