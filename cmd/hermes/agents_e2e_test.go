package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/gateway/telegram/telegramtest"
	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/llm/llmtest"
)

// agentsConfig is a config.yaml with two role agents and a shell that is
// disabled for everyone.
const agentsConfig = `agent:
  disabled_toolsets: [terminal]
agents:
  analyst:
    description: Reads the numbers
    soul: souls/analyst.md
    toolsets: [memory, terminal, todo]
    model: analyst-model
  writer:
    description: Writes the report
    system_prompt: You are the report writer.
`

// agentsHome is a home with agentsConfig and the model at srv.
func agentsHome(t *testing.T, srv *llmtest.Server) *home {
	h := newHome(t)
	h.write("config.yaml", `model: {base_url: "`+srv.URL()+`/v1", default: test-model, api_mode: chat_completions, api_key: sk-test-123456}
`+agentsConfig)
	if err := os.MkdirAll(filepath.Join(h.dir, "souls"), 0o700); err != nil {
		t.Fatal(err)
	}
	h.write("souls/analyst.md", "You are the analyst. You read numbers.")
	h.write("SOUL.md", "You are the default hermes.")
	return h
}

// TestChatAgent runs hermes chat --agent analyst: the model gets the
// analyst's soul, its tools (without the globally disabled terminal) and
// its model; its memory note lands in the analyst's own MEMORY.md, and
// -c continues as the analyst.
func TestChatAgent(t *testing.T) {
	srv := llmtest.New(t)
	h := agentsHome(t, srv)
	srv.Enqueue(
		llmtest.Reply{ToolCalls: []llm.ToolCall{{Name: "memory", Arguments: `{"action":"add","target":"memory","content":"Q3 revenue is in sales.csv"}`}}},
		llmtest.Reply{Text: "Noted."},
		llmtest.Reply{Text: "Still the analyst."},
	)
	chat := func(prompt string, flags ...string) (chatResult, result) {
		h.cwd = t.TempDir()
		r := h.hermes(append([]string{"chat", "--json", "-q", prompt}, flags...)...)
		var out chatResult
		r.decode(t, &out)
		return out, r
	}
	out, r := chat("remember where revenue is", "--agent", "analyst")
	if r.code != 0 || out.Final != "Noted." {
		t.Fatalf("exit %d, %+v\nstderr: %s", r.code, out, r.stderr)
	}
	if _, r = chat("who are you?", "-c"); r.code != 0 {
		t.Fatalf("continue: exit %d\nstderr: %s", r.code, r.stderr)
	}
	for i, req := range srv.Requests() {
		system := req.Messages[0].Text()
		if !strings.Contains(system, "You are the analyst.") || strings.Contains(system, "default hermes") {
			t.Errorf("request %d: system prompt is not the analyst's:\n%s", i, system)
		}
		var names []string
		for _, tl := range req.Tools {
			names = append(names, tl.Name)
		}
		slices.Sort(names)
		if !slices.Equal(names, []string{"memory", "todo"}) {
			t.Errorf("request %d: tools %v, want the analyst's memory and todo (terminal is disabled)", i, names)
		}
		if req.Model != "analyst-model" {
			t.Errorf("request %d: model %q, want analyst-model", i, req.Model)
		}
	}
	mem, _ := os.ReadFile(filepath.Join(h.dir, "agents", "analyst", "MEMORY.md"))
	if !strings.Contains(string(mem), "Q3 revenue") {
		t.Errorf("the analyst's MEMORY.md = %q", mem)
	}
	if shared, _ := os.ReadFile(filepath.Join(h.dir, "memories", "MEMORY.md")); strings.Contains(string(shared), "Q3 revenue") {
		t.Errorf("the shared MEMORY.md got the analyst's note: %q", shared)
	}
}

// TestChatAgentUnknown names the agents there are.
func TestChatAgentUnknown(t *testing.T) {
	srv := llmtest.New(t)
	h := agentsHome(t, srv)
	r := h.hermes("chat", "-q", "hi", "--agent", "nobody")
	if r.code == 0 || !strings.Contains(r.stderr, `--agent: "nobody" is not configured; the configured agents are analyst, writer`) {
		t.Fatalf("exit %d, stderr: %s", r.code, r.stderr)
	}
	if len(srv.Requests()) != 0 {
		t.Errorf("the model was called")
	}
}

// TestAgentsList shows the configured agents.
func TestAgentsList(t *testing.T) {
	h := agentsHome(t, llmtest.New(t))
	r := h.hermes("agents", "list")
	if r.code != 0 || !strings.Contains(r.stdout, "analyst") || !strings.Contains(r.stdout, "Reads the numbers") ||
		!strings.Contains(r.stdout, "writer") || !strings.Contains(r.stdout, "analyst-model") {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
}

// TestAgentSoulOutsideHome refuses a soul path that climbs out of
// HERMES_HOME, naming the key and the value.
func TestAgentSoulOutsideHome(t *testing.T) {
	h := newHome(t)
	h.write("config.yaml", "agents:\n  spy:\n    soul: ../../etc/passwd\n")
	r := h.hermes("agents", "list")
	if r.code == 0 || !strings.Contains(r.stderr, `agents.spy.soul: "../../etc/passwd" is not accepted: it leaves HERMES_HOME`) {
		t.Fatalf("exit %d, stderr: %s", r.code, r.stderr)
	}
}

// TestJobAgent runs a job whose agent: is the analyst: the run gets the
// analyst's soul, tools and model, and its session records the agent.
func TestJobAgent(t *testing.T) {
	srv := llmtest.New(t)
	h := agentsHome(t, srv)
	cfg, err := os.ReadFile(filepath.Join(h.dir, "config.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	h.write("config.yaml", string(cfg)+`schedules:
  numbers:
    cron: "@daily"
    agent: analyst
    prompt: look at the numbers
    deliver: local
`)
	srv.Enqueue(llmtest.Reply{Text: "numbers read"})
	if r := h.hermes("cron", "run", "numbers"); r.code != 0 {
		t.Fatalf("cron run: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	req := srv.Requests()[0]
	var names []string
	for _, tl := range req.Tools {
		names = append(names, tl.Name)
	}
	slices.Sort(names)
	if !strings.Contains(req.Messages[0].Text(), "You are the analyst.") || req.Model != "analyst-model" ||
		!slices.Equal(names, []string{"memory", "todo"}) {
		t.Errorf("the job did not run as the analyst: model %q, tools %v, prompt:\n%s", req.Model, names, req.Messages[0].Text())
	}
	r := h.hermes("sessions", "list", "--json")
	if r.code != 0 || !strings.Contains(r.stdout, `"agent": "analyst"`) && !strings.Contains(r.stdout, `"agent":"analyst"`) {
		t.Errorf("sessions list does not show the agent: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// TestGatewayAgentBinding binds a Telegram chat to the analyst with
// /agent: the next message starts a session as the analyst; an unknown
// name is refused with the list; /agent default goes back.
func TestGatewayAgentBinding(t *testing.T) {
	h := newHome(t)
	tg := telegramtest.New(telegramtest.Options{})
	t.Cleanup(tg.Close)
	srv := llmtest.New(t)
	srv.Handle(func(r llmtest.Request) llmtest.Reply {
		who := "hermes"
		if strings.Contains(r.Messages[0].Text(), "You are the analyst.") {
			who = "analyst"
		}
		return llmtest.Reply{Text: "I am " + who + " on " + r.Model}
	})
	gatewayServe(t, h, tg, srv, "agents:\n  analyst:\n    system_prompt: You are the analyst.\n    model: analyst-model\n")
	tg.UserMessage(telegramtest.Incoming{Text: "who are you?"})
	waitText(t, tg, 42, "I am hermes on test-model")
	tg.UserMessage(telegramtest.Incoming{Text: "/agent nobody"})
	waitText(t, tg, 42, `"nobody" is not an agent. The agents are analyst.`)
	tg.UserMessage(telegramtest.Incoming{Text: "/agent analyst"})
	waitText(t, tg, 42, "This chat now talks to the agent analyst")
	tg.UserMessage(telegramtest.Incoming{Text: "and now?"})
	waitText(t, tg, 42, "I am analyst on analyst-model")
	tg.UserMessage(telegramtest.Incoming{Text: "/agent default"})
	waitText(t, tg, 42, "This chat talks to hermes itself again")
}
