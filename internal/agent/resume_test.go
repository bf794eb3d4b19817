package agent_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/agent"
	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/llm/llmtest"
	"github.com/hermes-go/hermes/internal/tool"
)

// probeTool looks at what is on record while it runs, the way a process
// killed at that moment would leave it. Calls with "wait" block until the
// turn's context ends.
type probeTool struct {
	rec  *memRecorder
	seen chan []llm.Message
}

func (p *probeTool) Spec() tool.Spec {
	return tool.Spec{Name: "deploy", Description: "Deploys.", ParallelSafe: true,
		Parameters: json.RawMessage(`{"type":"object","properties":{"step":{"type":"string"},"wait":{"type":"boolean"}}}`)}
}

func (p *probeTool) Call(ctx context.Context, args json.RawMessage) (any, error) {
	var a struct {
		Step string
		Wait bool
	}
	json.Unmarshal(args, &a)
	if a.Wait {
		// The other call of the round has finished by now when it was
		// started first: its result must already be on record.
		p.seen <- p.rec.messages()
		<-ctx.Done()
		return nil, ctx.Err()
	}
	p.seen <- p.rec.messages()
	return map[string]string{"deployed": a.Step}, nil
}

// A call is on record before it runs: a process killed while it runs
// leaves a session that knows the call was made.
func TestReplyIsRecordedBeforeItsCallsRun(t *testing.T) {
	h := newHarness(t)
	probe := &probeTool{rec: h.rec, seen: make(chan []llm.Message, 4)}
	reg := tool.NewRegistry()
	reg.Register(probe)
	h.cfg.Tools, h.cfg.Dispatcher, h.cfg.Resolver = reg.Specs(), &tool.Dispatcher{Registry: reg}, reg
	h.srv.Enqueue(llmtest.Reply{ToolCalls: []llm.ToolCall{call("deploy", `{"step":"one"}`)}}, llmtest.Reply{Text: "deployed"})
	if res := h.run(t, "deploy"); res.Stopped != agent.StopDone {
		t.Fatalf("result %+v", res)
	}
	during := <-probe.seen
	if len(during) != 2 || during[1].Role != llm.RoleAssistant || len(during[1].ToolCalls) != 1 {
		t.Fatalf("while the call ran the record held %+v, want the question and the call", during)
	}
}

// Results go on record as they come, in call order: when one call of a
// round has finished and another still runs, the finished one's result is
// on record already.
func TestResultsAreRecordedAsTheyCome(t *testing.T) {
	h := newHarness(t)
	probe := &probeTool{rec: h.rec, seen: make(chan []llm.Message, 4)}
	reg := tool.NewRegistry()
	reg.Register(probe)
	h.cfg.Tools, h.cfg.Dispatcher, h.cfg.Resolver = reg.Specs(), &tool.Dispatcher{Registry: reg, MaxParallel: 1}, reg
	h.srv.Enqueue(llmtest.Reply{ToolCalls: []llm.ToolCall{call("deploy", `{"step":"one"}`), call("deploy", `{"step":"two","wait":true}`)}})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan *agent.Result)
	go func() { done <- agent.Run(ctx, h.cfg, nil, llm.UserMessage("deploy twice"), nil) }()
	<-probe.seen // the first call
	during := <-probe.seen
	cancel()
	res := <-done
	if len(during) != 3 || during[2].Role != llm.RoleTool || !strings.Contains(during[2].Text(), `"deployed":"one"`) {
		t.Fatalf("while the second call ran the record held %+v, want the first result on it", during)
	}
	if res.Stopped != agent.StopInterrupted {
		t.Errorf("stopped %s", res.Stopped)
	}
	msgs := h.rec.messages()
	if len(msgs) != 4 || msgs[3].Role != llm.RoleTool || !strings.Contains(msgs[3].Text(), "interrupted") {
		t.Errorf("recorded %+v, want the interrupted second result last", msgs)
	}
}

// A session whose last round was cut by a crash resumes with those calls
// answered as lost, on record and in the request, and nothing runs again
// unless the model asks for it.
func TestResumeAnswersLostCalls(t *testing.T) {
	note := &noteTool{name: "read_note"}
	h := newHarness(t, note)
	calls := []llm.ToolCall{{ID: "call_a", Name: "read_note", Arguments: `{"id":1}`}, {ID: "call_b", Name: "read_note", Arguments: `{"id":2}`}}
	history := []llm.Message{
		llm.UserMessage("read two notes"),
		llm.AssistantMessage("", calls...),
		llm.ToolResultMessage("call_a", "read_note", `{"status":"ok","data":{"note":"note 1"}}`),
	}
	h.srv.Enqueue(llmtest.Reply{Text: "Note 2 may not have been read; shall I read it again?"})
	res := agent.Run(context.Background(), h.cfg, history, llm.UserMessage("go on"), nil)
	if res.Stopped != agent.StopDone || note.calls.Load() != 0 {
		t.Fatalf("result %+v, tool ran %d times", res, note.calls.Load())
	}
	got := h.rec.messages()
	if len(got) != 3 || got[0].Role != llm.RoleTool || got[0].ToolCallID != "call_b" || got[1].Text() != "go on" {
		t.Fatalf("recorded %+v, want the lost result, then the question, then the answer", got)
	}
	if !strings.Contains(got[0].Text(), "may or may not have taken effect") {
		t.Errorf("lost result says %q", got[0].Text())
	}
	sent := h.srv.Requests()[0].Messages
	if n := len(sent); n != 6 || sent[4].ToolCallID != "call_b" || sent[4].Text() != got[0].Text() {
		t.Errorf("the request carried %+v", sent)
	}
}
