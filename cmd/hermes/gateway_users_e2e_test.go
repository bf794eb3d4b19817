package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/gateway/telegram/telegramtest"
	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/llm/llmtest"
)

// telegramUsersYAML is acme (ana, member; ada, admin; val, viewer) and
// globex (bob), known by their Telegram ids; Alice (42) is ana.
const telegramUsersYAML = `  require_mention: false
tenants:
  acme: {toolsets: [terminal, session_search, memory, web]}
  globex: {}
users:
  ana: {tenant: acme, identities: {telegram: "42"}}
  ada: {tenant: acme, role: admin, identities: {telegram: "43"}}
  val: {tenant: acme, role: viewer, identities: {telegram: "44"}}
  bob: {tenant: globex, identities: {telegram: "77"}}
`

var (
	tgAda = telegramtest.User{ID: 43, FirstName: "Ada", Username: "ada"}
	tgVal = telegramtest.User{ID: 44, FirstName: "Val", Username: "val"}
	tgBob = telegramtest.User{ID: 77, FirstName: "Bob", Username: "bob"}
)

// TestGatewayUsersIsolated is bob, of another tenant, asking his model
// to dig up what ana said on Telegram: session_search in his turn finds
// only his own chats, and no tool that reaches the host is offered. A stranger gets nothing, not even a pairing code,
// and never reaches the model. Each user's sessions record who they are.
func TestGatewayUsersIsolated(t *testing.T) {
	h := newHome(t)
	tg := telegramtest.New(telegramtest.Options{})
	t.Cleanup(tg.Close)
	srv := llmtest.New(t)
	// A knowledge base of the owner's, which globex is not given.
	if r := h.hermes("kb", "add", kbDocs(t), "--kb", "acme-docs"); r.code != 0 {
		t.Fatalf("kb add: %s", r.stderr)
	}
	search, _ := json.Marshal(map[string]any{"query": "kumquat launch"})
	srv.Enqueue(
		llmtest.Reply{Text: "Noted, ana."},
		llmtest.Reply{ToolCalls: []llm.ToolCall{{Name: "session_search", Arguments: string(search)}}},
		llmtest.Reply{Text: "I found nothing."},
	)
	gatewayServe(t, h, tg, srv, telegramUsersYAML)

	tg.UserMessage(telegramtest.Incoming{Text: "the kumquat launch is on friday, keep it secret"})
	waitText(t, tg, 42, "Noted, ana.")
	tg.UserMessage(telegramtest.Incoming{From: tgBob, Text: "search everything for kumquat"})
	waitText(t, tg, 77, "I found nothing.")
	// globex names no toolsets: bob's turns are offered none that reach
	// the host (and state.db with every tenant's data) or schedule jobs
	// that run as the owner.
	for _, spec := range srv.Requests()[1].Tools {
		switch spec.Name {
		case "terminal", "read_file", "write_file", "patch", "search_files", "execute_code", "cronjob", "browser_navigate", "process", "kb_search":
			t.Errorf("bob was offered %s", spec.Name)
		}
	}
	res := lastToolResult(t, srv, 2)
	if strings.Contains(res, "friday") || strings.Contains(res, "keep it secret") {
		t.Errorf("bob's session_search reached ana's chat:\n%s", res)
	}
	stranger := telegramtest.User{ID: 555, FirstName: "Eve"}
	tg.UserMessage(telegramtest.Incoming{From: stranger, Text: "hello?"})
	tg.UserMessage(telegramtest.Incoming{From: tgBob, Text: "/whoami"})
	waitText(t, tg, 77, "user bob")
	if sent := tg.Sent(555); len(sent) != 0 {
		t.Errorf("the stranger was answered: %+v", sent)
	}
	if n := len(srv.Requests()); n != 3 {
		t.Errorf("%d model calls, want 3", n)
	}
	r := h.hermes("sessions", "list", "--json")
	if r.code != 0 || !strings.Contains(r.stdout, `"user":"ana"`) || !strings.Contains(r.stdout, `"tenant":"globex"`) {
		t.Errorf("sessions list: %s %s", r.stdout, r.stderr)
	}
}

// TestGatewayViewerCannotApprove: in a group, a viewer's dangerous
// command asks for approval; the viewer's own press and a press by a
// user of another tenant do nothing, and their tenant's admin allows it.
func TestGatewayViewerCannotApprove(t *testing.T) {
	h := newHome(t)
	tg := telegramtest.New(telegramtest.Options{})
	t.Cleanup(tg.Close)
	srv := llmtest.New(t)
	marker := filepath.Join(h.dir, "cleaned")
	args, _ := json.Marshal(map[string]string{"command": "rm -rf " + filepath.Join(h.dir, "nothing") + " && touch " + marker})
	srv.Enqueue(llmtest.Reply{ToolCalls: []llm.ToolCall{{Name: "terminal", Arguments: string(args)}}}, llmtest.Reply{Text: "Cleaned."})
	gatewayServe(t, h, tg, srv, telegramUsersYAML)

	const group = -100500
	tg.UserMessage(telegramtest.Incoming{Chat: group, From: tgVal, Text: "clean up please"})
	ask := waitText(t, tg, group, "needs your approval")
	var once string
	if ask.ReplyMarkup != nil {
		for _, row := range ask.ReplyMarkup.InlineKeyboard {
			for _, b := range row {
				if b.Text == "Allow once" {
					once = b.CallbackData
				}
			}
		}
	}
	if once == "" {
		t.Fatalf("the request has no Allow once button: %+v", ask)
	}
	tg.Press(group, ask.MessageID, tgVal, once)
	tg.Press(group, ask.MessageID, tgBob, once)
	tg.Press(group, ask.MessageID, tgAda, once)
	done := waitText(t, tg, group, "Allowed (once) by")
	if !strings.Contains(done.Text, "by @ada") {
		t.Errorf("allowed by someone else than ada: %q", done.Text)
	}
	waitText(t, tg, group, "Cleaned.")
	if _, err := os.Stat(marker); err != nil {
		t.Errorf("the approved command did not run: %v", err)
	}
	// The audit log says whose call it was and who approved it.
	r := h.hermes("audit", "--json", "--tool", "terminal")
	var list []struct {
		User, Tenant, Approval string
		ApprovedBy             string `json:"approved_by"`
	}
	json.Unmarshal([]byte(r.stdout), &list)
	if len(list) != 1 || list[0].User != "val" || list[0].Tenant != "acme" || list[0].Approval != "person" || !strings.Contains(list[0].ApprovedBy, "ada") {
		t.Errorf("audit: %s %s", r.stdout, r.stderr)
	}
}

// TestServeLogsCarryTheTurn: serve's JSON log lines of a user's turn on
// Telegram carry the turn's session_id, turn_id, user, tenant and
// platform: the tool call its tool and duration_ms, the end of the turn
// its tokens in and out and cost. A token the user pasted is in no line.
func TestServeLogsCarryTheTurn(t *testing.T) {
	h := newHome(t)
	tg := telegramtest.New(telegramtest.Options{})
	t.Cleanup(tg.Close)
	srv := llmtest.New(t)
	token := "ghp_" + strings.Repeat("Zq9x", 9)
	srv.Enqueue(llmtest.Reply{ToolCalls: []llm.ToolCall{terminalCall("echo " + token)}}, llmtest.Reply{Text: "Done."})
	h.write("config.yaml", fmt.Sprintf(`model: {base_url: "%s/v1", default: test-model, api_mode: chat_completions, api_key: sk-test-123456}
memory: {long_term: false}
logging: {level: info}
gateway:
  telegram: {token: "%s", base_url: "%s"}
%s`, srv.URL(), tg.Token, tg.URL, telegramUsersYAML))
	stop, logs := startServe(t, h, tg.Token, token)
	tg.UserMessage(telegramtest.Incoming{Text: "echo my token " + token})
	waitText(t, tg, 42, "Done.")
	stop()
	var call, end map[string]any
	for _, line := range strings.Split(logs.String(), "\n") {
		var m map[string]any
		if json.Unmarshal([]byte(line), &m) != nil {
			continue
		}
		switch m["msg"] {
		case "tool call":
			call = m
		case "turn finished":
			end = m
		}
	}
	if call == nil || end == nil {
		t.Fatalf("no tool call or turn finished line:\n%s", logs.String())
	}
	for _, m := range []map[string]any{call, end} {
		for k, want := range map[string]any{"user": "ana", "tenant": "acme", "platform": "telegram", "source": "telegram"} {
			if m[k] != want {
				t.Errorf("%s: %s = %v, want %v", m["msg"], k, m[k], want)
			}
		}
		if m["session_id"] == nil || m["turn_id"] == nil || m["turn_id"] != call["turn_id"] {
			t.Errorf("%s: session_id %v, turn_id %v (the call's %v)", m["msg"], m["session_id"], m["turn_id"], call["turn_id"])
		}
	}
	if call["tool"] != "terminal" || call["duration_ms"] == nil {
		t.Errorf("tool call line: %v", call)
	}
	if end["tokens_in"] == nil || end["tokens_out"] == nil || end["cost"] == nil {
		t.Errorf("turn finished line: %v", end)
	}
}
