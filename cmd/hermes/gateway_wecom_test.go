package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/gateway/wecom/wecomtest"
	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/llm/llmtest"
)

// wecomServe starts hermes serve with a WeCom app pointed at wc, its
// callbacks taken on a free port that wc posts to, and the model at srv.
// alice and bob may talk to hermes; alice alone approves.
func wecomServe(t *testing.T, h *home, wc *wecomtest.Server, srv *llmtest.Server) (logs *syncBuffer, stop func()) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	h.write(".env", fmt.Sprintf("WECOM_SECRET=%s\nWECOM_AES_KEY=%s\n", wc.Secret, wc.EncodingAESKey))
	h.write("config.yaml", fmt.Sprintf(`model: {base_url: "%s/v1", default: test-model, api_mode: chat_completions, api_key: sk-test-123456}
memory: {long_term: false}
gateway:
  webhook: {listen: %q}
`, srv.URL(), addr)+wecomAppConfig(wc, "    allow: [alice, bob]\n    approvers: [alice]\n"))
	logs, stop = serveWeCom(t, h, nil, wc.Secret, wc.EncodingAESKey, wc.Token, "tok-")
	wc.SetCallback("http://" + addr + "/wecom")
	// The console saves the URL only once it answers the verification.
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for {
		err := wc.VerifyURL(ctx)
		if err == nil {
			break
		}
		if ctx.Err() != nil {
			t.Fatalf("hermes serve never answered the URL verification: %v\n%s", err, logs.String())
		}
		select {
		case <-ctx.Done():
		case <-time.After(50 * time.Millisecond): // serve is starting
		}
	}
	return logs, stop
}

// serveWeCom starts hermes serve in h and stops it when the test ends or
// stop is called, then checks that none of secrets reached its log and
// runs after.
func serveWeCom(t *testing.T, h *home, after func(), secrets ...string) (logs *syncBuffer, stop func()) {
	t.Helper()
	cmd := exec.Command(hermesBin, "serve")
	cmd.Env, cmd.Dir = h.env, h.dir
	logs = &syncBuffer{}
	cmd.Stdout, cmd.Stderr = io.Discard, logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	stop = sync.OnceFunc(func() {
		cmd.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(15 * time.Second):
			cmd.Process.Kill()
			t.Errorf("hermes serve did not stop on SIGINT\n%s", logs.String())
		}
		if after != nil {
			after()
		}
		if t.Failed() {
			t.Logf("serve's log:\n%s", logs.String())
		}
		for _, secret := range secrets {
			if strings.Contains(logs.String(), secret) {
				t.Errorf("a secret (%.6s…) is in serve's log", secret)
			}
		}
	})
	t.Cleanup(stop)
	return logs, stop
}

// wecomAppConfig is the gateway.wecom section for the app wc plays, its
// secrets from .env, with extra lines of the section after it.
func wecomAppConfig(wc *wecomtest.Server, extra string) string {
	return fmt.Sprintf(`  wecom:
    corp_id: %s
    agent_id: %d
    secret: ${WECOM_SECRET}
    token: %s
    encoding_aes_key: ${WECOM_AES_KEY}
    base_url: %q
`, wc.CorpID, wc.AgentID, wc.Token, wc.URL) + extra
}

// wecomSay posts what user writes, as WeCom does, and returns its MsgId.
func wecomSay(t *testing.T, wc *wecomtest.Server, user, text string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	id, err := wc.UserMessage(ctx, wecomtest.Incoming{From: user, Text: text})
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// wecomWait waits until the app's messages to user hold want, and
// returns them all.
func wecomWait(t *testing.T, wc *wecomtest.Server, user, want string) []wecomtest.Message {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var all string
	err := wc.Wait(ctx, func() bool {
		all = ""
		for _, m := range wc.Sent(user) {
			all += m.Content + "\n"
		}
		return strings.Contains(all, want)
	})
	if err != nil {
		t.Fatalf("no message to %s holds %q; the app sent %q", user, want, all)
	}
	return wc.Sent(user)
}

// Through the real binary: the callback URL verifies, a member's message
// is answered through message/send, its redelivery (WeCom's retry) is
// answered once, and a forged callback is refused before the model.
func TestGatewayWeComAppAnswers(t *testing.T) {
	h := newHome(t)
	wc := wecomtest.New(wecomtest.Options{})
	t.Cleanup(wc.Close)
	srv := llmtest.New(t)
	srv.Handle(func(r llmtest.Request) llmtest.Reply { return llmtest.Reply{Text: "答: " + r.LastUserText()} })
	wecomServe(t, h, wc, srv)

	id := wecomSay(t, wc, "alice", "你好 hermes")
	wecomWait(t, wc, "alice", "答: 你好 hermes")
	if err := wc.Redeliver(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	forged, err := wc.Seal(wc.MessageXML(wecomtest.Incoming{From: "alice", Text: "forged", MsgID: "1"}))
	if err != nil {
		t.Fatal(err)
	}
	forged.Query.Set("msg_signature", strings.Repeat("a", 40))
	if status, _, err := wc.Post(context.Background(), forged.Query, forged.XML); err != nil || status != 403 {
		t.Errorf("a forged callback: %d %v, want 403", status, err)
	}
	wecomSay(t, wc, "alice", "second")
	sent := wecomWait(t, wc, "alice", "答: second")
	if len(sent) != 2 {
		t.Errorf("%d messages to alice, want 2 (the redelivery answered once): %+v", len(sent), sent)
	}
	for _, r := range srv.Requests() {
		if strings.Contains(r.LastUserText(), "forged") {
			t.Error("the forged callback reached the model")
		}
	}
	if n := len(srv.Requests()); n != 2 {
		t.Errorf("%d model calls, want 2", n)
	}
}

// Without the host's IP among the app's trusted IPs, WeCom answers 60020:
// the reply is kept in undelivered.jsonl, and the log says what to set up.
func TestGatewayWeComAppUntrustedIP(t *testing.T) {
	h := newHome(t)
	wc := wecomtest.New(wecomtest.Options{})
	t.Cleanup(wc.Close)
	srv := llmtest.New(t)
	srv.Enqueue(llmtest.Reply{Text: "kept for later"}, llmtest.Reply{Text: "delivered"})
	logs, stop := wecomServe(t, h, wc, srv)

	wc.DenyIP(true)
	wecomSay(t, wc, "alice", "hello")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := wc.Wait(ctx, func() bool { return wc.CallCount("/cgi-bin/gettoken")+wc.CallCount("/cgi-bin/message/send") > 0 }); err != nil {
		t.Fatal("hermes never called WeCom")
	}
	// Once the IP is trusted the next reply goes through; the chat's
	// replies go in order, so the first was dealt with by then.
	wc.DenyIP(false)
	wecomSay(t, wc, "alice", "and now?")
	wecomWait(t, wc, "alice", "delivered")
	stop()
	if n := len(wc.Sent("alice")); n != 1 {
		t.Errorf("%d messages delivered, want 1", n)
	}
	if !strings.Contains(logs.String(), "60020") || !strings.Contains(logs.String(), "Trusted IP") {
		t.Errorf("the log does not say what to set up:\n%s", logs.String())
	}
	kept, err := os.ReadFile(filepath.Join(h.dir, "gateway", "undelivered.jsonl"))
	if err != nil || !strings.Contains(string(kept), "kept for later") {
		t.Errorf("undelivered.jsonl: %q, %v", kept, err)
	}
}

// WeCom answers 45009 (over the rate limit) in a 200: the reply waits and
// arrives, none lost; a reply over 2048 bytes of CJK arrives whole, in
// parts that each fit.
func TestGatewayWeComRateLimitAndLongReply(t *testing.T) {
	h := newHome(t)
	wc := wecomtest.New(wecomtest.Options{})
	t.Cleanup(wc.Close)
	srv := llmtest.New(t)
	long := strings.Repeat("第一段落的文字很长。", 120) + "\n\n" + strings.Repeat("第二段落也很长。", 150) + "\n\n结束。"
	srv.Enqueue(llmtest.Reply{Text: "after the limit"}, llmtest.Reply{Text: long})
	wecomServe(t, h, wc, srv)

	wc.FailNext(45009)
	wecomSay(t, wc, "alice", "hello")
	wecomWait(t, wc, "alice", "after the limit")
	wecomSay(t, wc, "alice", "write a lot")
	sent := wecomWait(t, wc, "alice", "结束。")
	var got strings.Builder
	for _, m := range sent[1:] {
		if len(m.Content) > wecomtest.MaxText {
			t.Errorf("a part of %d bytes", len(m.Content))
		}
		got.WriteString(m.Content)
	}
	if len(sent) < 4 || strings.Join(strings.Fields(got.String()), "") != strings.Join(strings.Fields(long), "") {
		t.Errorf("the long reply arrived in %d parts as %d bytes of %d", len(sent)-1, got.Len(), len(long))
	}
}

// A dangerous command asks the chat to answer /approve or /deny: bob, who
// may talk but not approve, is refused and his command does not run;
// alice, an approver, allows hers and it runs.
func TestGatewayWeComApproveByText(t *testing.T) {
	h := newHome(t)
	wc := wecomtest.New(wecomtest.Options{})
	t.Cleanup(wc.Close)
	srv := llmtest.New(t)
	mark := func(who string) (string, string) {
		marker := filepath.Join(h.dir, who+"-ran")
		args, _ := json.Marshal(map[string]string{"command": "rm -rf " + filepath.Join(h.dir, "nothing") + " && touch " + marker})
		return marker, string(args)
	}
	bobMarker, bobArgs := mark("bob")
	aliceMarker, aliceArgs := mark("alice")
	srv.Handle(func(r llmtest.Request) llmtest.Reply {
		last := r.LastUserText()
		switch {
		case strings.Contains(last, "bob cleans"):
			if len(r.Messages) > 0 && r.Messages[len(r.Messages)-1].Role == llm.RoleTool {
				return llmtest.Reply{Text: "bob's turn is over."}
			}
			return llmtest.Reply{ToolCalls: []llm.ToolCall{{Name: "terminal", Arguments: bobArgs}}}
		case strings.Contains(last, "alice cleans"):
			if len(r.Messages) > 0 && r.Messages[len(r.Messages)-1].Role == llm.RoleTool {
				return llmtest.Reply{Text: "alice's command ran."}
			}
			return llmtest.Reply{ToolCalls: []llm.ToolCall{{Name: "terminal", Arguments: aliceArgs}}}
		}
		return llmtest.Reply{Text: "?"}
	})
	wecomServe(t, h, wc, srv)

	wecomSay(t, wc, "bob", "bob cleans up")
	wecomWait(t, wc, "bob", "/approve")
	wecomSay(t, wc, "bob", "/approve")
	wecomWait(t, wc, "bob", "not allowed")
	if _, err := os.Stat(bobMarker); err == nil {
		t.Error("bob approved his own command without being an approver")
	}

	wecomSay(t, wc, "alice", "alice cleans up")
	wecomWait(t, wc, "alice", "/approve")
	wecomSay(t, wc, "alice", "/approve")
	wecomWait(t, wc, "alice", "alice's command ran.")
	if _, err := os.Stat(aliceMarker); err != nil {
		t.Errorf("alice's approved command did not run: %v", err)
	}
	if _, err := os.Stat(bobMarker); err == nil {
		t.Error("bob's command ran")
	}
}

// hermes gateway status checks the WeCom app (credentials, agent id,
// trusted IP) and the AI bot's long connection, without their secrets in
// what it prints.
func TestGatewayWeComStatus(t *testing.T) {
	wc := wecomtest.New(wecomtest.Options{})
	t.Cleanup(wc.Close)
	bot := wecomtest.NewBot(wecomtest.BotOptions{})
	t.Cleanup(bot.Close)
	h := newHome(t)
	h.write(".env", fmt.Sprintf("WECOM_SECRET=%s\nWECOM_AES_KEY=%s\nWECOM_BOT_SECRET=%s\n", wc.Secret, wc.EncodingAESKey, bot.Secret))
	h.write("config.yaml", "gateway:\n"+wecomAppConfig(wc, fmt.Sprintf("    bot: {bot_id: %s, secret: \"${WECOM_BOT_SECRET}\", ws_url: %q}\n", bot.BotID, bot.URL)))
	r := h.hermes("gateway", "status")
	if r.code != 0 {
		t.Fatalf("exit %d: %s%s", r.code, r.stdout, r.stderr)
	}
	for _, want := range []string{"wecom", `app "hermes"`, "callback on /wecom", "wecombot", "AI bot " + bot.BotID} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("status lacks %q:\n%s", want, r.stdout)
		}
	}
	wc.DenyIP(true)
	r = h.hermes("gateway", "status")
	if r.code == 0 || !strings.Contains(r.stdout, "60020") {
		t.Errorf("an untrusted IP: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	for _, secret := range []string{wc.Secret, wc.EncodingAESKey, bot.Secret, "tok-"} {
		if strings.Contains(r.stdout+r.stderr, secret) {
			t.Errorf("a secret is in the status:\n%s%s", r.stdout, r.stderr)
		}
	}
}
