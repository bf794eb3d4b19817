package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/tool"
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

// toolRound answers every call of one reply, recording the reply before
// any call runs and the results as they come. It returns a non-empty Stop
// when the turn must end.
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
	// The reply is on record before any of its calls runs, so that a
	// process killed during a call leaves the call on record and a resumed
	// session does not run it again unasked (see results).
	if err := r.record(context.WithoutCancel(ctx), Recorded{Message: msg, FinishReason: string(resp.FinishReason)}); err != nil {
		return StopError, err
	}
	r.msgs = append(r.msgs, msg)
	rs := &results{r: r, ctx: context.WithoutCancel(ctx), slots: slots}
	if stop == "" {
		r.dispatch(ctx, rs)
	} else {
		for i := range slots {
			if slots[i].result == nil && slots[i].dupOf < 0 {
				slots[i].set(tool.Fail(tool.CodeInterrupted, "not run: the turn was stopped"))
			}
		}
	}
	// Every call is answered on record, also when the turn was
	// interrupted, so the stored conversation never has an unanswered call.
	recorded, err := rs.finish()
	if err != nil {
		return StopError, err
	}
	r.msgs = append(r.msgs, recorded...)
	allInvalid := true
	for i := range slots {
		s := &slots[i]
		if s.dupOf >= 0 {
			s.result, s.invalid = slots[s.dupOf].result, slots[s.dupOf].invalid
		}
		if !s.invalid && s.result.ErrorCode != tool.CodeInvalidArguments {
			allInvalid = false
		}
		r.res.ToolCalls = append(r.res.ToolCalls, CallSummary{Name: s.call.Name, Status: s.result.Status, Code: s.result.ErrorCode})
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
// reporting starts and finishes to the sink under the reply's indexes and
// handing each result to rs as it arrives.
func (r *run) dispatch(ctx context.Context, rs *results) {
	var calls []llm.ToolCall
	var index []int
	for i := range rs.slots {
		if rs.slots[i].result == nil && rs.slots[i].dupOf < 0 {
			calls = append(calls, rs.slots[i].call)
			index = append(index, i)
		}
	}
	if len(calls) == 0 {
		return
	}
	outs := r.cfg.Dispatcher.Run(ctx, calls, observer{sink: r.sink, index: index, rs: rs})
	for k, o := range outs {
		rs.set(index[k], o)
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

// observer forwards the dispatcher's progress to the sink, and each
// finished call's outcome to the round's results.
type observer struct {
	sink  Sink
	index []int
	rs    *results
}

func (o observer) ToolStarted(i int, c llm.ToolCall) {
	o.sink.Event(Event{Kind: EventToolStarted, Tool: &ToolEvent{Index: o.index[i], Call: c}})
}

func (o observer) ToolFinished(i int, out tool.Outcome) {
	o.rs.arrived(o.index[i], out)
	o.sink.Event(Event{Kind: EventToolFinished, Tool: &ToolEvent{Index: o.index[i], Call: out.Call,
		Result: out.Result, Content: out.Content, Duration: out.Duration}})
}
