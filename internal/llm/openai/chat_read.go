package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"io"

	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/llm/sse"
)

// chatDone is the sentinel data OpenAI-style streams end with.
var chatDone = []byte("[DONE]")

// readStream parses a streamed reply (chat.completion.chunk events over
// SSE) into r and yields its events as they are decoded, until r's budget
// is spent (llm.Budget).
//
// Servers end or break a stream in several ways, each handled here:
//   - "data: [DONE]" ends it; nothing after it is read;
//   - an SSE event named "error" (Groq) or a chunk with a top-level "error"
//     field (OpenRouter) is a failure inside an HTTP 200 reply: the stream
//     ends with that error, marked InStream, and the partial reply;
//   - the body ends without [DONE]: that is a normal end if a finish
//     reason was seen, and otherwise a cut connection (a retryable network
//     error), because the model never said it had finished.
//
// SSE comments, blank data and events with other names (keep-alive pings)
// are skipped.
func (c *Chat) readStream(ctx context.Context, r *chatReply, body io.Reader, yield func(llm.Event) bool) {
	rd := sse.NewReaderLimit(r.budget.Body(body), r.budget.MaxBody())
	for {
		ev, err := rd.Next()
		if err == io.EOF {
			if r.finished {
				r.done(yield)
			} else {
				r.fail(yield, &llm.Error{Kind: llm.ErrNetwork, Provider: c.ep.Name, Message: "stream ended before the model finished"})
			}
			return
		}
		if err != nil {
			r.fail(yield, llm.ReadError(ctx, c.ep.Name, err))
			return
		}
		data := bytes.TrimSpace(ev.Data)
		switch ev.Name {
		case "", "message":
		case "error":
			r.fail(yield, c.streamError(data))
			return
		default:
			continue
		}
		if len(data) == 0 {
			continue
		}
		if bytes.Equal(data, chatDone) {
			r.done(yield)
			return
		}
		var chunk chatChunk
		if err := json.Unmarshal(data, &chunk); err != nil {
			r.fail(yield, llm.InvalidResponse(c.ep.Name, "undecodable stream chunk ("+err.Error()+")", data))
			return
		}
		r.add(&chunk, false)
		if err := r.budget.Err(); err != nil {
			r.fail(yield, err)
			return
		}
		if chunk.failed() {
			r.fail(yield, c.streamError(data))
			return
		}
		if !r.flush(yield) {
			return
		}
	}
}

// streamError builds the error for a failure reported inside an HTTP 200
// reply from the payload that carried it.
func (c *Chat) streamError(data []byte) *llm.Error {
	e := llm.ParseError(c.ep.Name, 0, nil, data)
	e.InStream = true
	return e
}

// readJSON parses a non-streamed reply (one chat.completion body) into r
// and yields the same events a stream would have produced, in one burst:
// reasoning, text, tool calls, usage, then EventDone.
//
// Some servers answer HTTP 200 with an error envelope instead of a reply
// (OpenRouter when the upstream provider fails after routing); that ends
// the stream with the error, marked InStream.
func (c *Chat) readJSON(r *chatReply, data []byte, yield func(llm.Event) bool) {
	data = bytes.TrimSpace(data)
	var reply chatChunk
	if err := json.Unmarshal(data, &reply); err != nil {
		r.fail(yield, llm.InvalidResponse(c.ep.Name, "response is not a chat completion ("+err.Error()+")", data))
		return
	}
	r.add(&reply, true)
	switch {
	case r.budget.Err() != nil:
		r.fail(yield, r.budget.Err())
	case reply.failed():
		r.fail(yield, c.streamError(data))
	case len(reply.Choices) == 0:
		r.fail(yield, llm.InvalidResponse(c.ep.Name, "response has no choices", data))
	default:
		r.done(yield)
	}
}
