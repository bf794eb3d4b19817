package batch

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/agent"
	"github.com/hermes-go/hermes/internal/engine"
	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/session"
	"github.com/hermes-go/hermes/internal/tool"
)

// fakeEngine answers each prompt in a session of its own and keeps the
// sessions' messages; cancel, when set, ends the run after that many
// turns.
type fakeEngine struct {
	mu       sync.Mutex
	sessions map[string][]llm.Message
	turns    int
	inputs   []engine.Input
	fail     func(text string) error
}

func newFake() *fakeEngine { return &fakeEngine{sessions: map[string][]llm.Message{}} }

func (f *fakeEngine) Turn(ctx context.Context, _ string, in engine.Input, _ agent.Sink) (*engine.TurnResult, error) {
	if f.fail != nil {
		if err := f.fail(in.Text); err != nil {
			return nil, err
		}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.turns++
	f.inputs = append(f.inputs, in)
	id := fmt.Sprintf("s%d", f.turns)
	f.sessions[id] = []llm.Message{llm.UserMessage(in.Text), {Role: llm.RoleAssistant, Content: []llm.Part{{Type: llm.PartText, Text: "ok " + in.Text}}}}
	return &engine.TurnResult{SessionID: id, Result: &agent.Result{Final: "ok", Iterations: 1, Stopped: agent.StopDone}}, nil
}

func (f *fakeEngine) Messages(_ context.Context, id string) ([]session.Message, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []session.Message
	for _, m := range f.sessions[id] {
		out = append(out, session.Message{SessionID: id, Message: m})
	}
	return out, nil
}

func (f *fakeEngine) SystemPrompt(context.Context, string) (string, error) {
	return "You are hermes.", nil
}

func prompts(n int) []Line {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "{\"prompt\": \"p%d\"}\n", i)
	}
	lines, _ := Read(strings.NewReader(b.String()))
	return lines
}

func entries(t *testing.T, dir string) []Entry {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, TrajectoriesFile))
	if err != nil {
		t.Fatal(err)
	}
	var out []Entry
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var e Entry
		if err := json.Unmarshal([]byte(l), &e); err != nil {
			t.Fatalf("%q: %v", l, err)
		}
		out = append(out, e)
	}
	return out
}

func TestRunWritesEveryPromptOnceAndResumeSkipsDone(t *testing.T) {
	dir := t.TempDir()
	f := newFake()
	lines := prompts(50)
	sum, err := Run(context.Background(), f, f, lines[:20], Options{Run: "r", Dir: dir, Workers: 4, Toolsets: []string{"file"}})
	if err != nil || sum.Done != 20 {
		t.Fatalf("first run: %+v %v", sum, err)
	}
	if _, err := Run(context.Background(), f, f, lines, Options{Run: "r", Dir: dir, Workers: 4}); !errors.Is(err, ErrExists) {
		t.Fatalf("a second run without Resume: %v, want ErrExists", err)
	}
	if _, err := Run(context.Background(), f, f, lines, Options{Run: "r", Dir: dir, Workers: 4, Resume: true}); err == nil ||
		!strings.Contains(err.Error(), "the prompts differ from those the run started with (20 prompts then, 50 now") {
		t.Fatalf("resuming with other prompts: %v", err)
	}
	os.Remove(filepath.Join(dir, InputFile))
	sum, err = Run(context.Background(), f, f, lines, Options{Run: "r", Dir: dir, Workers: 4, Resume: true, MaxTurns: 7})
	if err != nil || sum.Done != 30 || sum.Skipped != 20 || f.turns != 50 {
		t.Fatalf("resume: %+v %v, %d turns", sum, err, f.turns)
	}
	seen := map[int]int{}
	for _, e := range entries(t, dir) {
		seen[e.PromptIndex]++
		if e.Conversations[1].Value != fmt.Sprintf("p%d", e.PromptIndex) {
			t.Errorf("entry %d holds prompt %q", e.PromptIndex, e.Conversations[1].Value)
		}
	}
	for i := range 50 {
		if seen[i] != 1 {
			t.Errorf("prompt %d written %d times", i, seen[i])
		}
	}
	for _, in := range f.inputs {
		if in.Source != Source {
			t.Errorf("turn source %q, want %q", in.Source, Source)
		}
		var n, want int
		fmt.Sscanf(in.Text, "p%d", &n)
		if n >= 20 { // run by the resume, which sets MaxTurns
			want = 7
		}
		if in.MaxTurns != want {
			t.Errorf("prompt %s ran with max turns %d, want %d", in.Text, in.MaxTurns, want)
		}
	}
	var cp struct {
		Done []int `json:"completed_prompts"`
	}
	b, _ := os.ReadFile(filepath.Join(dir, CheckpointFile))
	if json.Unmarshal(b, &cp) != nil || len(cp.Done) != 50 {
		t.Errorf("checkpoint.json: %s", b)
	}
}

// A kill while a line was being written leaves part of it: resuming cuts
// it off and runs that prompt again, so no reader ever sees half a line.
func TestResumeCutsOffAHalfWrittenLine(t *testing.T) {
	dir := t.TempDir()
	f := newFake()
	lines := prompts(5)
	if _, err := Run(context.Background(), f, f, lines[:3], Options{Run: "r", Dir: dir, Workers: 1}); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(dir, InputFile)) // the first run stands for the start of one of 5
	path := filepath.Join(dir, TrajectoriesFile)
	b, _ := os.ReadFile(path)
	last := strings.LastIndex(strings.TrimSuffix(string(b), "\n"), "\n")
	os.WriteFile(path, b[:last+1+20], 0o600) // the third line cut short
	sum, err := Run(context.Background(), f, f, lines, Options{Run: "r", Dir: dir, Workers: 2, Resume: true})
	if err != nil || sum.Skipped != 2 || sum.Done != 3 {
		t.Fatalf("resume: %+v %v", sum, err)
	}
	if n := len(entries(t, dir)); n != 5 {
		t.Errorf("%d entries, want 5", n)
	}
}

// A stopped run starts no new prompt and keeps what finished; a turn
// that fails is counted and left for the resume.
func TestRunStopsOnCancelAndLeavesFailuresForResume(t *testing.T) {
	dir := t.TempDir()
	f := newFake()
	ctx, cancel := context.WithCancel(context.Background())
	f.fail = func(text string) error {
		if text == "p3" {
			return errors.New("model unavailable")
		}
		if text == "p6" {
			cancel()
			return context.Canceled
		}
		return nil
	}
	sum, err := Run(ctx, f, f, prompts(10), Options{Run: "r", Dir: dir, Workers: 1})
	if !errors.Is(err, context.Canceled) || sum.Done != 5 || sum.Failed != 1 {
		t.Fatalf("stopped run: %+v %v", sum, err)
	}
	f.fail = nil
	sum, err = Run(context.Background(), f, f, prompts(10), Options{Run: "r", Dir: dir, Workers: 3, Resume: true})
	if err != nil || sum.Done != 5 || sum.Skipped != 5 {
		t.Fatalf("resume: %+v %v", sum, err)
	}
}

func TestConversationInHermesFormat(t *testing.T) {
	msgs := []llm.Message{
		llm.UserMessage("list files"),
		{Role: llm.RoleAssistant, Reasoning: "use ls", Content: []llm.Part{{Type: llm.PartText, Text: "Looking."}},
			ToolCalls: []llm.ToolCall{{ID: "c1", Name: "terminal", Arguments: `{"command":"ls"}`}, {ID: "c2", Name: "ghost", Arguments: `not json`}}},
		{Role: llm.RoleTool, ToolCallID: "c1", Name: "terminal", Content: []llm.Part{{Type: llm.PartText, Text: "a.txt"}}},
		{Role: llm.RoleTool, ToolCallID: "c2", Name: "ghost", Content: []llm.Part{{Type: llm.PartText, Text: "no tool"}}},
		{Role: llm.RoleAssistant, Content: []llm.Part{{Type: llm.PartText, Text: "a.txt"}}},
	}
	conv := conversation("You are hermes.", []llm.ToolSpec{{Name: "terminal", Description: "run", Parameters: json.RawMessage(`{"type":"object"}`)}}, msgs)
	want := []Turn{
		{"system", "You are hermes.\n\n<tools>\n[{\"type\":\"function\",\"function\":{\"name\":\"terminal\",\"description\":\"run\",\"parameters\":{\"type\":\"object\"}}}]\n</tools>"},
		{"human", "list files"},
		{"gpt", "<think>\nuse ls\n</think>\nLooking.\n<tool_call>\n{\"name\":\"terminal\",\"arguments\":{\"command\":\"ls\"}}\n</tool_call>\n<tool_call>\n{\"name\":\"ghost\",\"arguments\":\"not json\"}\n</tool_call>"},
		{"tool", "<tool_response>\n{\"tool_call_id\":\"c1\",\"name\":\"terminal\",\"content\":\"a.txt\"}\n</tool_response>\n<tool_response>\n{\"tool_call_id\":\"c2\",\"name\":\"ghost\",\"content\":\"no tool\"}\n</tool_response>"},
		{"gpt", "a.txt"},
	}
	if len(conv) != len(want) {
		t.Fatalf("got %d turns: %+v", len(conv), conv)
	}
	for i := range want {
		if conv[i] != want[i] {
			t.Errorf("turn %d:\n got %q\nwant %q", i, conv[i], want[i])
		}
	}
	e := newEntry(Line{Index: 4}, "r", "s1", "m", nil, conv, &agent.Result{Iterations: 2, Stopped: agent.StopDone,
		ToolCalls: []agent.CallSummary{{Name: "terminal", Status: tool.StatusOK}, {Name: "ghost", Status: tool.StatusError, Code: tool.CodeNotFound}}}, time0)
	if !e.Partial || len(e.UnknownTools) != 1 || e.UnknownTools[0] != "ghost" || e.ToolErrorCounts["ghost"] != 1 ||
		e.ToolStats["terminal"] != (ToolStat{Count: 1, Success: 1}) || e.APICalls != 2 || !e.Completed || e.ToolsetsUsed == nil {
		t.Errorf("entry: %+v", e)
	}
}

var time0 = time.Date(2026, 12, 3, 9, 0, 0, 0, time.UTC)
