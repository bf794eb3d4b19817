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

	"github.com/hermes-go/hermes/internal/gateway/feishu/feishutest"
	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/llm/llmtest"
)

// feishuServe starts hermes serve with Feishu pointed at fs (posting its
// events to serve's listener) and the model at srv, allowing Alice; it
// stops when the test ends. Its log must not hold a secret of the app.
func feishuServe(t *testing.T, h *home, fs *feishutest.Server, srv *llmtest.Server, extra string) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	h.write(".env", fmt.Sprintf("FEISHU_APP_SECRET=%s\nFEISHU_VERIFICATION_TOKEN=%s\nFEISHU_ENCRYPT_KEY=%s\n", fs.AppSecret, fs.VerificationToken, fs.EncryptKey))
	h.write("config.yaml", fmt.Sprintf(`model: {base_url: "%s/v1", default: test-model, api_mode: chat_completions, api_key: sk-test-123456}
memory: {long_term: false}
gateway:
  feishu:
    app_id: %s
    app_secret: ${FEISHU_APP_SECRET}
    verification_token: ${FEISHU_VERIFICATION_TOKEN}
    encrypt_key: ${FEISHU_ENCRYPT_KEY}
    base_url: "%s"
    path: /hooks/feishu
    allow: [ou_alice]
%s  webhook: {listen: %q}
`, srv.URL(), fs.AppID, fs.URL, extra, addr))
	_, logs := startServe(t, h, fs.AppSecret, fs.VerificationToken, fs.EncryptKey, "t-g1044")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if extra != "" { // the long connection
		if err := fs.Wait(ctx, fs.Connected); err != nil {
			t.Fatalf("hermes serve never opened the long connection\n%s", logs.String())
		}
		return
	}
	fs.SetEventURL("http://" + addr + "/hooks/feishu")
	// The console saves the URL once it answers the challenge.
	for fs.Verify() != nil {
		select {
		case <-ctx.Done():
			t.Fatalf("hermes serve never answered Feishu's url_verification: %v\n%s", fs.Verify(), logs.String())
		case <-time.After(50 * time.Millisecond): // serve is starting: poll its port
		}
	}
}

// waitCard waits until a card the bot sent to chat shows want, and
// returns it.
func waitCard(t *testing.T, fs *feishutest.Server, chat, want string) feishutest.Message {
	t.Helper()
	return waitSent(t, fs.Wait, func() []feishutest.Message { return fs.Sent(chat) },
		func(m feishutest.Message) string { return m.Text }, chat, want)
}

// Through the real binary: Feishu's challenge is answered; a message in
// gets a card out; an event posted again (its answer lost, or redelivered
// later) is answered once; rate limits hold the reply without losing any
// of it; a reply over the 30 KB of a card arrives whole in several cards;
// a forged post is refused before it reaches the model.
func TestGatewayFeishu(t *testing.T) {
	h := newHome(t)
	fs := feishutest.New(feishutest.Options{})
	t.Cleanup(fs.Close) // after serve has stopped: cleanups run last first
	srv := llmtest.New(t)
	var long strings.Builder
	for i := range 40 {
		fmt.Fprintf(&long, "Paragraph %d: %s\n\n", i, strings.Repeat("事件 <&> ", 90))
	}
	srv.Handle(func(r llmtest.Request) llmtest.Reply {
		if strings.Contains(r.LastUserText(), "long") {
			return llmtest.Reply{Text: long.String()}
		}
		return llmtest.Reply{Text: "**echo**: " + r.LastUserText()}
	})
	feishuServe(t, h, fs, srv, "")
	const chat = "oc_ou_alice"

	fs.LoseAcks(1) // the first answer is lost: Feishu posts the event again
	id, _ := fs.Message(feishutest.Incoming{Text: "hello from Feishu"})
	waitCard(t, fs, chat, "**echo**: hello from Feishu")
	fs.Redeliver(id)

	fs.Throttle(chat, 2)
	fs.AppRateLimit(chat, 1, 1)
	fs.Message(feishutest.Incoming{Text: "while limited"})
	waitCard(t, fs, chat, "**echo**: while limited")
	if n := fs.RateLimited(chat); n < 3 {
		t.Errorf("%d calls were rate limited, want the 3 asked for", n)
	}

	fs.Message(feishutest.Incoming{Text: "something long"})
	waitCard(t, fs, chat, "Paragraph 39:")
	var shown strings.Builder
	cards := 0
	for _, m := range fs.Sent(chat) {
		if strings.Contains(m.Text, "Paragraph ") {
			shown.WriteString(m.Text + "\n\n")
			cards++
		}
	}
	if cards < 2 || strings.Join(strings.Fields(shown.String()), " ") != strings.Join(strings.Fields(long.String()), " ") {
		t.Errorf("the long reply came in %d cards and is not whole", cards)
	}

	// A post signed with a guessed key.
	plain := []byte(`{"schema":"2.0","header":{"event_id":"ev_forged","event_type":"im.message.receive_v1","token":"x"},"event":{}}`)
	body, hdr := fs.Seal(plain)
	hdr.Set("X-Lark-Signature", feishutest.Sign(hdr.Get("X-Lark-Request-Timestamp"), hdr.Get("X-Lark-Request-Nonce"), "guess", body))
	if status, _ := fs.Post(body, hdr); status != http.StatusUnauthorized {
		t.Errorf("a forged post got %d, want 401", status)
	}

	// Every message was answered once; the model saw each once.
	echoes := 0
	for _, m := range fs.Sent(chat) {
		if strings.Contains(m.Text, "hello from Feishu") {
			echoes++
		}
	}
	if echoes != 1 {
		t.Errorf("the redelivered message was answered %d times", echoes)
	}
	if st := fs.Statuses(id); len(st) < 3 {
		t.Errorf("the first event was posted %d times (%v), want 3", len(st), st)
	}
	var asked []string
	for _, r := range srv.Requests() {
		asked = append(asked, r.LastUserText())
	}
	if len(asked) != 3 {
		t.Errorf("the model was asked %q, want each message once", asked)
	}
}

// A dangerous command asks the chat with a card; a press by someone who
// may not approve is refused in its toast, the owner's Deny refuses the
// command, the card says so, and the command never runs.
func TestGatewayFeishuApprovalCard(t *testing.T) {
	h := newHome(t)
	fs := feishutest.New(feishutest.Options{})
	t.Cleanup(fs.Close)
	srv := llmtest.New(t)
	marker := filepath.Join(h.dir, "deleted")
	args, _ := json.Marshal(map[string]string{"command": "rm -rf " + filepath.Join(h.dir, "nothing") + " && touch " + marker})
	srv.Enqueue(llmtest.Reply{ToolCalls: []llm.ToolCall{{Name: "terminal", Arguments: string(args)}}}, llmtest.Reply{Text: "I did not delete it."})
	feishuServe(t, h, fs, srv, "")
	const chat = "oc_ou_alice"

	fs.Message(feishutest.Incoming{Text: "clean up"})
	ask := waitCard(t, fs, chat, "needs your approval")
	var deny string
	for _, row := range ask.Buttons {
		for _, b := range row {
			if b.Text == "Deny" {
				deny = b.Data
			}
		}
	}
	if deny == "" {
		t.Fatalf("the card has no Deny button: %+v", ask)
	}
	mallory := feishutest.User{OpenID: "ou_mallory", Name: "Mallory"}
	res, err := fs.Press(ask.ID, mallory, strings.TrimSuffix(deny, ":d")+":o")
	if err != nil || res.Status != 200 || res.ToastType != "error" || !strings.Contains(res.Toast, "not allowed") {
		t.Errorf("Mallory's press was answered %+v, %v", res, err)
	}
	res, err = fs.Press(ask.ID, feishutest.Alice(), deny)
	if err != nil || res.Toast != "Done." {
		t.Errorf("Alice's press was answered %+v, %v", res, err)
	}
	waitCard(t, fs, chat, "Denied by")
	waitCard(t, fs, chat, "I did not delete it.")
	if _, err := os.Stat(marker); err == nil {
		t.Error("the denied command ran")
	}
	for _, m := range fs.Sent(chat) {
		if m.ID == ask.ID && len(m.Buttons) != 0 {
			t.Errorf("the answered card still has its buttons: %+v", m.Buttons)
		}
	}
}

// Through the real binary over the long connection: a message comes down
// the WebSocket and is answered; the connection drops, hermes opens it
// again, and the next message is answered; one sent again is answered
// once; a stranger is answered once paired.
func TestGatewayFeishuLongConnection(t *testing.T) {
	h := newHome(t)
	fs := feishutest.New(feishutest.Options{})
	t.Cleanup(fs.Close)
	srv := llmtest.New(t)
	srv.Handle(func(r llmtest.Request) llmtest.Reply { return llmtest.Reply{Text: "socket: " + r.LastUserText()} })
	feishuServe(t, h, fs, srv, "    long_connection: true\n")
	const chat = "oc_ou_alice"

	id, _ := fs.Message(feishutest.Incoming{Text: "first"})
	waitCard(t, fs, chat, "socket: first")
	fs.Redeliver(id)

	fs.Disconnect()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := fs.Wait(ctx, func() bool { c, _ := fs.Connects(); return c >= 2 && fs.Connected() }); err != nil {
		t.Fatal("hermes serve did not open the long connection again")
	}
	fs.Message(feishutest.Incoming{Text: "after the drop"})
	waitCard(t, fs, chat, "socket: after the drop")
	// A stranger gets a pairing code and, once it is approved, answers.
	bob := feishutest.User{OpenID: "ou_bob", Name: "Bob"}
	fs.Message(feishutest.Incoming{From: bob, Text: "let me in"})
	msg := waitCard(t, fs, "oc_ou_bob", "hermes pairing approve feishu ")
	code := strings.Fields(msg.Text[strings.Index(msg.Text, "approve feishu ")+len("approve feishu "):])[0]
	code = strings.Trim(code, "`")
	if r := h.hermes("pairing", "approve", "feishu", code); r.code != 0 {
		t.Fatalf("approve %q: exit %d %s", code, r.code, r.stderr)
	}
	fs.Message(feishutest.Incoming{From: bob, Text: "thanks"})
	waitCard(t, fs, "oc_ou_bob", "socket: thanks")
	if n := len(srv.Requests()); n != 3 {
		t.Errorf("the model was asked %d times, want 3: the first of each message, not the stranger's", n)
	}
	if _, pings := fs.Connects(); pings < 2 {
		t.Errorf("%d pings, want one a connection at least", pings)
	}
}
