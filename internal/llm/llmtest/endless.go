package llmtest

import (
	"fmt"
	"net/http"
	"strings"
)

// Endless names what a reply that never ends keeps sending (Reply.Endless),
// for tests of what a client does with a model that does not stop: how
// much it holds, whether it cuts the stream, whether it can be stopped.
type Endless string

// The ways a reply can go on for ever. Each piece repeats the reply's Text
// (default "all work and no play "), cut to ChunkSize runes when it is set.
const (
	// EndlessText streams reply text.
	EndlessText Endless = "text"
	// EndlessReasoning streams reasoning: reasoning_content, a Responses
	// reasoning summary, an Anthropic thinking block.
	EndlessReasoning Endless = "reasoning"
	// EndlessArguments streams the arguments of one tool call (to the
	// reply's first ToolCalls name, or "endless"): an object whose one
	// string value never closes.
	EndlessArguments Endless = "arguments"
	// EndlessLine sends one line that never ends: for a streamed request
	// an SSE data line without a newline, for the other a JSON body
	// without an end.
	EndlessLine Endless = "line"
	// EndlessParts opens part after part, each empty: new tool calls
	// (Chat Completions), output items (Responses), content blocks
	// (Anthropic).
	EndlessParts Endless = "parts"
	// EndlessEmpty sends keep-alive comments and nothing else.
	EndlessEmpty Endless = "empty"
)

// defaultFiller is what an endless reply repeats when its Text is empty.
const defaultFiller = "all work and no play "

// endlessPiece is the piece an endless reply repeats.
func endlessPiece(rep Reply) string {
	s := rep.Text
	if s == "" {
		s = defaultFiller
	}
	if rep.ChunkSize > 0 {
		s = strings.Repeat(s, rep.ChunkSize/max(1, len([]rune(s)))+1)
		if r := []rune(s); len(r) > rep.ChunkSize {
			s = string(r[:rep.ChunkSize])
		}
	}
	return s
}

// endlessCall is the name of the tool an EndlessArguments reply calls.
func endlessCall(rep Reply) string {
	if len(rep.ToolCalls) > 0 && rep.ToolCalls[0].Name != "" {
		return rep.ToolCalls[0].Name
	}
	return "endless"
}

// writeEndless answers with a reply that goes on until the client goes
// away or the server closes.
func (s *Server) writeEndless(w http.ResponseWriter, r *http.Request, req *Request, rep Reply) {
	a := resolve(req, Reply{Model: rep.Model})
	piece := endlessPiece(rep)
	sw := &sseWriter{w: w, rc: http.NewResponseController(w), ctx: r.Context(), quit: s.quit}
	if !req.Stream || rep.Endless == EndlessLine {
		ct := "application/json"
		prefix := `{"id":"endless","text":"`
		if req.Stream {
			ct, prefix = "text/event-stream; charset=utf-8", `data: {"text":"`
		}
		w.Header().Set("Content-Type", ct)
		w.WriteHeader(http.StatusOK)
		sw.raw(prefix)
		for !sw.dead {
			sw.raw(piece)
		}
		return
	}
	if !sw.start(http.StatusOK) {
		return
	}
	if rep.Endless == EndlessEmpty {
		comments := strings.Repeat(": keep-alive\n\n", 256)
		for !sw.dead {
			sw.raw(comments)
		}
		return
	}
	e := endless{sw: sw, a: a, kind: rep.Endless, piece: piece, name: endlessCall(rep)}
	protocolFor(req.API).endless(&e)
}

// raw writes text as it is, flushed, for replies that are not events.
func (sw *sseWriter) raw(text string) {
	if sw.dead || sw.ctx.Err() != nil {
		sw.dead = true
		return
	}
	if _, err := sw.w.Write([]byte(text)); err != nil {
		sw.dead = true
		return
	}
	if err := sw.rc.Flush(); err != nil {
		sw.dead = true
	}
}

// endless is one never-ending stream being written: each protocol opens
// the block or item its kind needs and then sends delta after delta.
type endless struct {
	sw    *sseWriter
	a     *answer
	kind  Endless
	piece string
	name  string
}

// endlessArgsOpen is the first piece of an endless argument stream: a
// JSON object whose string value the following pieces continue.
const endlessArgsOpen = `{"input":"`

// forever calls send until the client is gone.
func (e *endless) forever(send func()) {
	for !e.sw.dead {
		send()
	}
}

// callID is the id of an EndlessArguments reply's call.
func (e *endless) callID(prefix string) string {
	return fmt.Sprintf("%sllmtest_endless_%d", prefix, e.a.req.Index)
}

func (chatProtocol) endless(e *endless) {
	chunk := func(delta map[string]any) {
		e.sw.event("", chatObject{ID: chatID(e.a), Object: "chat.completion.chunk", Created: created, Model: e.a.model,
			Choices: []chatChoice{{Index: 0, Delta: delta}}})
	}
	chunk(map[string]any{"role": "assistant", "content": ""})
	switch e.kind {
	case EndlessReasoning:
		e.forever(func() { chunk(map[string]any{"reasoning_content": e.piece}) })
	case EndlessParts:
		n := 0
		e.forever(func() {
			index := n
			n++
			chunk(map[string]any{"tool_calls": []chatCall{{Index: &index, ID: fmt.Sprintf("%s_%d", e.callID("call_"), n), Type: "function",
				Function: chatFunction{Name: e.name}}}})
		})
	case EndlessArguments:
		index := 0
		chunk(map[string]any{"tool_calls": []chatCall{{Index: &index, ID: e.callID("call_"), Type: "function",
			Function: chatFunction{Name: e.name, Arguments: endlessArgsOpen}}}})
		e.forever(func() {
			chunk(map[string]any{"tool_calls": []chatCall{{Index: &index, Function: chatFunction{Arguments: e.piece}}}})
		})
	default:
		e.forever(func() { chunk(map[string]any{"content": e.piece}) })
	}
}

func (anthropicProtocol) endless(e *endless) {
	send := func(typ string, fields map[string]any) {
		fields["type"] = typ
		e.sw.event(typ, fields)
	}
	send("message_start", map[string]any{"message": anthropicMessage(e.a, []any{}, nil, anthropicUsage(e.a.usage, 1))})
	if e.kind == EndlessParts {
		n := 0
		e.forever(func() {
			send("content_block_start", map[string]any{"index": n, "content_block": map[string]any{"type": "text", "text": ""}})
			n++
		})
		return
	}
	block := map[string]any{"type": "text", "text": ""}
	delta := map[string]any{"type": "text_delta", "text": e.piece}
	switch e.kind {
	case EndlessReasoning:
		block = map[string]any{"type": "thinking", "thinking": "", "signature": ""}
		delta = map[string]any{"type": "thinking_delta", "thinking": e.piece}
	case EndlessArguments:
		block = map[string]any{"type": "tool_use", "id": e.callID("toolu_"), "name": e.name, "input": map[string]any{}}
		delta = map[string]any{"type": "input_json_delta", "partial_json": e.piece}
	}
	send("content_block_start", map[string]any{"index": 0, "content_block": block})
	if e.kind == EndlessArguments {
		send("content_block_delta", map[string]any{"index": 0, "delta": map[string]any{"type": "input_json_delta", "partial_json": endlessArgsOpen}})
	}
	e.forever(func() { send("content_block_delta", map[string]any{"index": 0, "delta": delta}) })
}

func (responsesProtocol) endless(e *endless) {
	seq := 0
	send := func(typ string, fields map[string]any) {
		fields["type"], fields["sequence_number"] = typ, seq
		seq++
		e.sw.event(typ, fields)
	}
	a := e.a
	send("response.created", map[string]any{"response": responseObject(a, "in_progress", nil, []any{}, nil, nil)})
	switch e.kind {
	case EndlessParts:
		n := 0
		e.forever(func() {
			item := map[string]any{"id": fmt.Sprintf("msg_llmtest%d_%d", a.req.Index, n), "type": "message", "status": "in_progress", "role": "assistant", "content": []any{}}
			send("response.output_item.added", map[string]any{"output_index": n, "item": item})
			n++
		})
	case EndlessReasoning:
		id := fmt.Sprintf("rs_llmtest%d", a.req.Index)
		send("response.output_item.added", map[string]any{"output_index": 0, "item": reasoningItem(a, []any{})})
		e.forever(func() {
			send("response.reasoning_summary_text.delta", map[string]any{"item_id": id, "output_index": 0, "summary_index": 0, "delta": e.piece})
		})
	case EndlessArguments:
		id := fmt.Sprintf("fc_llmtest%d_0", a.req.Index)
		item := map[string]any{"id": id, "type": "function_call", "status": "in_progress", "arguments": "", "call_id": e.callID("call_"), "name": e.name}
		send("response.output_item.added", map[string]any{"output_index": 0, "item": item})
		send("response.function_call_arguments.delta", map[string]any{"item_id": id, "output_index": 0, "delta": endlessArgsOpen})
		e.forever(func() {
			send("response.function_call_arguments.delta", map[string]any{"item_id": id, "output_index": 0, "delta": e.piece})
		})
	default:
		id := fmt.Sprintf("msg_llmtest%d", a.req.Index)
		send("response.output_item.added", map[string]any{"output_index": 0, "item": messageItem(a, "in_progress", []any{})})
		e.forever(func() {
			send("response.output_text.delta", map[string]any{"item_id": id, "output_index": 0, "content_index": 0, "delta": e.piece, "logprobs": []any{}})
		})
	}
}
