package api

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"

	"github.com/hermes-go/hermes/internal/agent"
	"github.com/hermes-go/hermes/internal/llm"
)

// responseStream writes one response of POST /v1/responses: whole, or
// as the Responses API's events (response.created, the output items,
// their text parts and deltas, then response.completed or
// response.failed), each numbered by sequence_number. The text the model
// writes before each of its tool calls is an output message of its own,
// as the stored conversation keeps it, so a streamed response, a whole
// one and one retrieved later have the same output.
type responseStream struct {
	w       http.ResponseWriter
	flush   http.Flusher
	stream  bool
	model   string
	created int64
	prev    string

	mu      sync.Mutex
	id      string
	session string
	started bool
	seq     int
	items   []map[string]any // the finished output messages
	itemID  string           // the open output message, when not empty
	text    strings.Builder  // its text so far
}

// start takes the response's id once the turn's session is known and,
// when streaming, sends the headers, response.created and
// response.in_progress.
func (rs *responseStream) start(ref responseRef) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	rs.id, rs.session, rs.started = ref.String(), ref.session, true
	if !rs.stream {
		return
	}
	h := rs.w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	rs.w.WriteHeader(http.StatusOK)
	rs.send("response.created", map[string]any{"response": rs.object("in_progress")})
	rs.send("response.in_progress", map[string]any{"response": rs.object("in_progress")})
}

// rename gives the response the id ref.
func (rs *responseStream) rename(ref responseRef) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	rs.id, rs.session = ref.String(), ref.session
}

// event takes the turn's text as output_text deltas; a tool's start ends
// the open output message, and tool progress goes as SSE comment lines,
// which clients skip.
func (rs *responseStream) event(e agent.Event) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if !rs.started {
		return
	}
	switch e.Kind {
	case agent.EventText:
		rs.delta(e.Text)
	case agent.EventRetry:
		// The text of the failed call is void; once streamed, it stays.
		if !rs.stream {
			rs.itemID = ""
			rs.text.Reset()
		}
	case agent.EventToolStarted, agent.EventToolFinished:
		rs.closeItem()
		if rs.stream {
			toolComment(rs.w, e)
			rs.flushNow()
		}
	}
}

// delta adds text to the open output message, opening one first when
// none is.
func (rs *responseStream) delta(text string) {
	if text == "" {
		return
	}
	if rs.itemID == "" {
		rs.itemID = "msg_" + randomID()
		rs.send("response.output_item.added", map[string]any{"output_index": len(rs.items), "item": outputMessage(rs.itemID, "in_progress", "")})
		rs.send("response.content_part.added", rs.at(map[string]any{"part": outputText("")}))
	}
	rs.text.WriteString(text)
	rs.send("response.output_text.delta", rs.at(map[string]any{"delta": text, "logprobs": []any{}}))
}

// closeItem ends the open output message, if one is.
func (rs *responseStream) closeItem() {
	if rs.itemID == "" {
		return
	}
	text := rs.text.String()
	rs.send("response.output_text.done", rs.at(map[string]any{"text": text, "logprobs": []any{}}))
	rs.send("response.content_part.done", rs.at(map[string]any{"part": outputText(text)}))
	item := outputMessage(rs.itemID, "completed", text)
	rs.send("response.output_item.done", map[string]any{"output_index": len(rs.items), "item": item})
	rs.items = append(rs.items, item)
	rs.itemID = ""
	rs.text.Reset()
}

// finish ends the response with the turn's answer and usage:
// response.completed, or response.incomplete when the answer was cut at
// the model's output limit.
func (rs *responseStream) finish(res *Result) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if len(rs.items) == 0 && rs.itemID == "" {
		// The model's text came as no event: the answer is the text.
		rs.delta(res.Final)
	}
	rs.closeItem()
	status, end := "completed", "response.completed"
	obj := rs.object(status)
	if res.Stopped == agent.StopTruncated {
		status, end = "incomplete", "response.incomplete"
		obj["status"], obj["incomplete_details"] = status, map[string]string{"reason": "max_output_tokens"}
	}
	obj["usage"] = responseUsage(res.Usage)
	obj["output"] = rs.items
	if !rs.stream {
		writeJSON(rs.w, http.StatusOK, obj)
		return
	}
	rs.send(end, map[string]any{"response": obj})
}

// fail reports err: as the response before the stream began, as
// response.failed after.
func (rs *responseStream) fail(err error) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if !rs.started || !rs.stream {
		writeRunError(rs.w, err, "")
		return
	}
	obj := rs.object("failed")
	code := "server_error"
	var ae *Error
	if errors.As(err, &ae) && ae.Status/100 == 4 {
		code = "invalid_request"
	}
	obj["error"] = map[string]string{"code": code, "message": err.Error()}
	rs.send("response.failed", map[string]any{"response": obj})
}

// at adds where the open text part is to an event.
func (rs *responseStream) at(v map[string]any) map[string]any {
	v["item_id"], v["output_index"], v["content_index"] = rs.itemID, len(rs.items), 0
	return v
}

// send writes one event, numbered, when streaming.
func (rs *responseStream) send(typ string, v map[string]any) {
	if !rs.stream {
		return
	}
	v["type"], v["sequence_number"] = typ, rs.seq
	rs.seq++
	b, _ := json.Marshal(v)
	fmt.Fprintf(rs.w, "event: %s\ndata: %s\n\n", typ, b)
	rs.flushNow()
}

func (rs *responseStream) flushNow() {
	if rs.flush != nil {
		rs.flush.Flush()
	}
}

// object is the response object so far.
func (rs *responseStream) object(status string) map[string]any {
	return responseObject(rs.id, rs.model, rs.created, status, rs.prev)
}

// responseObject is a response as OpenAI shapes it, without output.
func responseObject(id, model string, created int64, status, prev string) map[string]any {
	return map[string]any{
		"id": id, "object": "response", "created_at": created, "status": status, "model": model,
		"error": nil, "incomplete_details": nil, "previous_response_id": nullable(prev),
		"output": []any{}, "usage": nil, "tools": []any{}, "parallel_tool_calls": false, "metadata": map[string]any{},
	}
}

// outputMessage is the assistant's output item holding text.
func outputMessage(id, status, text string) map[string]any {
	content := []any{}
	if status != "in_progress" {
		content = append(content, outputText(text))
	}
	return map[string]any{"type": "message", "id": id, "status": status, "role": "assistant", "content": content}
}

func outputText(text string) map[string]any {
	return map[string]any{"type": "output_text", "text": text, "annotations": []any{}}
}

// responseUsage is the Responses API's usage object.
func responseUsage(u llm.Usage) map[string]any {
	c := toUsage(u)
	return map[string]any{
		"input_tokens": c.PromptTokens, "output_tokens": c.CompletionTokens, "total_tokens": c.TotalTokens,
		"input_tokens_details":  map[string]int{"cached_tokens": u.CacheReadTokens},
		"output_tokens_details": map[string]int{"reasoning_tokens": u.ReasoningTokens},
	}
}
