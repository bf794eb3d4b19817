package agent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/hermes-go/hermes/internal/agent"
	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/llm/anthropic"
	"github.com/hermes-go/hermes/internal/llm/llmtest"
	"github.com/hermes-go/hermes/internal/llm/openai"
	"github.com/hermes-go/hermes/internal/tool"
)

// noteTool is a read-only tool that returns the note it is asked for and
// counts its calls.
type noteTool struct {
	name  string
	calls atomic.Int32
	// block, when set, makes Call wait for the context to end.
	block bool
}

func (n *noteTool) Spec() tool.Spec {
	return tool.Spec{Name: n.name, Description: "Reads a note.", Toolset: "notes", ParallelSafe: true,
		Parameters: json.RawMessage(`{"type":"object","properties":{"id":{"type":"integer"}},"required":["id"]}`)}
}

func (n *noteTool) Call(ctx context.Context, args json.RawMessage) (any, error) {
	n.calls.Add(1)
	if n.block {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	var a struct{ ID int }
	json.Unmarshal(args, &a)
	return map[string]any{"note": fmt.Sprintf("note %d", a.ID)}, nil
}

// memRecorder keeps what the loop records.
type memRecorder struct {
	mu      sync.Mutex
	batches [][]agent.Recorded
	usage   llm.Usage
}

func (m *memRecorder) Record(_ context.Context, msgs []agent.Recorded) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.batches = append(m.batches, msgs)
	return nil
}

func (m *memRecorder) Usage(_ context.Context, _ string, u llm.Usage) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.usage.InputTokens += u.InputTokens
	return nil
}

func (m *memRecorder) messages() []llm.Message {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []llm.Message
	for _, b := range m.batches {
		for _, r := range b {
			out = append(out, r.Message)
		}
	}
	return out
}

// harness is a scripted model and a registry holding the given tools.
type harness struct {
	srv *llmtest.Server
	cfg agent.Config
	rec *memRecorder
}

func newHarness(t *testing.T, tools ...tool.Tool) *harness {
	t.Helper()
	srv := llmtest.New(t)
	reg := tool.NewRegistry()
	for _, tl := range tools {
		if err := reg.Register(tl); err != nil {
			t.Fatal(err)
		}
	}
	d := &tool.Dispatcher{Registry: reg}
	rec := &memRecorder{}
	p := openai.NewChat(llm.Endpoint{Name: "test", BaseURL: srv.URL() + "/v1", APIKey: "k", Model: "m"})
	return &harness{srv: srv, rec: rec, cfg: agent.Config{
		Provider: p, Model: "m", Tools: reg.Specs(), Dispatcher: d, Resolver: reg, Recorder: rec,
		System: "You are a test.", SessionID: "s1",
	}}
}

func (h *harness) run(t *testing.T, input string) *agent.Result {
	t.Helper()
	return agent.Run(context.Background(), h.cfg, nil, llm.UserMessage(input), nil)
}

func call(name, args string) llm.ToolCall { return llm.ToolCall{Name: name, Arguments: args} }

func TestTextReply(t *testing.T) {
	h := newHarness(t, &noteTool{name: "read_note"})
	h.srv.Enqueue(llmtest.Reply{Text: "hello there"})
	res := h.run(t, "hi")
	if res.Stopped != agent.StopDone || res.Final != "hello there" || res.Iterations != 1 {
		t.Fatalf("result = %+v", res)
	}
	got := h.rec.messages()
	if len(got) != 2 || got[0].Text() != "hi" || got[1].Text() != "hello there" {
		t.Fatalf("recorded %+v", got)
	}
	req := h.srv.Requests()[0]
	if req.Messages[0].Role != llm.RoleSystem || len(req.Tools) != 1 || req.Tools[0].Name != "read_note" {
		t.Errorf("request had messages %+v and tools %+v", req.Messages, req.Tools)
	}
}

func TestParallelCallsAnsweredInOrder(t *testing.T) {
	note := &noteTool{name: "read_note"}
	h := newHarness(t, note)
	h.srv.Enqueue(
		llmtest.Reply{ToolCalls: []llm.ToolCall{call("read_note", `{"id":1}`), call("ReadNote", `{"id":2}`), call("read_note", `{"id":"3"}`)}},
		llmtest.Reply{Text: "done"},
	)
	res := h.run(t, "read notes 1 to 3")
	if res.Stopped != agent.StopDone || len(res.ToolCalls) != 3 || note.calls.Load() != 3 {
		t.Fatalf("result = %+v, calls = %d", res, note.calls.Load())
	}
	second := h.srv.Requests()[1].Messages
	tools := second[len(second)-3:]
	for i, m := range tools {
		want := fmt.Sprintf(`{"status":"ok","data":{"note":"note %d"}}`, i+1)
		if m.Role != llm.RoleTool || m.Text() != want {
			t.Errorf("result %d = %s %q, want %q", i, m.Role, m.Text(), want)
		}
	}
	if name := second[len(second)-4].ToolCalls[1].Name; name != "read_note" {
		t.Errorf("the repaired call is sent back as %q, want read_note", name)
	}
}

func TestIdenticalCallsRunOnce(t *testing.T) {
	note := &noteTool{name: "read_note"}
	h := newHarness(t, note)
	h.srv.Enqueue(
		llmtest.Reply{ToolCalls: []llm.ToolCall{call("read_note", `{"id":1}`), call("read_note", `{"id":1}`)}},
		llmtest.Reply{Text: "done"},
	)
	res := h.run(t, "x")
	if note.calls.Load() != 1 || len(res.ToolCalls) != 2 {
		t.Fatalf("ran %d times, summaries %+v", note.calls.Load(), res.ToolCalls)
	}
}

func TestRepeatGuard(t *testing.T) {
	note := &noteTool{name: "read_note"}
	h := newHarness(t, note)
	same := llmtest.Reply{ToolCalls: []llm.ToolCall{call("read_note", `{"id":7}`)}}
	h.srv.Enqueue(llmtest.Reply{Text: "Looking.", ToolCalls: same.ToolCalls}, same, same, same, llmtest.Reply{Text: "never sent"})
	res := h.run(t, "loop")
	if res.Stopped != agent.StopRepeatGuard {
		t.Fatalf("stopped = %s, want repeat_guard", res.Stopped)
	}
	if note.calls.Load() != 2 {
		t.Errorf("the tool ran %d times, want 2 (the 3rd call is warned, the 4th stops)", note.calls.Load())
	}
	if !strings.HasPrefix(res.Final, "Looking.") || !strings.Contains(res.Final, "4 times") {
		t.Errorf("final = %q, want the progress and why it stopped", res.Final)
	}
	third := h.srv.Requests()[3].Messages
	if last := third[len(third)-1].Text(); !strings.Contains(last, "same arguments 3 times") {
		t.Errorf("the third identical call was answered %q, want a warning", last)
	}
	if h.srv.Pending() != 1 {
		t.Errorf("%d replies left, want 1: the loop must stop after the 4th call", h.srv.Pending())
	}
}

func TestInvalidCallsStopAfterThreeRounds(t *testing.T) {
	h := newHarness(t, &noteTool{name: "read_note"})
	bad := llmtest.Reply{ToolCalls: []llm.ToolCall{call("launch_rocket", `{}`)}}
	h.srv.Enqueue(bad, llmtest.Reply{ToolCalls: []llm.ToolCall{call("read_note", `{id: 1}`)}}, bad, llmtest.Reply{Text: "never"})
	res := h.run(t, "x")
	if res.Stopped != agent.StopInvalidCalls || res.Iterations != 3 {
		t.Fatalf("result = %+v", res)
	}
	reqs := h.srv.Requests()
	unknown := reqs[1].Messages[len(reqs[1].Messages)-1].Text()
	if !strings.Contains(unknown, `"error_code":"not_found"`) || !strings.Contains(unknown, "read_note") {
		t.Errorf("unknown tool answered %q, want not_found listing the tools", unknown)
	}
	badJSON := reqs[2].Messages[len(reqs[2].Messages)-1].Text()
	if !strings.Contains(badJSON, "not valid JSON") {
		t.Errorf("bad JSON answered %q", badJSON)
	}
}

func TestTruncatedArgumentsStop(t *testing.T) {
	h := newHarness(t, &noteTool{name: "read_note"})
	h.srv.Enqueue(llmtest.Reply{ToolCalls: []llm.ToolCall{call("read_note", `{"id": 1, "text": "a long`)}, FinishReason: llm.FinishLength})
	res := h.run(t, "x")
	if res.Stopped != agent.StopTruncated || !strings.Contains(res.Final, "cut off") {
		t.Fatalf("result = %+v", res)
	}
	msgs := h.rec.messages()
	if last := msgs[len(msgs)-1]; last.Role != llm.RoleTool {
		t.Errorf("the cut call was left unanswered in the record: %+v", last)
	}
}

func TestMaxTurnsSummary(t *testing.T) {
	h := newHarness(t, &noteTool{name: "read_note"})
	h.cfg.MaxTurns = 2
	h.srv.Enqueue(
		llmtest.Reply{ToolCalls: []llm.ToolCall{call("read_note", `{"id":1}`)}},
		llmtest.Reply{ToolCalls: []llm.ToolCall{call("read_note", `{"id":2}`)}},
		llmtest.Reply{Text: "I read two notes."},
	)
	res := h.run(t, "x")
	if res.Stopped != agent.StopMaxTurns || res.Final != "I read two notes." || res.Iterations != 3 {
		t.Fatalf("result = %+v", res)
	}
	last := h.srv.Requests()[2]
	if !strings.Contains(string(last.Body), `"tool_choice":"none"`) {
		t.Errorf("the summary call allowed tools: %s", last.Body)
	}
	msgs := h.rec.messages()
	if m := msgs[len(msgs)-2]; m.Role != llm.RoleTool {
		t.Errorf("the summary request was recorded as a %s message", m.Role)
	}
}

func TestInterruptAnswersEveryCall(t *testing.T) {
	slow := &noteTool{name: "read_note", block: true}
	h := newHarness(t, slow)
	h.srv.Enqueue(llmtest.Reply{ToolCalls: []llm.ToolCall{call("read_note", `{"id":1}`), call("read_note", `{"id":2}`)}})
	ctx, cancel := context.WithCancel(context.Background())
	sink := agent.SinkFunc(func(e agent.Event) {
		if e.Kind == agent.EventToolStarted {
			cancel()
		}
	})
	res := agent.Run(ctx, h.cfg, nil, llm.UserMessage("x"), sink)
	if res.Stopped != agent.StopInterrupted {
		t.Fatalf("stopped = %s", res.Stopped)
	}
	msgs := h.rec.messages()
	if len(msgs) != 4 {
		t.Fatalf("recorded %d messages, want user, assistant and 2 results", len(msgs))
	}
	for _, m := range msgs[2:] {
		if !strings.Contains(m.Text(), `"error_code":"interrupted"`) {
			t.Errorf("result %q, want interrupted", m.Text())
		}
	}
}

func TestRepair(t *testing.T) {
	calls := []llm.ToolCall{{ID: "a", Name: "t", Arguments: "{}"}, {ID: "b", Name: "t", Arguments: "{}"}}
	in := []llm.Message{
		llm.UserMessage("one"),
		llm.AssistantMessage("", calls...),
		llm.ToolResultMessage("b", "t", "B"),
		llm.ToolResultMessage("zzz", "t", "orphan"),
		llm.UserMessage("two"),
		llm.UserMessage("three"),
	}
	out := agent.Repair(in)
	var roles []string
	for _, m := range out {
		roles = append(roles, string(m.Role)+":"+m.ToolCallID)
	}
	want := "user: assistant: tool:a tool:b user:"
	if got := strings.Join(roles, " "); got != want {
		t.Fatalf("roles = %s, want %s", got, want)
	}
	if !strings.Contains(out[2].Text(), "interrupted") || out[3].Text() != "B" {
		t.Errorf("results = %q, %q", out[2].Text(), out[3].Text())
	}
	if out[4].Text() != "two\n\nthree" {
		t.Errorf("merged user message = %q", out[4].Text())
	}
	if len(in) != 6 || in[4].Text() != "two" {
		t.Error("Repair modified its input")
	}
}

// shotTool returns a screenshot the way browser_screenshot does.
type shotTool struct{}

func (shotTool) Spec() tool.Spec {
	return tool.Spec{Name: "browser_screenshot", Description: "Takes a screenshot.", Parameters: json.RawMessage(`{"type":"object"}`)}
}

func (shotTool) Call(context.Context, json.RawMessage) (any, error) {
	return map[string]any{"path": "/tmp/s.png", "width": 1, "image_data_url": "data:image/png;base64,iVBORw0KGgo="}, nil
}

func TestToolImagesReachTheModelAsImages(t *testing.T) {
	h := newHarness(t, shotTool{})
	h.srv.Enqueue(llmtest.Reply{ToolCalls: []llm.ToolCall{call("browser_screenshot", `{}`)}}, llmtest.Reply{Text: "I see it."})
	if res := h.run(t, "look"); res.Stopped != agent.StopDone {
		t.Fatalf("result %+v", res)
	}
	msgs := h.srv.Requests()[1].Messages
	result, shown := msgs[len(msgs)-2], msgs[len(msgs)-1]
	if result.Role != llm.RoleTool || strings.Contains(result.Text(), "base64") || !strings.Contains(result.Text(), `"path":"/tmp/s.png"`) {
		t.Errorf("tool result = %s", result.Text())
	}
	if shown.Role != llm.RoleUser || !shown.HasImages() || shown.Content[1].ImageURL != "data:image/png;base64,iVBORw0KGgo=" {
		t.Errorf("image message = %+v", shown)
	}
	if got := h.rec.messages(); got[len(got)-2].Role != llm.RoleUser || !got[len(got)-2].HasImages() {
		t.Errorf("the image message was not recorded: %+v", got[len(got)-2])
	}
}

func TestEmptyReplyIsAnError(t *testing.T) {
	for _, tt := range []struct {
		name  string
		reply llmtest.Reply
		want  string
	}{
		{"nothing", llmtest.Reply{}, "empty reply"},
		{"only reasoning", llmtest.Reply{Reasoning: "hmm"}, "empty reply"},
		{"cut by max_tokens", llmtest.Reply{FinishReason: llm.FinishLength}, "max_tokens"},
		{"filtered", llmtest.Reply{FinishReason: llm.FinishContentFilter}, "content filter"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, &noteTool{name: "read_note"})
			h.srv.Enqueue(tt.reply)
			res := h.run(t, "hi")
			if res.Stopped != agent.StopError || llm.KindOf(res.Err) != llm.ErrInvalidResponse || !strings.Contains(res.Err.Error(), tt.want) {
				t.Fatalf("stopped %s with %v, want error mentioning %q", res.Stopped, res.Err, tt.want)
			}
			if got := h.rec.messages(); len(got) != 1 || got[0].Role != llm.RoleUser {
				t.Errorf("recorded %+v, want only the question: an empty reply is not an answer", got)
			}
		})
	}
}

// A reply and the usage of the call that produced it are one write; a
// call whose reply is not recorded (an empty one) has its usage stored
// on its own, so no tokens go uncounted.
func TestUsageIsRecordedWithItsReply(t *testing.T) {
	h := newHarness(t, &noteTool{name: "read_note"})
	h.srv.Enqueue(
		llmtest.Reply{ToolCalls: []llm.ToolCall{{Name: "read_note", Arguments: `{"id":1}`}}, Usage: &llm.Usage{InputTokens: 100, OutputTokens: 5}},
		llmtest.Reply{Text: "done", Usage: &llm.Usage{InputTokens: 130, OutputTokens: 7}},
	)
	if res := h.run(t, "hi"); res.Stopped != agent.StopDone {
		t.Fatalf("stopped %s: %v", res.Stopped, res.Err)
	}
	var withUsage []int
	for _, b := range h.rec.batches {
		for i, r := range b {
			if r.Usage != nil {
				if i != 0 || r.Message.Role != llm.RoleAssistant {
					t.Errorf("usage rides on %s message %d of its batch, want the reply, first", r.Message.Role, i)
				}
				withUsage = append(withUsage, r.Usage.Usage.InputTokens)
			}
		}
	}
	if !slices.Equal(withUsage, []int{100, 130}) || h.rec.usage.InputTokens != 0 {
		t.Errorf("usage recorded with replies %v and alone %d, want [100 130] and 0", withUsage, h.rec.usage.InputTokens)
	}

	h = newHarness(t, &noteTool{name: "read_note"})
	h.srv.Enqueue(llmtest.Reply{Usage: &llm.Usage{InputTokens: 42}})
	if res := h.run(t, "hi"); res.Stopped != agent.StopError {
		t.Fatalf("an empty reply stopped %s", res.Stopped)
	}
	if h.rec.usage.InputTokens != 42 {
		t.Errorf("the usage of an unrecorded empty reply: %d input tokens stored, want 42", h.rec.usage.InputTokens)
	}
}

// Every model call of a turn goes over the same connection: a client that
// closes a reply's body before reading its end cannot reuse it, and would
// pay a new TCP (and, with a real provider, TLS) handshake every round.
func TestModelCallsReuseTheConnection(t *testing.T) {
	for _, api := range []string{"chat_completions", "anthropic_messages", "codex_responses"} {
		t.Run(api, func(t *testing.T) {
			h := newHarness(t, &noteTool{name: "read_note"})
			ep := llm.Endpoint{Name: "test", BaseURL: h.srv.URL() + "/v1", APIKey: "k", Model: "m"}
			switch api {
			case "anthropic_messages":
				ep.BaseURL = h.srv.URL()
				h.cfg.Provider = anthropic.New(ep)
			case "codex_responses":
				h.cfg.Provider = openai.NewResponses(ep)
			}
			for i := range 5 {
				h.srv.Enqueue(llmtest.Reply{Text: "more", ToolCalls: []llm.ToolCall{{Name: "read_note", Arguments: fmt.Sprintf(`{"id":%d}`, i)}}})
			}
			h.srv.Enqueue(llmtest.Reply{Text: "done"})
			if res := h.run(t, "hi"); res.Stopped != agent.StopDone {
				t.Fatalf("stopped %s: %v", res.Stopped, res.Err)
			}
			if n := h.srv.Connections(); n != 1 {
				t.Errorf("6 model calls opened %d connections, want 1", n)
			}
		})
	}
}

// lateInterrupt answers, and the turn is interrupted right after the
// answer arrived, before it is recorded: a new message in a chat does
// that.
type lateInterrupt struct{ cancel context.CancelFunc }

func (lateInterrupt) Name() string { return "late" }

func (p lateInterrupt) Stream(ctx context.Context, _ *llm.Request) iter.Seq[llm.Event] {
	return func(yield func(llm.Event) bool) {
		if !yield(llm.Event{Kind: llm.EventText, Text: "the answer"}) {
			return
		}
		p.cancel()
		yield(llm.Event{Kind: llm.EventDone, Response: &llm.Response{Message: llm.AssistantMessage("the answer"), FinishReason: llm.FinishStop}})
	}
}

// ctxRecorder refuses to record under a context that has ended, as the
// SQLite store does.
type ctxRecorder struct{ memRecorder }

func (c *ctxRecorder) Record(ctx context.Context, msgs []agent.Recorded) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return c.memRecorder.Record(ctx, msgs)
}

// An answer the user has already seen is recorded even when the turn is
// interrupted before it was stored, so the session holds what was shown.
func TestAnswerShownIsRecordedDespiteALateInterrupt(t *testing.T) {
	h := newHarness(t, &noteTool{name: "read_note"})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	rec := &ctxRecorder{}
	h.cfg.Provider, h.cfg.Recorder = lateInterrupt{cancel}, rec
	res := agent.Run(ctx, h.cfg, nil, llm.UserMessage("hi"), nil)
	msgs := rec.messages()
	if res.Final != "the answer" || len(msgs) != 2 || msgs[1].Text() != "the answer" {
		t.Errorf("stopped %s (%v) with %d messages recorded; want the question and the answer", res.Stopped, res.Err, len(msgs))
	}
}
