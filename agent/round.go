package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/tool"
)

// maxInvalidRounds is how many replies in a row may consist only of
// invalid calls before the turn stops: by then the model is not going to
// recover on its own.
const maxInvalidRounds = 3

// slot is one call of a reply on its way to a result. Either the loop
// answers it itself (result set: invalid, duplicate, repeated) or it goes
// to the dispatcher.
type slot struct {
	call    llm.ToolCall
	result  *tool.Result
	content string
	// dupOf is the index of the identical call this one repeats, or -1.
	dupOf   int
	invalid bool
}

// toolRound answers every call of one reply and records the reply with its
// results. It returns a non-empty Stop when the turn must end.
func (r *run) toolRound(ctx context.Context, resp *llm.Response) (Stop, error) {
	msg := resp.Message
	if t := msg.Text(); t != "" {
		r.texts = append(r.texts, t)
	}
	slots := make([]slot, len(msg.ToolCalls))
	seen := make(map[string]int, len(msg.ToolCalls))
	var stop Stop
	var why string
	for i, c := range msg.ToolCalls {
		s := &slots[i]
		s.dupOf = -1
		if _, name, ok := r.cfg.Resolver.Resolve(c.Name); ok {
			c.Name = name
		} else {
			s.invalid = true
			s.set(unknownTool(c.Name, r.cfg.Tools))
		}
		if c.Arguments == "" {
			c.Arguments = "{}"
		}
		msg.ToolCalls[i] = c
		s.call = c
		if s.result != nil {
			continue
		}
		if !json.Valid([]byte(c.Arguments)) {
			s.invalid = true
			if tool.LooksTruncated(c.Arguments) {
				stop = StopTruncated
				why = fmt.Sprintf("The model's output was cut off while it wrote the arguments of %s (finish reason %q), so the turn stopped. "+
					"Ask for a smaller step, or raise model.max_tokens.", c.Name, resp.FinishReason)
				s.set(tool.Fail(tool.CodeInvalidArguments, "the arguments were cut off before they ended; the call did not run"))
				continue
			}
			s.set(tool.Fail(tool.CodeInvalidArguments, "the arguments are not valid JSON; send one JSON object that matches the tool's parameters"))
			continue
		}
		key := c.Name + "\x00" + c.Arguments
		if j, ok := seen[key]; ok {
			s.dupOf = j
			continue
		}
		seen[key] = i
		switch r.guard.observe(key) {
		case guardWarn:
			s.set(tool.Fail(tool.CodeDenied, "not run: %s was called with the same arguments %d times in a row and will give the same result. "+
				"Use the result you already have, or change the approach.", c.Name, warnAt))
		case guardStop:
			stop = StopRepeatGuard
			why = fmt.Sprintf("Stopped: %s was called with the same arguments %d times in a row without progress.", c.Name, stopAt)
			s.set(tool.Fail(tool.CodeDenied, "not run: the same call repeated %d times in a row; the turn was stopped", stopAt))
		}
	}
	if stop == "" {
		r.dispatch(ctx, slots)
	} else {
		for i := range slots {
			if slots[i].result == nil && slots[i].dupOf < 0 {
				slots[i].set(tool.Fail(tool.CodeInterrupted, "not run: the turn was stopped"))
			}
		}
	}
	recs := make([]Recorded, 0, len(slots)+2)
	recs = append(recs, Recorded{Message: msg, FinishReason: string(resp.FinishReason)})
	allInvalid := true
	var imageTools, images []string
	for i := range slots {
		s := &slots[i]
		if s.dupOf >= 0 {
			s.result, s.content, s.invalid = slots[s.dupOf].result, slots[s.dupOf].content, slots[s.dupOf].invalid
		}
		if !s.invalid && s.result.ErrorCode != tool.CodeInvalidArguments {
			allInvalid = false
		}
		r.res.ToolCalls = append(r.res.ToolCalls, CallSummary{Name: s.call.Name, Status: s.result.Status, Code: s.result.ErrorCode})
		content, image := takeImage(s.content)
		if image != "" && s.dupOf < 0 {
			imageTools, images = append(imageTools, s.call.Name), append(images, image)
		}
		recs = append(recs, Recorded{Message: llm.ToolResultMessage(s.call.ID, s.call.Name, content)})
	}
	if len(images) > 0 {
		recs = append(recs, Recorded{Message: imageMessage(imageTools, images)})
	}
	// The reply and its results are recorded even when the turn was
	// interrupted, so the stored conversation never has an unanswered call.
	if err := r.record(context.WithoutCancel(ctx), recs...); err != nil {
		return StopError, err
	}
	for _, rec := range recs {
		r.msgs = append(r.msgs, rec.Message)
	}
	if err := ctx.Err(); err != nil {
		return StopInterrupted, err
	}
	if stop != "" {
		r.res.Note = why
		r.res.Final = r.progress(why)
		return stop, nil
	}
	if allInvalid {
		r.invalidRounds++
		if r.invalidRounds >= maxInvalidRounds {
			r.res.Note = fmt.Sprintf("Stopped: the model made invalid tool calls %d times in a row.", maxInvalidRounds)
			r.res.Final = r.progress(r.res.Note)
			return StopInvalidCalls, nil
		}
	} else {
		r.invalidRounds = 0
	}
	return "", nil
}

func (s *slot) set(res tool.Result) {
	s.result = &res
	s.content = res.JSON()
}

// dispatch runs the slots still without a result through the dispatcher,
// reporting starts and finishes to the sink under the reply's indexes.
func (r *run) dispatch(ctx context.Context, slots []slot) {
	var calls []llm.ToolCall
	var index []int
	for i := range slots {
		if slots[i].result == nil && slots[i].dupOf < 0 {
			calls = append(calls, slots[i].call)
			index = append(index, i)
		}
	}
	if len(calls) == 0 {
		return
	}
	outs := r.cfg.Dispatcher.Run(ctx, calls, observer{sink: r.sink, index: index})
	for k, o := range outs {
		s := &slots[index[k]]
		res := o.Result
		s.result, s.content = &res, o.Content
		s.invalid = res.ErrorCode == tool.CodeInvalidArguments
	}
}

// unknownTool answers a call of a tool that does not exist with the names
// that do, so the model can pick one.
func unknownTool(name string, specs []llm.ToolSpec) tool.Result {
	names := make([]string, len(specs))
	for i, s := range specs {
		names[i] = s.Name
	}
	return tool.Fail(tool.CodeNotFound, "there is no tool named %q; the available tools are: %s", name, strings.Join(names, ", "))
}

// observer forwards the dispatcher's progress to the sink.
type observer struct {
	sink  Sink
	index []int
}

func (o observer) ToolStarted(i int, c llm.ToolCall) {
	o.sink.Event(Event{Kind: EventToolStarted, Tool: &ToolEvent{Index: o.index[i], Call: c}})
}

func (o observer) ToolFinished(i int, out tool.Outcome) {
	o.sink.Event(Event{Kind: EventToolFinished, Tool: &ToolEvent{Index: o.index[i], Call: out.Call,
		Result: out.Result, Content: out.Content, Duration: out.Duration}})
}
