package llmtest

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/llm"
)

// CheckDeltas fails tb unless the deltas a caller saw before the final
// event add up to the final response, which is what every front-end that
// renders a stream relies on: text and reasoning concatenate to the reply's,
// every tool-call fragment points at a call of the reply, each call's name
// is announced exactly once and matches, an announced id matches, and the
// last usage event is the reply's usage (and there is one when the reply
// has usage). Adapters that promise more (ids and arguments in the
// fragments) check that beside it.
func CheckDeltas(tb testing.TB, events []llm.Event, resp *llm.Response) {
	tb.Helper()
	if resp == nil {
		return
	}
	calls := resp.Message.ToolCalls
	var text, reasoning strings.Builder
	var usage *llm.Usage
	names := map[int]string{}
	for _, ev := range events {
		switch ev.Kind {
		case llm.EventText:
			text.WriteString(ev.Text)
		case llm.EventReasoning:
			reasoning.WriteString(ev.Text)
		case llm.EventUsage:
			u := ev.Usage
			usage = &u
		case llm.EventToolCall:
			d := ev.ToolCall
			if d.Index < 0 || d.Index >= len(calls) {
				tb.Errorf("tool-call fragment index %d out of range (%d calls)", d.Index, len(calls))
				continue
			}
			if d.Name != "" {
				if _, dup := names[d.Index]; dup {
					tb.Errorf("tool call %d: name announced twice", d.Index)
				}
				names[d.Index] = d.Name
			}
			if d.ID != "" && d.ID != calls[d.Index].ID {
				tb.Errorf("tool call %d: fragment id %q, final id %q", d.Index, d.ID, calls[d.Index].ID)
			}
		}
	}
	if text.String() != resp.Text() {
		tb.Errorf("text deltas add up to %q, final text is %q", text.String(), resp.Text())
	}
	if reasoning.String() != resp.Message.Reasoning {
		tb.Errorf("reasoning deltas add up to %q, final reasoning is %q", reasoning.String(), resp.Message.Reasoning)
	}
	for i, c := range calls {
		if names[i] != c.Name {
			tb.Errorf("tool call %d: announced name %q, final %q", i, names[i], c.Name)
		}
	}
	switch {
	case usage != nil && *usage != resp.Usage:
		tb.Errorf("last usage event %+v, final usage %+v", *usage, resp.Usage)
	case usage == nil && !resp.Usage.IsZero():
		tb.Errorf("final usage %+v was never sent as an event", resp.Usage)
	}
}

// SameJSON reports whether two argument texts hold the same JSON value
// (servers differ in spacing and key order); texts that do not both parse
// are compared as text.
func SameJSON(a, b string) bool {
	var va, vb any
	if json.Unmarshal([]byte(a), &va) != nil || json.Unmarshal([]byte(b), &vb) != nil {
		return a == b
	}
	return reflect.DeepEqual(va, vb)
}
