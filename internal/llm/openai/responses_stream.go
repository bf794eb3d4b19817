package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"strings"

	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/llm/sse"
)

// responsesEvent is the union of the streamed event payloads hermes reads.
// Every payload names its kind in "type" (the SSE event name repeats it);
// deltas point at their output item by item_id and output_index.
type responsesEvent struct {
	Type        string           `json:"type"`
	OutputIndex *int             `json:"output_index"`
	ItemID      string           `json:"item_id"`
	Delta       string           `json:"delta"`
	Item        *responsesItem   `json:"item"`
	Arguments   json.RawMessage  `json:"arguments"`
	Response    *responsesObject `json:"response"`
	Param       responsesText    `json:"param"`
}

// responsesStream turns one streamed reply into events. It keeps every
// output item as it grows, so that a stream cut short still leaves a usable
// partial response, and lets the complete items of output_item.done and of
// the final response object override what the deltas assembled.
type responsesStream struct {
	prov  *Responses
	ctx   context.Context
	yield func(llm.Event) bool
	// obj is the latest lifecycle snapshot (id, model, status).
	obj   responsesObject
	items []*responsesStreamItem
	calls int
	// err is the in-stream error event, kept until response.failed
	// arrives with the response's id and status.
	err *llm.Error
	// budget counts what the reply keeps; once it is spent the stream
	// ends with its error.
	budget *llm.Budget
}

// run reads events until the response ends, the body fails, or the
// caller stops listening.
func (p *responsesStream) run(rd *sse.Reader) {
	for {
		ev, err := rd.Next()
		if err == io.EOF {
			p.cut()
			return
		}
		if err != nil {
			p.fail(llm.ReadError(p.ctx, p.prov.ep.Name, err))
			return
		}
		data := bytes.TrimSpace(ev.Data)
		if len(data) == 0 || string(data) == "[DONE]" {
			continue
		}
		var e responsesEvent
		if err := json.Unmarshal(data, &e); err != nil {
			p.fail(llm.InvalidResponse(p.prov.ep.Name, "undecodable stream event", data))
			return
		}
		if e.Type == "" {
			e.Type = ev.Name
		}
		if !p.handle(&e, data) {
			return
		}
		if err := p.budget.Err(); err != nil {
			p.fail(err)
			return
		}
	}
}

// handle applies one event and reports whether to read on.
func (p *responsesStream) handle(e *responsesEvent, data []byte) bool {
	switch e.Type {
	case "response.created", "response.queued", "response.in_progress":
		if e.Response != nil {
			p.snapshot(e.Response)
		}
	case "response.output_item.added", "response.output_item.done":
		if e.Item == nil {
			return true
		}
		if e.Type == "response.output_item.added" {
			var it *responsesStreamItem
			if e.Item.ID == "" && e.OutputIndex == nil {
				it = p.add("", nil, e.Item.Type) // nothing to match: a new item
			} else {
				it = p.item(e.Item.ID, e.OutputIndex, e.Item.Type)
			}
			p.keep(it, e.Item)
			it.item = responsesMergeItem(it.item, *e.Item)
			return p.announce(it)
		}
		it := p.item(e.Item.ID, e.OutputIndex, e.Item.Type)
		p.keep(it, e.Item)
		it.item = responsesMergeItem(it.item, *e.Item)
		return p.catchUp(it)
	case "response.output_text.delta", "response.refusal.delta":
		it := p.item(e.ItemID, e.OutputIndex, "message")
		p.budget.Spend(len(e.Delta))
		it.text.WriteString(e.Delta)
		it.streamed = true
		return p.yield(llm.Event{Kind: llm.EventText, Text: e.Delta})
	case "response.reasoning_summary_text.delta", "response.reasoning_text.delta":
		it := p.item(e.ItemID, e.OutputIndex, "reasoning")
		p.budget.Spend(len(e.Delta))
		it.reasoning.WriteString(e.Delta)
		it.streamed = true
		return p.yield(llm.Event{Kind: llm.EventReasoning, Text: e.Delta})
	case "response.function_call_arguments.delta":
		it := p.item(e.ItemID, e.OutputIndex, "function_call")
		p.budget.Spend(len(e.Delta))
		it.args.WriteString(e.Delta)
		if !p.announce(it) {
			return false
		}
		it.streamed = true
		return p.yield(llm.Event{Kind: llm.EventToolCall, ToolCall: llm.ToolCallDelta{Index: it.call, Arguments: e.Delta}})
	case "response.function_call_arguments.done":
		it := p.item(e.ItemID, e.OutputIndex, "function_call")
		if len(e.Arguments) > 0 {
			it.item.Arguments = e.Arguments
		}
		return p.catchUp(it)
	case "error":
		p.err = llm.ParseError(p.prov.ep.Name, 0, nil, data)
		p.err.InStream = true
		if p.err.Param == "" {
			p.err.Param = string(e.Param)
		}
	case "response.completed", "response.incomplete", "response.failed":
		obj := e.Response
		if obj == nil {
			obj = &responsesObject{}
		}
		p.finish(obj, strings.TrimPrefix(e.Type, "response."))
		return false
	}
	return true
}

// keep charges the budget for what a whole item (output_item.added or
// .done) brings beyond what its deltas already did.
func (p *responsesStream) keep(it *responsesStreamItem, item *responsesItem) {
	streamed := it.text.Len() + it.reasoning.Len() + it.args.Len()
	if n := item.size() - streamed; n > 0 {
		p.budget.Spend(n)
	}
}

// snapshot records what a lifecycle event says about the response.
func (p *responsesStream) snapshot(obj *responsesObject) {
	if obj.ID != "" {
		p.obj.ID = obj.ID
	}
	if obj.Model != "" {
		p.obj.Model = obj.Model
	}
	if obj.Status != "" {
		p.obj.Status = obj.Status
	}
}

// announce yields the first fragment of a function call, carrying its
// call_id and name, once.
func (p *responsesStream) announce(it *responsesStreamItem) bool {
	if it.item.Type != "function_call" || it.announced || (it.item.CallID == "" && it.item.Name == "") {
		return true
	}
	it.announced = true
	return p.yield(llm.Event{Kind: llm.EventToolCall, ToolCall: llm.ToolCallDelta{Index: it.call, ID: it.item.CallID, Name: it.item.Name}})
}

// catchUp yields, for an item that is now complete but whose deltas never
// came, its whole content, so that the events a caller rendered always add
// up to the final response.
func (p *responsesStream) catchUp(it *responsesStreamItem) bool {
	if it.streamed {
		return true
	}
	done := it.final()
	switch done.Type {
	case "message":
		if t := done.text(); t != "" {
			it.streamed = true
			return p.yield(llm.Event{Kind: llm.EventText, Text: t})
		}
	case "reasoning":
		if t := done.reasoning(); t != "" {
			it.streamed = true
			return p.yield(llm.Event{Kind: llm.EventReasoning, Text: t})
		}
	case "function_call":
		if !p.announce(it) {
			return false
		}
		if args := llm.ArgumentsText(done.Arguments); args != "" {
			it.streamed = true
			return p.yield(llm.Event{Kind: llm.EventToolCall, ToolCall: llm.ToolCallDelta{Index: it.call, Arguments: args}})
		}
	}
	return true
}

// finish ends the stream on a terminal event. The final response object
// carries the complete output, usage and status; when a server sends it
// without output, the streamed items stand in.
func (p *responsesStream) finish(obj *responsesObject, outcome string) {
	p.snapshot(obj)
	merged := *obj
	merged.ID, merged.Model = p.obj.ID, p.obj.Model
	if merged.Status == "" {
		merged.Status = outcome
	}
	items := merged.Output
	if len(items) == 0 {
		items = p.assembled()
	}
	resp := p.prov.response(&merged, items)
	if merged.Usage != nil && !p.yield(llm.Event{Kind: llm.EventUsage, Usage: resp.Usage}) {
		return
	}
	if outcome != "failed" && resp.FinishReason != llm.FinishError {
		p.yield(llm.Event{Kind: llm.EventDone, Response: resp})
		return
	}
	err := p.err
	if err == nil {
		err = p.prov.failedError(&merged, true)
	} else if merged.hasError() {
		// The error event said it first and usually best (it has the
		// type); response.failed may fill what it left out.
		fe := p.prov.failedError(&merged, true)
		if err.Code == "" {
			err.Code = fe.Code
		}
		if err.Message == "" {
			err.Message = fe.Message
		}
	}
	resp.FinishReason = llm.FinishError
	p.yield(llm.Event{Kind: llm.EventError, Err: err, Response: resp})
}

// cut ends a stream whose body ended before any terminal event: with the
// in-stream error if one came, else as a network failure worth retrying.
func (p *responsesStream) cut() {
	if p.err != nil {
		resp := p.partial()
		resp.RawFinishReason = "failed"
		p.yield(llm.Event{Kind: llm.EventError, Err: p.err, Response: resp})
		return
	}
	p.fail(&llm.Error{Kind: llm.ErrNetwork, Provider: p.prov.ep.Name, Message: "stream ended before the response completed"})
}

// fail ends the stream with err and whatever arrived before it.
func (p *responsesStream) fail(err error) {
	p.yield(llm.Event{Kind: llm.EventError, Err: err, Response: p.partial()})
}

// partial is the response as far as it arrived.
func (p *responsesStream) partial() *llm.Response {
	obj := p.obj
	obj.Status = ""
	resp := p.prov.response(&obj, p.assembled())
	resp.FinishReason = llm.FinishError
	return resp
}
