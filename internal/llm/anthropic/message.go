package anthropic

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/hermes-go/hermes/internal/llm"
)

// readMessage reads a non-streamed reply: one Message object with all its
// content blocks. The blocks are fed through the same assembler as a
// stream's, so the caller receives the same kinds of events (each block
// whole, in order) and the same Response either way.
func (c *Client) readMessage(ctx context.Context, resp *http.Response, a *assembler, yield func(llm.Event) bool) {
	data, err := a.budget.ReadAll(resp)
	if err != nil {
		yield(llm.Event{Kind: llm.EventError, Err: llm.ReadError(ctx, c.ep.Name, err)})
		return
	}
	var m replyMessage
	if err := json.Unmarshal(data, &m); err != nil {
		yield(llm.Event{Kind: llm.EventError, Err: llm.InvalidResponse(c.ep.Name, "reply is not a Message object ("+err.Error()+")", data)})
		return
	}
	// Some gateways answer a failed call with status 200 and the error
	// envelope; it is classified like an HTTP error.
	if m.Type == "error" {
		yield(llm.Event{Kind: llm.EventError, Err: llm.ParseError(c.ep.Name, 0, resp.Header, data)})
		return
	}
	if m.Type != "" && m.Type != "message" {
		yield(llm.Event{Kind: llm.EventError, Err: llm.InvalidResponse(c.ep.Name, "reply of type "+m.Type+", want a message", data)})
		return
	}
	a.begin(&m)
	for i := range m.Content {
		if ev, ok := a.startBlock(i, &m.Content[i]); ok && !yield(ev) {
			return
		}
	}
	if err := a.budget.Err(); err != nil {
		yield(llm.Event{Kind: llm.EventError, Err: err})
		return
	}
	if m.Usage != nil && !yield(llm.Event{Kind: llm.EventUsage, Usage: a.usage.usage()}) {
		return
	}
	yield(llm.Event{Kind: llm.EventDone, Response: a.response()})
}

// replyMessage is a Message object: the whole non-streamed reply, or the
// empty shell that a stream's message_start carries.
type replyMessage struct {
	Type       string       `json:"type"`
	ID         string       `json:"id"`
	Model      string       `json:"model"`
	Content    []replyBlock `json:"content"`
	StopReason string       `json:"stop_reason"`
	Usage      *usageCounts `json:"usage"`
}

// replyBlock is a content block as received, whole (non-streamed) or as
// the first form a content_block_start announces.
type replyBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	Thinking  string          `json:"thinking"`
	Signature string          `json:"signature"`
	Data      string          `json:"data"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
}
