package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/hermes-go/hermes/internal/gateway/dingtalk/dingtalktest"
	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/llm/llmtest"
)

// dingtalkServe runs hermes serve with gateway.dingtalk on dt, manager42
// allowed, and extra lines inside gateway.dingtalk and after it.
func dingtalkServe(t *testing.T, h *home, dt *dingtalktest.Server, srv *llmtest.Server, inside, after string) {
	t.Helper()
	h.write("config.yaml", fmt.Sprintf(`model: {base_url: "%s/v1", default: test-model, api_mode: chat_completions, api_key: sk-test-123456}
memory: {long_term: false}
gateway:
  dingtalk:
    client_id: "%s"
    client_secret: "%s"
    base_url: "%s"
    allow: ["manager42"]
%s%s`, srv.URL(), dt.ClientID, dt.ClientSecret, dt.URL, inside, after))
	startServe(t, h, dt.ClientSecret)
}

// waitDingTalk waits until the robot sent chat a message holding want.
func waitDingTalk(t *testing.T, dt *dingtalktest.Server, chat, want string) dingtalktest.Sent {
	t.Helper()
	return waitSent(t, dt.Wait, func() []dingtalktest.Sent { return dt.Sent(chat) },
		func(m dingtalktest.Sent) string { return m.Text }, chat, want)
}

func deliver(t *testing.T, dt *dingtalktest.Server, m dingtalktest.Message) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	id, err := dt.Deliver(ctx, m)
	if err != nil {
		t.Fatal(err)
	}
	if ack, err := dt.WaitAck(ctx, id); err != nil || ack.Code != 200 {
		t.Fatalf("frame %s: ack %+v, %v", id, ack, err)
	}
	return id
}

// Through the real binary over a Stream connection: a message gets its
// answer through the sessionWebhook; the same message redelivered is
// answered once; after a dropped socket and a server's disconnect the
// connection is back and answers; a "send too fast" answer delays the
// reply without losing it; a reply over 20000 bytes arrives whole in
// pieces that each fit, split between lines, never inside a character.
func TestGatewayDingTalkStream(t *testing.T) {
	h := newHome(t)
	dt := dingtalktest.New(dingtalktest.Options{})
	t.Cleanup(dt.Close)
	srv := llmtest.New(t)
	var long strings.Builder
	for i := range 700 {
		fmt.Fprintf(&long, "第%d行：钉钉的限制是按字节计算的。\n", i)
	}
	srv.Handle(func(r llmtest.Request) llmtest.Reply {
		if r.LastUserText() == "long please" {
			return llmtest.Reply{Text: long.String()}
		}
		return llmtest.Reply{Text: "answer: " + r.LastUserText()}
	})
	dingtalkServe(t, h, dt, srv, "", "")

	m := dt.UserMessage(dingtalktest.Incoming{Text: "hello hermes"})
	deliver(t, dt, m)
	if got := waitDingTalk(t, dt, "manager42", "answer: hello hermes"); got.Via != "session" {
		t.Errorf("the answer went by %s, not the sessionWebhook", got.Via)
	}
	deliver(t, dt, m) // redelivered: a new frame, the same msgId

	// The next message goes on the new connection: pushed before hermes
	// is back, it would go down with the old one.
	before, _ := dt.Connects()
	dt.Drop()
	wctx, wcancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer wcancel()
	if err := dt.WaitConnected(wctx, before+1); err != nil {
		t.Fatalf("hermes did not connect again after the drop: %v", err)
	}
	deliver(t, dt, dt.UserMessage(dingtalktest.Incoming{Text: "after the drop"}))
	waitDingTalk(t, dt, "manager42", "answer: after the drop")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if !dt.Disconnect(ctx) {
		t.Fatal("disconnect not pushed")
	}
	if err := dt.WaitConnected(ctx, 3); err != nil {
		t.Fatal(err)
	}

	dt.RateLimitNext(1)
	deliver(t, dt, dt.UserMessage(dingtalktest.Incoming{Text: "while throttled"}))
	waitDingTalk(t, dt, "manager42", "answer: while throttled")
	if n := dt.Refused(); n != 1 {
		t.Errorf("%d sends refused as too fast, want the 1 the server refused", n)
	}

	deliver(t, dt, dt.UserMessage(dingtalktest.Incoming{Text: "long please", SessionTTL: -1}))
	want := strings.TrimSpace(long.String())
	if err := dt.Wait(ctx, func() bool { return strings.Contains(joinSent(dt, "manager42"), "第699行") }); err != nil {
		t.Fatalf("the long reply did not arrive: %v", err)
	}
	var parts []string
	for _, s := range dt.Sent("manager42") {
		if strings.Contains(s.Text, "行：") {
			piece := strings.TrimSpace(s.Text)
			parts = append(parts, piece)
			if len(s.Text) > dingtalktest.MaxText || !utf8.ValidString(s.Text) || !strings.HasSuffix(piece, "。") {
				t.Errorf("a piece of %d bytes does not end a line: %q", len(s.Text), []rune(piece)[max(0, len([]rune(piece))-8):])
			}
		}
	}
	if len(parts) < 2 || strings.Join(parts, "\n") != want {
		t.Errorf("the long reply came in %d pieces that do not make it up again", len(parts))
	}
	n := 0
	for _, r := range srv.Requests() {
		if r.LastUserText() == "hello hermes" {
			n++
		}
	}
	if n != 1 {
		t.Errorf("the redelivered message reached the model %d times", n)
	}
}

func joinSent(dt *dingtalktest.Server, chat string) string {
	var b strings.Builder
	for _, s := range dt.Sent(chat) {
		b.WriteString(s.Text)
	}
	return b.String()
}

// A dangerous command asks the group in text, since DingTalk robots have
// no buttons that call back; /approve from someone allowed in the chat
// but not an approver is refused, the approver's /deny refuses it, and
// the command never runs. A group message without the @ is not answered.
func TestGatewayDingTalkApprovalByText(t *testing.T) {
	h := newHome(t)
	dt := dingtalktest.New(dingtalktest.Options{})
	t.Cleanup(dt.Close)
	srv := llmtest.New(t)
	marker := filepath.Join(h.dir, "deleted")
	args, _ := json.Marshal(map[string]string{"command": "rm -rf " + filepath.Join(h.dir, "nothing") + " && touch " + marker})
	srv.Enqueue(llmtest.Reply{ToolCalls: []llm.ToolCall{{Name: "terminal", Arguments: string(args)}}}, llmtest.Reply{Text: "I did not delete it."})
	dingtalkServe(t, h, dt, srv, "    approvers: [\"manager42\"]\n", "  group_sessions_per_user: false\n  allow: [\"bob7\"]\n")

	const team = "cidTEAM"
	deliver(t, dt, dt.UserMessage(dingtalktest.Incoming{Text: "just chatting", Group: team}))
	deliver(t, dt, dt.UserMessage(dingtalktest.Incoming{Text: "clean up", Group: team, AtBot: true}))
	ask := waitDingTalk(t, dt, team, "needs your approval")
	if !strings.Contains(ask.Text, "/approve") || !strings.Contains(ask.Text, "/deny") {
		t.Errorf("the request does not say how to answer: %q", ask.Text)
	}
	deliver(t, dt, dt.UserMessage(dingtalktest.Incoming{Staff: "bob7", Nick: "Bob", Text: "/approve", Group: team, AtBot: true}))
	waitDingTalk(t, dt, team, "not allowed to answer approval requests")
	deliver(t, dt, dt.UserMessage(dingtalktest.Incoming{Text: "/deny", Group: team, AtBot: true}))
	waitDingTalk(t, dt, team, "I did not delete it.")
	if _, err := os.Stat(marker); err == nil {
		t.Error("the denied command ran")
	}
	for _, r := range srv.Requests() {
		if strings.Contains(r.LastUserText(), "just chatting") {
			t.Error("a group message without the @ reached the model")
		}
	}
}

// In http mode serve answers DingTalk's signed callbacks on the path, a
// retried callback once, and refuses forged ones before the model sees
// them.
func TestGatewayDingTalkHTTPCallbacks(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	h := newHome(t)
	dt := dingtalktest.New(dingtalktest.Options{})
	t.Cleanup(dt.Close)
	srv := llmtest.New(t)
	srv.Handle(func(r llmtest.Request) llmtest.Reply { return llmtest.Reply{Text: "posted: " + r.LastUserText()} })
	dingtalkServe(t, h, dt, srv, "    mode: http\n    path: /hooks/dingtalk\n", fmt.Sprintf("  webhook: {listen: %q}\n", addr))
	url := "http://" + addr + "/hooks/dingtalk"

	m := dt.UserMessage(dingtalktest.Incoming{Text: "hello by callback"})
	post := func(m dingtalktest.Message) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		for {
			code, err := dt.Callback(url, m)
			if err == nil && code == http.StatusOK {
				return
			}
			// serve is still starting: the port is not open or Receive
			// is not taking posts yet.
			select {
			case <-ctx.Done():
				t.Fatalf("the callback was not taken: %d %v", code, err)
			case <-time.After(100 * time.Millisecond):
			}
		}
	}
	post(m)
	waitDingTalk(t, dt, "manager42", "posted: hello by callback")
	post(m) // DingTalk retrying
	forged := dt.UserMessage(dingtalktest.Incoming{Text: "forged order"})
	stale := fmt.Sprint(time.Now().Add(-2 * time.Hour).UnixMilli())
	for _, c := range []struct{ ts, sign string }{
		{"", ""},
		{fmt.Sprint(time.Now().UnixMilli()), dingtalktest.Sign(fmt.Sprint(time.Now().UnixMilli()), "not-the-secret")},
		{stale, dingtalktest.Sign(stale, dt.ClientSecret)},
	} {
		if code, err := dt.CallbackSigned(url, forged, c.ts, c.sign); err != nil || code != http.StatusUnauthorized {
			t.Errorf("a forged callback (timestamp %q) got %d %v, want 401", c.ts, code, err)
		}
	}
	post(dt.UserMessage(dingtalktest.Incoming{Text: "and again"}))
	waitDingTalk(t, dt, "manager42", "posted: and again")
	n := 0
	for _, r := range srv.Requests() {
		if strings.Contains(r.LastUserText(), "forged") {
			t.Errorf("the forged callback reached the model")
		}
		if r.LastUserText() == "hello by callback" {
			n++
		}
	}
	if n != 1 {
		t.Errorf("the retried callback reached the model %d times", n)
	}
}

// hermes gateway status checks DingTalk's credentials as serve would use
// them, and says why not, without the secret.
func TestGatewayDingTalkStatus(t *testing.T) {
	dt := dingtalktest.New(dingtalktest.Options{})
	t.Cleanup(dt.Close)
	h := newHome(t)
	config := func(secret string) string {
		return fmt.Sprintf("gateway:\n  dingtalk: {client_id: %q, client_secret: %q, base_url: %q}\n", dt.ClientID, secret, dt.URL)
	}
	h.write("config.yaml", config(dt.ClientSecret))
	r := h.hermes("gateway", "status")
	if r.code != 0 || !strings.Contains(r.stdout, "dingtalk") || !strings.Contains(r.stdout, "robot "+dt.ClientID+", messages over a Stream connection") {
		t.Errorf("exit %d:\n%s%s", r.code, r.stdout, r.stderr)
	}
	h.write("config.yaml", config("wrong-secret-value"))
	r = h.hermes("gateway", "status")
	if r.code == 0 || !strings.Contains(r.stdout, "check client_id and client_secret") || strings.Contains(r.stdout+r.stderr, "wrong-secret-value") {
		t.Errorf("a wrong secret: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// Someone not allowed who writes to the robot directly gets a pairing
// code in the chat, and is answered once the owner approves it.
func TestGatewayDingTalkPairing(t *testing.T) {
	h := newHome(t)
	dt := dingtalktest.New(dingtalktest.Options{})
	t.Cleanup(dt.Close)
	srv := llmtest.New(t)
	srv.Enqueue(llmtest.Reply{Text: "Welcome, Bob."})
	dingtalkServe(t, h, dt, srv, "", "")

	deliver(t, dt, dt.UserMessage(dingtalktest.Incoming{Staff: "bob7", Nick: "Bob", Text: "let me in"}))
	msg := waitDingTalk(t, dt, "bob7", "hermes pairing approve dingtalk ")
	code := strings.Fields(strings.Trim(msg.Text[strings.Index(msg.Text, "approve dingtalk ")+len("approve dingtalk "):], "`"))[0]
	code = strings.Trim(code, "`")
	if r := h.hermes("pairing", "approve", "dingtalk", code); r.code != 0 {
		t.Fatalf("approve %q: exit %d %s", code, r.code, r.stderr)
	}
	deliver(t, dt, dt.UserMessage(dingtalktest.Incoming{Staff: "bob7", Nick: "Bob", Text: "thanks"}))
	waitDingTalk(t, dt, "bob7", "Welcome, Bob.")
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("%d model calls, want 1: the stranger's first message must not reach the model", n)
	}
}
