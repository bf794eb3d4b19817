package anthropic

import (
	"context"
	"encoding/json"
	"io"

	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/llm/sse"
)

// streamEvent is the data of one event of a Messages stream. The fields of
// every event type share one struct so that each event is decoded once.
type streamEvent struct {
	Type         string        `json:"type"`
	Message      *replyMessage `json:"message"`
	Index        int           `json:"index"`
	ContentBlock *replyBlock   `json:"content_block"`
	Delta        *blockDelta   `json:"delta"`
	Usage        *usageCounts  `json:"usage"`
}

// errStreamCut is the message of the error a stream ends with when the
// connection closes before message_stop: the reply may be incomplete, and
// a retry may well get all of it.
const errStreamCut = "stream ended before message_stop"

// readStream reads a Messages event stream into a, yielding an event for
// each piece of text, reasoning and tool call as it arrives, then EventDone
// at message_stop. Any other end (an error event, a cut connection, an
// event that does not decode, ctx cancelled) yields EventError with what
// had arrived.
func (c *Client) readStream(ctx context.Context, body io.Reader, a *assembler, yield func(llm.Event) bool) {
	r := sse.NewReaderLimit(a.budget.Body(body), a.budget.MaxBody())
	fail := func(err error) {
		resp := a.response()
		resp.FinishReason = llm.FinishError
		yield(llm.Event{Kind: llm.EventError, Err: err, Response: resp})
	}
	for {
		ev, err := r.Next()
		if err != nil {
			if err == io.EOF {
				err = &llm.Error{Kind: llm.ErrNetwork, Provider: c.ep.Name, Message: errStreamCut}
			} else {
				err = llm.ReadError(ctx, c.ep.Name, err)
			}
			fail(err)
			return
		}
		// Events already buffered would otherwise keep coming after the
		// caller gave up.
		if err := ctx.Err(); err != nil {
			fail(err)
			return
		}
		if ev.Name == "ping" {
			continue
		}
		if i, d, ok := fastDelta(ev.Data); ok {
			out, ok := a.blockDelta(i, &d)
			if err := a.budget.Err(); err != nil {
				fail(err)
				return
			}
			if ok && !yield(out) {
				return
			}
			continue
		}
		var se streamEvent
		if err := json.Unmarshal(ev.Data, &se); err != nil {
			if ev.Name == "error" {
				fail(c.streamError(ev.Data))
			} else {
				fail(llm.InvalidResponse(c.ep.Name, "undecodable "+eventName(ev.Name)+" event", ev.Data))
			}
			return
		}
		// The JSON type names the event; the SSE event field is only a
		// fallback, so that servers that leave it out still work.
		typ := se.Type
		if typ == "" {
			typ = ev.Name
		}
		out, ok, err := c.apply(a, typ, &se, ev.Data)
		if err == nil {
			err = a.budget.Err()
		}
		switch {
		case err != nil:
			fail(err)
			return
		case typ == "message_stop":
			yield(llm.Event{Kind: llm.EventDone, Response: a.response()})
			return
		case ok && !yield(out):
			return
		}
	}
}

// apply feeds one decoded event to a and returns the event to yield, if
// any, or the error that ends the stream.
func (c *Client) apply(a *assembler, typ string, se *streamEvent, data []byte) (llm.Event, bool, error) {
	switch typ {
	case "message_start":
		if se.Message == nil {
			return llm.Event{}, false, llm.InvalidResponse(c.ep.Name, "message_start without a message", data)
		}
		a.begin(se.Message)
		if se.Message.Usage != nil {
			return llm.Event{Kind: llm.EventUsage, Usage: a.usage.usage()}, true, nil
		}
	case "content_block_start":
		if se.ContentBlock == nil {
			return llm.Event{}, false, llm.InvalidResponse(c.ep.Name, "content_block_start without a content_block", data)
		}
		ev, ok := a.startBlock(se.Index, se.ContentBlock)
		return ev, ok, nil
	case "content_block_delta":
		if se.Delta == nil {
			return llm.Event{}, false, llm.InvalidResponse(c.ep.Name, "content_block_delta without a delta", data)
		}
		ev, ok := a.blockDelta(se.Index, se.Delta)
		return ev, ok, nil
	case "message_delta":
		if se.Delta != nil && se.Delta.StopReason != "" {
			a.stopReason = se.Delta.StopReason
		}
		if se.Usage != nil {
			a.usage.merge(se.Usage)
			return llm.Event{Kind: llm.EventUsage, Usage: a.usage.usage()}, true, nil
		}
	case "error":
		return llm.Event{}, false, c.streamError(data)
	}
	// content_block_stop, message_stop, ping and event types added after
	// this adapter was written carry nothing to apply.
	return llm.Event{}, false, nil
}

// streamError classifies an error event that arrived inside the 200
// stream, such as {"type":"error","error":{"type":"overloaded_error",...}}.
func (c *Client) streamError(data []byte) *llm.Error {
	e := llm.ParseError(c.ep.Name, 0, nil, data)
	e.InStream = true
	return e
}

func eventName(name string) string {
	if name == "" {
		return "unnamed"
	}
	return name
}
