package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/gateway/slack"
	"github.com/hermes-go/hermes/internal/gateway/slack/slacktest"
	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/llm/llmtest"
)

// slackServe starts hermes serve with Slack pointed at sl (Socket Mode,
// or the Events API when extra sets signing_secret instead) and the
// model at srv. It returns the webhooks' base URL once serve prints it
// (nil channel use only for the Events API) and stops serve when the
// test ends. Serve's log must never hold a token or the signing secret.
func slackServe(t *testing.T, h *home, sl *slacktest.Server, srv *llmtest.Server, slackKeys string) <-chan string {
	t.Helper()
	if slackKeys == "" {
		slackKeys = fmt.Sprintf("app_token: %q", sl.AppToken)
	}
	h.write("config.yaml", fmt.Sprintf(`model: {base_url: "%s/v1", default: test-model, api_mode: chat_completions, api_key: sk-test-123456}
memory: {long_term: false}
gateway:
  webhook: {listen: "127.0.0.1:0"}
  slack:
    bot_token: %q
    base_url: %q
    allow: [%s]
    %s
`, srv.URL(), sl.BotToken, sl.URL, slacktest.Alice, slackKeys))
	cmd := exec.Command(hermesBin, "serve")
	cmd.Env, cmd.Dir = h.env, h.dir
	var logs syncBuffer
	stdout, _ := cmd.StdoutPipe()
	cmd.Stderr = &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	hooks := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if u, ok := strings.CutPrefix(sc.Text(), "gateway: webhooks on "); ok {
				hooks <- u
			}
		}
	}()
	t.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			t.Errorf("hermes serve did not stop on SIGINT")
		}
		if t.Failed() {
			t.Logf("serve's log:\n%s", logs.String())
		}
		for _, secret := range []string{sl.BotToken, sl.AppToken, sl.SigningSecret} {
			if strings.Contains(logs.String(), secret) {
				t.Errorf("a Slack secret is in serve's log")
			}
		}
	})
	return hooks
}

// slackWait waits until a bot message in channel holds want, and returns
// it.
func slackWait(t *testing.T, sl *slacktest.Server, channel, want string) slacktest.Message {
	t.Helper()
	return waitSent(t, sl.Wait, func() []slacktest.Message { return sl.Sent(channel) },
		func(m slacktest.Message) string { return m.Text }, channel, want)
}

// Through the real binary over Socket Mode: a DM is answered, escaped so
// the model cannot ping the channel; a stranger gets a pairing code and
// does not reach the model; a mention in a channel is answered
// in its thread, once although Slack sends two events for it; a
// redelivered event, the bot's own post and an edit get no answer; after
// a dropped socket and after a refresh the next messages are answered.
func TestGatewaySlackSocketMode(t *testing.T) {
	h := newHome(t)
	sl := slacktest.New(slacktest.Options{})
	t.Cleanup(sl.Close) // after serve has stopped: cleanups run last first
	srv := llmtest.New(t)
	srv.Handle(func(r llmtest.Request) llmtest.Reply {
		return llmtest.Reply{Text: "<!channel> **you** said: " + r.LastUserText()}
	})
	slackServe(t, h, sl, srv, "")

	sl.Message(slacktest.Incoming{Text: "hi hermes & co"})
	got := slackWait(t, sl, slacktest.AliceDM, "said: hi hermes &amp; co")
	if !strings.HasPrefix(got.Text, "&lt;!channel&gt; *you*") || got.ThreadTS != "" {
		t.Errorf("the DM reply is %q in thread %q; want the ping escaped, bold as mrkdwn, no thread", got.Text, got.ThreadTS)
	}

	sl.Message(slacktest.Incoming{User: "UBOB", Channel: "DBOB", Text: "let me in"})
	slackWait(t, sl, "DBOB", "hermes pairing approve slack ")
	parent := sl.Message(slacktest.Incoming{Channel: slacktest.General, Text: "<@UHERMES> status?", Mention: true})
	reply := slackWait(t, sl, slacktest.General, "status?")
	if reply.ThreadTS != parent {
		t.Errorf("the channel reply went to thread %q, want the mention's ts %q", reply.ThreadTS, parent)
	}
	sl.Message(slacktest.Incoming{Channel: slacktest.General, ThreadTS: parent, Text: "and in the thread?"})
	if m := slackWait(t, sl, slacktest.General, "said: and in the thread?"); m.ThreadTS != parent {
		t.Errorf("the reply in the thread went to thread %q, want %q", m.ThreadTS, parent)
	}
	sl.Message(slacktest.Incoming{Channel: slacktest.General, Text: "not for the bot"})
	sl.Message(slacktest.Incoming{Channel: slacktest.General, User: sl.BotUser, BotID: sl.BotID, Text: "<@UHERMES> my own post"})
	sl.Message(slacktest.Incoming{Text: "edited", Subtype: "message_changed"})
	sl.Message(slacktest.Incoming{Text: "one more"})
	sl.Redeliver()
	slackWait(t, sl, slacktest.AliceDM, "said: one more")

	sl.Drop()
	sl.Message(slacktest.Incoming{Text: "while the socket was down"})
	slackWait(t, sl, slacktest.AliceDM, "said: while the socket was down")
	sl.Disconnect("refresh_requested")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := sl.Wait(ctx, func() bool { opened, open := sl.Connections(); return opened >= 3 && open == 1 }); err != nil {
		opened, open := sl.Connections()
		t.Fatalf("after the refresh %d connections opened, %d open", opened, open)
	}
	sl.Message(slacktest.Incoming{Text: "after the refresh"})
	slackWait(t, sl, slacktest.AliceDM, "said: after the refresh")
	if err := sl.Wait(ctx, func() bool { return len(sl.Pending()) == 0 }); err != nil {
		t.Errorf("envelopes left unacknowledged: %v", sl.Pending())
	}

	var asked []string
	for _, r := range srv.Requests() {
		asked = append(asked, r.LastUserText())
	}
	want := []string{"hi hermes & co", "<@UHERMES> status?", "and in the thread?", "one more", "while the socket was down", "after the refresh"}
	if strings.Join(asked, "|") != strings.Join(want, "|") {
		t.Errorf("the model was asked %q, want %q: each message once, nothing else", asked, want)
	}
}

// A dangerous command asks the channel thread with Block Kit buttons: a
// press by someone not allowed is refused, in a note only they see, and
// runs nothing; the allowed user's
// "Allow once" runs it, and the request is edited to say so.
func TestGatewaySlackApprovalButtons(t *testing.T) {
	h := newHome(t)
	sl := slacktest.New(slacktest.Options{})
	t.Cleanup(sl.Close)
	srv := llmtest.New(t)
	marker := filepath.Join(h.dir, "cleaned")
	args, _ := json.Marshal(map[string]string{"command": "rm -rf " + filepath.Join(h.dir, "nothing") + " && touch " + marker})
	srv.Enqueue(llmtest.Reply{ToolCalls: []llm.ToolCall{{Name: "terminal", Arguments: string(args)}}}, llmtest.Reply{Text: "Cleaned up."})
	slackServe(t, h, sl, srv, "")

	parent := sl.Message(slacktest.Incoming{Channel: slacktest.General, Text: "<@UHERMES> clean up", Mention: true})
	ask := slackWait(t, sl, slacktest.General, "needs your approval")
	if ask.ThreadTS != parent {
		t.Errorf("the request went to thread %q, want the mention's %q", ask.ThreadTS, parent)
	}
	allow := ask.Button("Allow once")
	if allow == "" || ask.Button("Deny") == "" {
		t.Fatalf("the request has no Allow once and Deny buttons: %+v", ask.Blocks)
	}
	if err := sl.Press(slacktest.General, ask.TS, "UMALLORY", allow); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := sl.Wait(ctx, func() bool { return len(sl.Ephemerals()) == 1 }); err != nil {
		t.Fatalf("the refused press got no answer: %v", err)
	}
	if e := sl.Ephemerals()[0]; e.User != "UMALLORY" || e.ThreadTS != parent || !strings.Contains(e.Text, "not allowed") {
		t.Errorf("the refused press was told %+v", e)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the command ran on a press by someone not allowed")
	}
	if err := sl.Press(slacktest.General, ask.TS, slacktest.Alice, allow); err != nil {
		t.Fatal(err)
	}
	slackWait(t, sl, slacktest.General, "Allowed (once) by")
	slackWait(t, sl, slacktest.General, "Cleaned up.")
	if _, err := os.Stat(marker); err != nil {
		t.Error("the allowed command did not run")
	}
	for _, m := range sl.Sent(slacktest.General) {
		if m.TS == ask.TS && len(m.Blocks) != 0 {
			t.Errorf("the decided request still has its buttons: %+v", m.Blocks)
		}
	}
}

// A reply longer than Slack takes in one message arrives whole, split
// into messages of at most 4,000 bytes of mrkdwn (escapes counted),
// against a server that allows one message a second per channel; a 429
// on the way is waited out, not lost.
func TestGatewaySlackRateLimitedLongReply(t *testing.T) {
	h := newHome(t)
	sl := slacktest.New(slacktest.Options{Pace: time.Second})
	t.Cleanup(sl.Close)
	srv := llmtest.New(t)
	var paras []string
	for i := range 30 {
		paras = append(paras, fmt.Sprintf("Part %d: R&D <ok> ", i)+strings.Repeat("é", 150))
	}
	long := strings.Join(paras, "\n\n")
	srv.Enqueue(llmtest.Reply{Text: long})
	slackServe(t, h, sl, srv, "")
	sl.RateLimit(slacktest.AliceDM, 2*time.Second)

	sl.Message(slacktest.Incoming{Text: "write a lot"})
	slackWait(t, sl, slacktest.AliceDM, "Part 29:")
	var got strings.Builder
	for _, m := range sl.Sent(slacktest.AliceDM) {
		if len(m.Text) > 4000 {
			t.Errorf("a message has %d bytes", len(m.Text))
		}
		got.WriteString(m.Text)
	}
	unescaped := strings.NewReplacer("&lt;", "<", "&gt;", ">", "&amp;", "&").Replace(got.String())
	if strings.Join(strings.Fields(unescaped), "") != strings.Join(strings.Fields(long), "") {
		t.Errorf("the reply did not arrive whole and in order:\n%s", got.String())
	}
	if n := len(sl.Sent(slacktest.AliceDM)); n < 3 {
		t.Errorf("%d messages; the reply needs at least 3 of 4,000 bytes", n)
	}
	var limited time.Time
	for _, c := range sl.Calls("") {
		if c.Channel != slacktest.AliceDM {
			continue
		}
		if c.Error == "ratelimited" && limited.IsZero() {
			limited = c.Time
		} else if !limited.IsZero() && c.Error == "" {
			if wait := c.Time.Sub(limited); wait < 2*time.Second {
				t.Errorf("the next call came %s after the 429, before its Retry-After of 2s", wait)
			}
			break
		}
	}
	if limited.IsZero() {
		t.Error("the rate limit was never hit")
	}
}

// Through the real binary over the Events API: the url_verification
// challenge is answered; a signed event is answered; a retried callback
// is answered once; forged posts are refused with 401 before anything
// reads them and never reach the model.
func TestGatewaySlackEventsAPI(t *testing.T) {
	h := newHome(t)
	sl := slacktest.New(slacktest.Options{})
	t.Cleanup(sl.Close)
	srv := llmtest.New(t)
	srv.Handle(func(r llmtest.Request) llmtest.Reply { return llmtest.Reply{Text: "posted: " + r.LastUserText()} })
	hooks := slackServe(t, h, sl, srv, fmt.Sprintf("signing_secret: %q", sl.SigningSecret))
	var base string
	select {
	case base = <-hooks:
	case <-time.After(20 * time.Second):
		t.Fatal("serve did not listen for webhooks")
	}
	sl.SetEventsURL(base + "/slack/events")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if ok, err := sl.Verify(ctx); !ok || err != nil {
		t.Fatalf("url_verification: %v %v", ok, err)
	}
	// The first post may come before serve takes events (503, which
	// Slack retries): post until one is taken.
	for {
		sl.Message(slacktest.Incoming{Text: "hello by http"})
		if p := sl.Posts(); p[len(p)-1].Status == http.StatusOK {
			break
		}
		if ctx.Err() != nil {
			t.Fatalf("no post was taken: %+v", sl.Posts())
		}
	}
	slackWait(t, sl, slacktest.AliceDM, "posted: hello by http")
	sl.Redeliver()
	if p := sl.Posts(); p[len(p)-1].Status != http.StatusOK || p[len(p)-1].Retry != 1 {
		t.Errorf("the retried callback got %+v", p[len(p)-1])
	}

	forged := `{"type":"event_callback","event_id":"Ev999","event":{"type":"message","channel_type":"im","channel":"DALICE","user":"UALICE","ts":"1.5","text":"forged"}}`
	post := func(hdr http.Header) int {
		req, _ := http.NewRequest(http.MethodPost, base+"/slack/events", strings.NewReader(forged))
		for k, v := range hdr {
			req.Header[k] = v
		}
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode
	}
	stale := http.Header{}
	old := fmt.Sprint(time.Now().Add(-6 * time.Minute).Unix())
	stale.Set("X-Slack-Request-Timestamp", old)
	stale.Set("X-Slack-Signature", slack.Signature(sl.SigningSecret, old, []byte(forged)))
	other := sl.Sign([]byte(forged + "x"))
	for name, code := range map[string]int{"unsigned": post(nil), "replayed": post(stale), "signature of another body": post(other)} {
		if code != http.StatusUnauthorized {
			t.Errorf("%s: %d, want 401", name, code)
		}
	}
	sl.Message(slacktest.Incoming{Text: "and again"})
	slackWait(t, sl, slacktest.AliceDM, "posted: and again")
	var asked []string
	for _, r := range srv.Requests() {
		asked = append(asked, r.LastUserText())
	}
	if strings.Join(asked, "|") != "hello by http|and again" {
		t.Errorf("the model was asked %q: each message once, nothing forged", asked)
	}
}

// hermes gateway status checks Slack as serve would connect: who the bot
// is and that Socket Mode will reach it, or which token Slack refuses
// (exit 1), never showing a token.
func TestGatewaySlackStatus(t *testing.T) {
	sl := slacktest.New(slacktest.Options{})
	t.Cleanup(sl.Close)
	h := newHome(t)
	config := func(appToken string) string {
		return fmt.Sprintf("gateway:\n  slack: {bot_token: %q, app_token: %q, base_url: %q}\n", sl.BotToken, appToken, sl.URL)
	}
	h.write("config.yaml", config(sl.AppToken))
	r := h.hermes("gateway", "status")
	if r.code != 0 || !strings.Contains(r.stdout, "slack") || !strings.Contains(r.stdout, "@hermes (id UHERMES) in Test Team; Socket Mode") {
		t.Errorf("exit %d:\n%s%s", r.code, r.stdout, r.stderr)
	}
	wrong := "xapp-1-A0001-9999-wrongtoken"
	h.write("config.yaml", config(wrong))
	r = h.hermes("gateway", "status", "--json")
	if r.code == 0 || !strings.Contains(r.stdout, `"ok":false`) || !strings.Contains(r.stdout, "refused app_token") {
		t.Errorf("a wrong app token: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	for _, secret := range []string{sl.BotToken, wrong} {
		if strings.Contains(r.stdout+r.stderr, secret) {
			t.Errorf("a token is in the output:\n%s%s", r.stdout, r.stderr)
		}
	}
}

// Through the real binary: a file shared in a DM is downloaded with the
// bot token, kept in the session's folder, and named to the model.
func TestGatewaySlackFileIn(t *testing.T) {
	h := newHome(t)
	sl := slacktest.New(slacktest.Options{})
	t.Cleanup(sl.Close)
	srv := llmtest.New(t)
	srv.Enqueue(llmtest.Reply{Text: "I read the notes."})
	slackServe(t, h, sl, srv, "")

	notes := []byte("buy milk\ncall Bob\n")
	sl.Message(slacktest.Incoming{Text: "read this", Files: []slacktest.File{{Name: "notes.txt", MIME: "text/plain", Data: notes}}})
	slackWait(t, sl, slacktest.AliceDM, "I read the notes.")
	var kept string
	for p, b := range sessionFiles(t, h) {
		if filepath.Base(p) == "notes.txt" && bytes.Equal(b, notes) {
			kept = p
		}
	}
	if kept == "" {
		t.Fatalf("the file is not kept in a session's folder: %v", sessionFiles(t, h))
	}
	if got := srv.Requests()[0].LastUserText(); !strings.Contains(got, "read this") || !strings.Contains(got, kept+" (18 bytes, text/plain)") {
		t.Errorf("the model was told %q; want the text and the saved path, size and type", got)
	}
}
