package api

import (
	"cmp"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"

	"github.com/hermes-go/hermes/internal/agent"
	"github.com/hermes-go/hermes/internal/llm"
)

// chat answers POST /v1/chat/completions: the last user message is a
// turn, in the session of X-Hermes-Session-Id or a new one.
func (s *Server) chat(w http.ResponseWriter, r *http.Request) {
	req, bad := decodeChat(r)
	if bad == nil {
		bad = s.checkModel(req.Model)
	}
	// "new" starts a stored session, which then begins with the
	// conversation the client sent, like a stateless request.
	sessionID := strings.TrimSpace(r.Header.Get(SessionHeader))
	if sessionID == "new" {
		sessionID = ""
	}
	var text string
	var images []llm.Part
	if bad == nil {
		text, images, bad = turnText(req, sessionID != "")
	}
	release, ok := s.admit(w, bad)
	if !ok {
		return
	}
	defer release()
	c := &completion{id: "chatcmpl-" + randomID(), created: s.opt.Clock.Now().Unix(), model: cmp.Or(req.Model, "hermes"), w: w}
	if req.Stream {
		c.stream = true
		c.usage = req.StreamOptions != nil && req.StreamOptions.IncludeUsage
		c.flush, _ = w.(http.Flusher)
	}
	turn := Turn{SessionID: sessionID, Text: text, Images: images, Model: s.modelName(req.Model), Started: c.start}
	res, err := s.run(r.Context(), turn, agent.SinkFunc(c.event))
	if err != nil {
		c.fail(err)
		return
	}
	c.finish(res)
}

// checkModel accepts hermes, an empty model and the configured models.
func (s *Server) checkModel(model string) *badRequest {
	if model == "" || model == "hermes" || slices.Contains(s.opt.Models, model) {
		return nil
	}
	return &badRequest{http.StatusNotFound, "model", fmt.Sprintf("model: %q is not accepted; use hermes or one of the models GET /v1/models lists", model)}
}

// modelName is the model the turn calls: empty for the main one.
func (s *Server) modelName(model string) string {
	if model == "hermes" || (len(s.opt.Models) > 0 && model == s.opt.Models[0]) {
		return ""
	}
	return model
}

// completion writes one chat completion, whole or as SSE chunks.
type completion struct {
	id, model string
	created   int64
	stream    bool
	usage     bool
	w         http.ResponseWriter
	flush     http.Flusher

	mu      sync.Mutex
	started bool
}

// start sends the session's id and, when streaming, the headers and the
// role chunk.
func (c *completion) start(sessionID string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.started {
		return
	}
	c.started = true
	c.w.Header().Set(SessionHeader, sessionID)
	if !c.stream {
		return
	}
	h := c.w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	c.w.WriteHeader(http.StatusOK)
	c.chunk(map[string]any{"role": "assistant", "content": ""}, nil, nil)
}

// event streams the turn's text and tool progress. Tool progress goes as
// SSE comment lines, which OpenAI clients skip: the openai SDK yields
// every named event as a chunk, so an "event:" line would break them.
func (c *completion) event(e agent.Event) {
	if !c.stream {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.started {
		return
	}
	switch e.Kind {
	case agent.EventText:
		if e.Text != "" {
			c.chunk(map[string]any{"content": e.Text}, nil, nil)
		}
	case agent.EventToolStarted, agent.EventToolFinished:
		toolComment(c.w, e)
		c.flushNow()
	}
}

// toolComment writes a tool's progress as an SSE comment line.
func toolComment(w http.ResponseWriter, e agent.Event) {
	status := "started"
	if e.Kind == agent.EventToolFinished {
		status = "finished"
	}
	b, _ := json.Marshal(map[string]any{"name": e.Tool.Call.Name, "status": status, "index": e.Tool.Index})
	fmt.Fprintf(w, ": hermes.tool %s\n\n", b)
}

// chunkJSON is a chat.completion.chunk, its fields in OpenAI's order; a
// struct rather than a map, since one is encoded for every delta.
type chunkJSON struct {
	ID      string        `json:"id"`
	Object  string        `json:"object"`
	Created int64         `json:"created"`
	Model   string        `json:"model"`
	Choices []choiceDelta `json:"choices"`
	Usage   *usageJSON    `json:"usage,omitempty"`
}

// choiceDelta is a chunk's choice.
type choiceDelta struct {
	Index        int            `json:"index"`
	Delta        map[string]any `json:"delta"`
	FinishReason *string        `json:"finish_reason"`
}

// chunk writes one chat.completion.chunk.
func (c *completion) chunk(delta map[string]any, finish *string, usage *usageJSON) {
	v := chunkJSON{ID: c.id, Object: "chat.completion.chunk", Created: c.created, Model: c.model, Choices: []choiceDelta{}, Usage: usage}
	if delta != nil {
		v.Choices = append(v.Choices, choiceDelta{Delta: delta, FinishReason: finish})
	}
	b, _ := json.Marshal(v)
	line := make([]byte, 0, len(b)+8)
	c.w.Write(append(append(append(line, "data: "...), b...), "\n\n"...))
	c.flushNow()
}

func (c *completion) flushNow() {
	if c.flush != nil {
		c.flush.Flush()
	}
}

// usageJSON is OpenAI's usage object.
type usageJSON struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
}

func toUsage(u llm.Usage) *usageJSON {
	total := u.TotalTokens
	if total == 0 {
		total = u.InputTokens + u.OutputTokens
	}
	return &usageJSON{PromptTokens: u.InputTokens, CompletionTokens: u.OutputTokens, TotalTokens: total}
}

// finish ends the completion with the turn's answer.
func (c *completion) finish(res *Result) {
	finish := "stop"
	if res.Stopped == agent.StopTruncated || res.Stopped == agent.StopMaxTurns {
		finish = "length"
	}
	if res.Err != nil && strings.TrimSpace(res.Final) == "" {
		c.fail(fmt.Errorf("the turn stopped before an answer: %w", res.Err))
		return
	}
	c.start(res.SessionID)
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.stream {
		writeJSON(c.w, http.StatusOK, map[string]any{"id": c.id, "object": "chat.completion", "created": c.created, "model": c.model,
			"choices": []map[string]any{{"index": 0, "message": map[string]any{"role": "assistant", "content": res.Final}, "finish_reason": finish}},
			"usage":   toUsage(res.Usage)})
		return
	}
	c.chunk(map[string]any{}, &finish, nil)
	if c.usage {
		c.chunk(nil, nil, toUsage(res.Usage))
	}
	fmt.Fprint(c.w, "data: [DONE]\n\n")
	c.flushNow()
}

// fail reports err: as the response before anything was sent, as an
// error event in the stream after.
func (c *completion) fail(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	status, param := http.StatusInternalServerError, ""
	var ae *Error
	if errors.As(err, &ae) {
		status, param = ae.Status, ae.Param
	}
	if c.started && c.stream {
		b, _ := json.Marshal(map[string]apiError{"error": {Message: err.Error(), Type: "api_error"}})
		fmt.Fprintf(c.w, "data: %s\n\n", b)
		c.flushNow()
		return
	}
	c.started = true
	writeError(c.w, status, "api_error", param, err.Error())
}

func randomID() string {
	var b [12]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
