package engine_test

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/hermes-go/hermes/internal/agent"
	"github.com/hermes-go/hermes/internal/compress"
	"github.com/hermes-go/hermes/internal/engine"
	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/llm/llmtest"
	"github.com/hermes-go/hermes/internal/llm/openai"
	"github.com/hermes-go/hermes/internal/session"
	"github.com/hermes-go/hermes/internal/tool"
)

const summaryText = "## Goal\nRotate the logs on every host.\n## Constraints & Preferences\nNone.\n## Progress\n### Done\n- hosts 1-3\n### In Progress\n- host 4\n### Blocked\nNone.\n## Key Decisions\nUse logrotate.\n## Relevant Files\n/etc/logrotate.conf\n## Next Steps\nHost 5.\n## Critical Context\nNone."

// compressionRig is an engine with a small context window over a scripted
// model that answers summary calls and, for the conversation, calls echo
// with a bulky result once per user message before answering.
type compressionRig struct {
	e       *engine.Engine
	st      session.Store
	srv     *llmtest.Server
	mu      sync.Mutex
	summary []llmtest.Request
	events  []agent.Event
	sumURL  string
}

// summaries is how many summary calls the model got.
func (rig *compressionRig) summaries() int {
	rig.mu.Lock()
	defer rig.mu.Unlock()
	return len(rig.summary)
}

func isSummary(r llmtest.Request) bool {
	return len(r.Messages) > 0 && strings.Contains(r.Messages[0].Text(), "handoff summaries")
}

func newCompressionRig(t *testing.T, summarizerURL string) *compressionRig {
	rig := &compressionRig{srv: llmtest.New(t)}
	st, _ := openStore(t)
	rig.st = st
	rig.srv.Handle(func(r llmtest.Request) llmtest.Reply {
		if isSummary(r) {
			rig.mu.Lock()
			rig.summary = append(rig.summary, r)
			rig.mu.Unlock()
			return llmtest.Reply{Text: summaryText}
		}
		last := r.Messages[len(r.Messages)-1]
		if last.Role == llm.RoleUser {
			return llmtest.Reply{ToolCalls: []llm.ToolCall{{Name: "echo", Arguments: fmt.Sprintf(`{"text":%q}`, strings.Repeat("log line ", 250))}}}
		}
		return llmtest.Reply{Text: "Rotated that host."}
	})
	provider := openai.NewChat(llm.Endpoint{Name: "test", BaseURL: rig.srv.URL() + "/v1", APIKey: "k", Model: "m"})
	sumProvider := provider
	if summarizerURL != "" {
		sumProvider = openai.NewChat(llm.Endpoint{Name: "sum", BaseURL: summarizerURL + "/v1", APIKey: "k", Model: "m"})
	}
	comp, err := compress.New(compress.Options{Window: 12_000, ReplyBudget: 1_000, Summarizer: compress.ModelSummarizer{Provider: sumProvider, Model: "m"}})
	if err != nil {
		t.Fatal(err)
	}
	rig.e = engine.New(engine.Options{
		Store: st, Models: oneModel{engine.Model{Provider: provider, Name: "m"}},
		Tools:      engine.Tools{Registry: registry(t, echoTool{})},
		Compressor: comp,
		Prompt:     engine.PromptSources{Home: soulHome(t, "You rotate logs.")},
	})
	t.Cleanup(rig.e.Close)
	return rig
}

func (rig *compressionRig) turn(t *testing.T, id, text string) string {
	t.Helper()
	res, err := rig.e.Turn(context.Background(), id, engine.Input{Text: text, Source: "cli"}, agent.SinkFunc(func(e agent.Event) {
		if e.Kind == agent.EventCompressed {
			rig.mu.Lock()
			rig.events = append(rig.events, e)
			rig.mu.Unlock()
		}
	}))
	if err != nil || res.Stopped != agent.StopDone {
		t.Fatalf("turn %q: %v %+v", text, err, res)
	}
	return res.SessionID
}

func TestLongSessionCompressesIntoChild(t *testing.T) {
	rig := newCompressionRig(t, "")
	ctx := context.Background()
	first := rig.turn(t, "", "rotate logs on host 1")
	id := first
	for i := 2; i <= 12 && rig.summaries() < 2; i++ {
		id = rig.turn(t, id, fmt.Sprintf("rotate logs on host %d", i))
	}
	if n := rig.summaries(); n < 2 {
		t.Fatalf("%d compressions in 12 turns, want at least 2", n)
	}
	if v := rig.srv.Violations(); len(v) > 0 {
		t.Fatalf("protocol violations after compression: %v", v)
	}
	child, err := rig.st.Get(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if child.ParentID == "" || id == first {
		t.Fatalf("the conversation did not continue in a child session: %+v", child)
	}
	// The next request after a compression carries the summary and the
	// task in progress.
	var after llmtest.Request
	reqs := rig.srv.Requests()
	for i, r := range reqs {
		if isSummary(r) && i+1 < len(reqs) {
			after = reqs[i+1]
			break
		}
	}
	body := string(after.Body)
	if !strings.Contains(body, "Context summary") || !strings.Contains(body, "Rotate the logs on every host") {
		t.Errorf("the request after compression lacks the summary")
	}
	if !strings.Contains(after.LastUserText(), "rotate logs on host") {
		t.Errorf("the request after compression lost the task in progress: %q", after.LastUserText())
	}
	// The second compression updated the first summary.
	if second := rig.summary[1].LastUserText(); !strings.Contains(second, "Rotate the logs on every host") {
		t.Errorf("the second summary call was not given the first summary")
	}
	// The parent keeps the full history, and search finds it.
	hits, err := rig.st.Search(ctx, "host 1", session.SearchOptions{})
	if err != nil || len(hits) == 0 {
		t.Errorf("search after compression: %v %v", hits, err)
	}
	rig.mu.Lock()
	defer rig.mu.Unlock()
	if len(rig.events) == 0 || !strings.Contains(rig.events[0].Text, "compressed the conversation") {
		t.Errorf("compressed events: %+v", rig.events)
	}
}

func TestCompressionNetworkFailureLeavesConversation(t *testing.T) {
	dead := httptest.NewServer(nil)
	url := dead.URL
	dead.Close()
	rig := newCompressionRig(t, url)
	id := rig.turn(t, "", "rotate logs on host 1")
	for i := 2; i <= 6; i++ {
		if got := rig.turn(t, id, fmt.Sprintf("rotate logs on host %d", i)); got != id {
			t.Fatalf("turn %d moved to session %s although the summary call cannot succeed", i, got)
		}
	}
	msgs, err := rig.st.Messages(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	if len(msgs) != 6*4 {
		t.Errorf("the session holds %d messages, want all 24: nothing may be dropped", len(msgs))
	}
	rig.mu.Lock()
	defer rig.mu.Unlock()
	if len(rig.events) == 0 || rig.events[0].Err == nil || !strings.Contains(rig.events[0].Err.Error(), "unchanged") {
		t.Errorf("the failure was not reported: %+v", rig.events)
	}
}

// TestOverflowStepsTheWindowDown: a request refused as too long is
// compressed by force, and the window the compressor aims at becomes the
// limit the provider stated.
func TestOverflowStepsTheWindowDown(t *testing.T) {
	srv := llmtest.New(t)
	st, _ := openStore(t)
	provider := openai.NewChat(llm.Endpoint{Name: "test", BaseURL: srv.URL() + "/v1", APIKey: "k", Model: "m"})
	comp, err := compress.New(compress.Options{Window: 32_000, ReplyBudget: 1_000, Summarizer: compress.ModelSummarizer{Provider: provider, Model: "m"}})
	if err != nil {
		t.Fatal(err)
	}
	e := engine.New(engine.Options{Store: st, Models: oneModel{engine.Model{Provider: provider, Name: "m"}},
		Tools:      engine.Tools{Registry: tool.NewRegistry()},
		Compressor: comp, Window: llm.NewWindow("m", 32_000)})
	t.Cleanup(e.Close)
	ctx := context.Background()
	long := strings.Repeat("a long message about the servers ", 300)
	srv.Enqueue(llmtest.Reply{Text: "ok"})
	first, err := e.Turn(ctx, "", engine.Input{Text: long}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for range 4 {
		srv.Enqueue(llmtest.Reply{Text: "ok"})
		if _, err := e.Turn(ctx, first.SessionID, engine.Input{Text: long}, nil); err != nil {
			t.Fatal(err)
		}
	}
	if comp.Window() != 32_000 {
		t.Fatalf("window %d before any overflow", comp.Window())
	}
	srv.Enqueue(
		llmtest.Reply{Status: 400, Error: &llmtest.ErrorReply{Code: "context_length_exceeded", Message: "This model's maximum context length is 9000 tokens. However, you requested 12000 tokens."}},
		llmtest.Reply{Text: summaryText},
		llmtest.Reply{Text: "fits"},
	)
	res, err := e.Turn(ctx, first.SessionID, engine.Input{Text: "and now?"}, nil)
	if err != nil || res.Final != "fits" {
		t.Fatalf("turn after an overflow: %v %+v", err, res)
	}
	if got := comp.Window(); got != 9000 {
		t.Errorf("compressor window = %d after the overflow, want 9000", got)
	}
	if res.SessionID == first.SessionID {
		t.Error("the forced compression did not continue in a child session")
	}
}

// /compress on a conversation too short to gain says why: its size, what
// compression keeps as it is, and where it starts by itself.
func TestCompressTooShortSaysWhy(t *testing.T) {
	rig := newCompressionRig(t, "")
	ctx := context.Background()
	s := &session.Session{Source: "cli"}
	if err := rig.st.Create(ctx, s); err != nil {
		t.Fatal(err)
	}
	if err := rig.st.Append(ctx, s.ID, &session.Message{Message: llm.UserMessage("rotate host 1")},
		&session.Message{Message: llm.AssistantMessage("Rotated that host.")}); err != nil {
		t.Fatal(err)
	}
	_, err := rig.e.Compress(ctx, s.ID, "")
	var short *engine.TooShortError
	if !errors.As(err, &short) || !errors.Is(err, engine.ErrNothingToCompress) {
		t.Fatalf("err = %v", err)
	}
	if short.Tokens <= 0 || short.TailTokens <= 0 || short.StartsAt <= short.TailTokens {
		t.Errorf("figures: %+v", short)
	}
	for _, want := range []string{"compression.threshold", "compression.target_ratio", "the last ~"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the error does not say %q: %v", want, err)
		}
	}
}
