package llmtest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"time"
	"unicode/utf8"

	"github.com/hermes-go/hermes/internal/llm"
)

// Reply is one scripted model answer. The zero Reply is an empty answer that
// ends normally; a test sets what it cares about and the server fills in
// the rest (ids, model, usage, finish reason) the way the vendor would, in
// the wire format of whichever protocol asked.
type Reply struct {
	// Text is the visible answer.
	Text string
	// Reasoning is the model's visible thinking: reasoning_content on Chat
	// Completions, a reasoning item with a summary on Responses, a thinking
	// block (with a signature) on Anthropic Messages.
	Reasoning string
	// ToolCalls are the calls the model makes, in order. A call without an
	// ID gets one that is unique for the server's lifetime, so that a
	// conversation built from several replies never repeats an id; empty
	// Arguments are sent as {} (use Raw to send the empty-string quirk).
	ToolCalls []llm.ToolCall
	// FinishReason is why the model stopped, in hermes's vendor-neutral
	// terms: "" (tool_calls when there are calls, else stop), stop, length,
	// tool_calls or content_filter, each mapped to the protocol's own value
	// (Anthropic end_turn, max_tokens, tool_use, refusal; Responses status
	// incomplete with a reason). Any other value is sent verbatim.
	FinishReason llm.FinishReason
	// Usage is reported as given (in hermes's meaning: InputTokens is the
	// whole prompt, cached or not); nil reports counts estimated from the
	// lengths of the conversation and the reply.
	Usage *llm.Usage
	// Model is the model the reply names; empty echoes the request's.
	Model string
	// Status, when 400 or more, answers with an HTTP error in the
	// protocol's own error envelope (see Error). A status below 400 is
	// used for the status line of a normal or Raw reply.
	Status int
	// Error describes a failure. Without InStream it is sent as an HTTP
	// error (Status, or 500); with InStream and a streamed request it ends
	// a 200 stream after the reply's content, as the protocol does it.
	Error *ErrorReply
	// Header holds extra response headers.
	Header http.Header
	// Delay holds the reply back before the response headers, for
	// first-byte timeout tests. A client that gives up ends the wait.
	Delay time.Duration
	// ChunkSize is how many runes of text, reasoning or tool arguments go
	// in one stream event (default 8), so that streaming is really
	// exercised. For Raw it is the number of bytes per flushed write.
	ChunkSize int
	// StallAfter, when positive, sends that many SSE events and then hangs
	// until the client goes away, for idle-timeout tests. A negative value
	// hangs right after the response headers. A non-streamed reply with a
	// non-zero StallAfter sends its headers and never its body.
	StallAfter int
	// Endless, when set, makes the reply go on until the client goes away
	// or the server closes: text, reasoning or tool-call arguments delta
	// after delta, or one line without an end (see Endless). Text, when
	// set, is the piece repeated; ChunkSize, when set, its length in runes.
	// Of the other fields only Header, Delay and Model apply.
	Endless Endless
	// Raw is sent verbatim as the body instead of a generated reply, for
	// tests of vendor quirks; of the other fields only Status, Header,
	// Delay and ChunkSize apply. RawContentType is its Content-Type
	// (default text/event-stream for a streamed request, else
	// application/json).
	Raw            string
	RawContentType string
}

// ErrorReply is a scripted failure, sent in the error envelope of the
// protocol that asked: OpenAI {"error":{"message","type","param","code"}},
// Anthropic {"type":"error","error":{"type","message"},"request_id"}.
type ErrorReply struct {
	// Type is the vendor error type; empty picks the one the vendor uses
	// for the status (invalid_request_error, rate_limit_error, ...).
	Type string
	// Code is the OpenAI error code (Anthropic has none).
	Code string
	// Message is the human-readable text; empty uses the status text.
	Message string
	// RetryAfter sets the Retry-After header (whole seconds, rounded up)
	// and, on the OpenAI protocols, retry-after-ms.
	RetryAfter time.Duration
	// InStream sends the error inside a 200 stream: a Chat Completions
	// "event: error", a Responses "error" event followed by
	// response.failed, an Anthropic "event: error". A non-streamed request
	// gets it as an HTTP error instead.
	InStream bool
}

// Echo is a handler that answers with the text of the last user message,
// for tests that only need the model to say something predictable.
func Echo(r Request) Reply { return Reply{Text: r.LastUserText()} }

// defaultChunk is the stream chunk size when a Reply sets none.
const defaultChunk = 8

// created is the timestamp every reply carries, fixed so that replies are
// the same on every run.
const created = 1735689600 // 2025-01-01T00:00:00Z

// answer is a Reply resolved against the request it answers: ids, model,
// finish reason and usage are filled in.
type answer struct {
	req       *Request
	model     string
	text      string
	reasoning string
	calls     []llm.ToolCall
	finish    llm.FinishReason
	usage     llm.Usage
	chunk     int
	// streamErr ends a streamed reply in place of its normal ending.
	streamErr *ErrorReply
}

// resolve fills in what rep leaves to the server.
func resolve(req *Request, rep Reply) *answer {
	a := &answer{req: req, model: rep.Model, text: rep.Text, reasoning: rep.Reasoning, finish: rep.FinishReason, chunk: rep.ChunkSize}
	if a.model == "" {
		a.model = req.Model
	}
	if a.model == "" {
		a.model = DefaultModel
	}
	if a.chunk <= 0 {
		a.chunk = defaultChunk
	}
	prefix := "call_"
	if req.API == AnthropicMessages {
		prefix = "toolu_"
	}
	for i, c := range rep.ToolCalls {
		if c.ID == "" {
			c.ID = fmt.Sprintf("%sllmtest_%d_%d", prefix, req.Index, i)
		}
		c.Arguments = canonicalArgs(c.Arguments)
		a.calls = append(a.calls, c)
	}
	if a.finish == "" {
		a.finish = llm.FinishStop
		if len(a.calls) > 0 {
			a.finish = llm.FinishToolCalls
		}
	}
	if rep.Usage != nil {
		a.usage = *rep.Usage
	} else {
		a.usage = estimateUsage(req, a)
	}
	if rep.Error != nil && rep.Error.InStream {
		e := *rep.Error
		a.streamErr = &e
	}
	return a
}

// estimateUsage counts roughly four characters per token, never zero.
func estimateUsage(req *Request, a *answer) llm.Usage {
	in := 0
	for _, m := range req.Messages {
		in += len(m.Text()) + len(m.Reasoning)
		for _, c := range m.ToolCalls {
			in += len(c.Name) + len(c.Arguments)
		}
	}
	out := len(a.text)
	for _, c := range a.calls {
		out += len(c.Name) + len(c.Arguments)
	}
	u := llm.Usage{InputTokens: tokens(in), OutputTokens: tokens(out)}
	if a.reasoning != "" {
		u.ReasoningTokens = tokens(len(a.reasoning))
		u.OutputTokens += u.ReasoningTokens
	}
	u.TotalTokens = u.InputTokens + u.OutputTokens
	return u
}

func tokens(chars int) int { return max(1, (chars+3)/4) }

// total is the usage's total, computed when the test gave none.
func total(u llm.Usage) int {
	if u.TotalTokens != 0 {
		return u.TotalTokens
	}
	return u.InputTokens + u.OutputTokens
}

// chunks splits s into pieces of at most n runes; "" gives no pieces.
func chunks(s string, n int) []string {
	var out []string
	for s != "" {
		i, runes := 0, 0
		for i < len(s) && runes < n {
			_, size := utf8.DecodeRuneInString(s[i:])
			i += size
			runes++
		}
		out = append(out, s[:i])
		s = s[i:]
	}
	return out
}

// argsObject returns tool-call arguments as a JSON value for protocols that
// carry them as an object (Anthropic tool_use input): empty becomes {}, and
// text that is not JSON is sent as a JSON string so the quirk reaches the
// client rather than breaking the server.
func argsObject(args string) json.RawMessage {
	switch {
	case args == "":
		return json.RawMessage("{}")
	case json.Valid([]byte(args)):
		return json.RawMessage(args)
	}
	b, _ := json.Marshal(args)
	return b
}
