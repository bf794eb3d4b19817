package agent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"testing"

	"github.com/hermes-go/hermes/internal/agent"
	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/tool"
)

// instantModel is a zero-latency provider: it answers each call with one
// tool call until calls run out, then with text, without any I/O, so a
// benchmark measures the loop and not the model.
type instantModel struct {
	toolRounds int
	n          int
}

func (m *instantModel) Name() string { return "instant" }

func (m *instantModel) Stream(_ context.Context, req *llm.Request) iter.Seq[llm.Event] {
	return func(yield func(llm.Event) bool) {
		m.n++
		resp := &llm.Response{Model: "instant", FinishReason: llm.FinishStop, Usage: llm.Usage{InputTokens: 1000, OutputTokens: 20}}
		if m.n <= m.toolRounds {
			resp.FinishReason = llm.FinishToolCalls
			resp.Message = llm.AssistantMessage("", llm.ToolCall{ID: fmt.Sprintf("c%d", m.n), Name: "tool_07", Arguments: fmt.Sprintf(`{"id":%d,"path":"/tmp/x"}`, m.n)})
		} else {
			resp.Message = llm.AssistantMessage("done")
			if !yield(llm.Event{Kind: llm.EventText, Text: "done"}) {
				return
			}
		}
		yield(llm.Event{Kind: llm.EventDone, Response: resp})
	}
}

// benchTool is one of 40 cheap tools with a realistic schema.
type benchTool struct{ name string }

func (b benchTool) Spec() tool.Spec {
	return tool.Spec{Name: b.name, Description: "A tool used by the loop benchmark.", ParallelSafe: true,
		Parameters: json.RawMessage(`{"type":"object","properties":{"id":{"type":"integer"},"path":{"type":"string"},
			"limit":{"type":"integer","minimum":1},"mode":{"type":"string","enum":["a","b"]},"verbose":{"type":"boolean"}},"required":["id"]}`)}
}

func (b benchTool) Call(context.Context, json.RawMessage) (any, error) {
	return map[string]string{"result": "ok"}, nil
}

type nopRecorder struct{}

func (nopRecorder) Record(context.Context, []agent.Recorded) error { return nil }
func (nopRecorder) Usage(context.Context, string, llm.Usage) error { return nil }

// BenchmarkLoopIteration reports the loop's own cost per iteration (one
// model call answered by one tool call) with a 200-message history and 40
// tools. The budget is 0.3 ms.
func BenchmarkLoopIteration(b *testing.B) {
	reg := tool.NewRegistry()
	for i := range 40 {
		if err := reg.Register(benchTool{name: fmt.Sprintf("tool_%02d", i)}); err != nil {
			b.Fatal(err)
		}
	}
	history := make([]llm.Message, 0, 200)
	for i := 0; len(history) < 200; i++ {
		c := llm.ToolCall{ID: fmt.Sprintf("h%d", i), Name: "tool_01", Arguments: `{"id":1}`}
		history = append(history,
			llm.UserMessage(fmt.Sprintf("request %d: please look at the file and tell me what it says", i)),
			llm.AssistantMessage("Looking.", c),
			llm.ToolResultMessage(c.ID, c.Name, `{"status":"ok","data":{"result":"a few hundred characters of output would be here"}}`),
			llm.AssistantMessage("It says what you expected."))
	}
	const rounds = 10
	cfg := agent.Config{Model: "instant", Tools: reg.Specs(), Dispatcher: &tool.Dispatcher{Registry: reg},
		Resolver: reg, Recorder: nopRecorder{}, System: "system prompt", MaxTurns: 100}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		cfg.Provider = &instantModel{toolRounds: rounds}
		res := agent.Run(context.Background(), cfg, history, llm.UserMessage("go"), nil)
		if res.Stopped != agent.StopDone || res.Iterations != rounds+1 {
			b.Fatalf("result %+v", res)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*(rounds+1))/1e6, "ms/iteration")
}
