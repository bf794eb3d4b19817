package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/gateway/matrix"
	"github.com/hermes-go/hermes/internal/gateway/matrix/matrixtest"
	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/llm/llmtest"
)

// Through the real binary against a real dendrite: Alice invites the bot
// to a room and it joins, while a stranger's invite is left pending; her
// message is answered, streamed by m.replace edits of the first message
// that end in the whole answer; a message in an encrypted room gets one notice
// that hermes cannot read it.
func TestGatewayMatrixInviteMessageReplyEdit(t *testing.T) {
	r := newMatrixRig(t)
	mallory := r.hs.Register(t, "mallory")
	h := newHome(t)
	srv := llmtest.New(t)
	answer := "Hello Alice, this answer is streamed to the room in pieces and edited in place until it is whole."
	srv.Enqueue(llmtest.Reply{Text: answer, ChunkSize: 4})
	r.serve(t, h, srv, "")

	strange := mallory.CreateRoom(false, r.bot.UserID)
	room := r.alice.CreateRoom(false, r.bot.UserID)
	r.waitJoined(t, room)
	r.alice.Say(room, "hi hermes")
	evs := r.showsText(t, room, answer)
	first := evs[0]
	if len(evs) < 2 {
		t.Errorf("the answer was not streamed by edits: %d events", len(evs))
	}
	for _, e := range evs[1:] {
		if rel, target, _ := e.Relation(); rel != "m.replace" || target != first.EventID {
			t.Errorf("a later event is not an edit of the answer: %v", e.Content)
		}
	}
	if slices.Contains(mallory.Members(strange), r.bot.UserID) {
		t.Error("the bot joined a stranger's room")
	}

	secret := r.alice.CreateRoom(true, r.bot.UserID)
	r.waitJoined(t, secret)
	r.alice.SendContent(secret, "m.room.encrypted", map[string]any{"algorithm": "m.megolm.v1.aes-sha2", "ciphertext": "AAAA", "sender_key": "k", "session_id": "s", "device_id": "D"})
	r.alice.SendContent(secret, "m.room.encrypted", map[string]any{"algorithm": "m.megolm.v1.aes-sha2", "ciphertext": "BBBB", "sender_key": "k", "session_id": "s", "device_id": "D"})
	r.showsText(t, secret, "end-to-end encrypted")
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("%d model calls; want 1", n)
	}
}

// A dangerous command asks the room to answer with /approve or /deny;
// Bob, allowed to talk but not an approver, is refused in a reply to his
// /approve, and Alice's /approve lets it run.
func TestGatewayMatrixApprovalByText(t *testing.T) {
	r := newMatrixRig(t)
	bob := r.hs.Register(t, "bob")
	h := newHome(t)
	srv := llmtest.New(t)
	marker := filepath.Join(h.dir, "approved")
	args, _ := json.Marshal(map[string]string{"command": "rm -rf " + filepath.Join(h.dir, "nothing") + " && touch " + marker})
	srv.Enqueue(llmtest.Reply{ToolCalls: []llm.ToolCall{{Name: "terminal", Arguments: string(args)}}}, llmtest.Reply{Text: "Cleaned up."})
	r.serve(t, h, srv, fmt.Sprintf("    approvers: [%q]\n  group_sessions_per_user: false\n", r.alice.UserID), bob)

	room := r.alice.CreateRoom(false, r.bot.UserID, bob.UserID)
	bob.Join(room)
	r.waitJoined(t, room)
	r.alice.Say(room, "hermes, clean up please")
	r.showsText(t, room, "needs your approval")
	r.showsText(t, room, "/approve")
	q := bob.Say(room, "/approve")
	for _, e := range r.showsText(t, room, "not allowed to answer approval requests") {
		if strings.Contains(e.Body(), "not allowed") {
			if _, _, to := e.Relation(); to != q {
				t.Errorf("the refusal is not a reply to Bob's /approve %s: %v", q, e.Content)
			}
		}
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the command ran on a non-approver's /approve")
	}
	r.alice.Say(room, "/approve")
	r.showsText(t, room, "Cleaned up.")
	if _, err := os.Stat(marker); err != nil {
		t.Errorf("the approved command did not run: %v", err)
	}
}

// Faults a homeserver shows, through the real binary: sends refused with
// 429 M_LIMIT_EXCEEDED are retried after retry_after_ms and the answer
// arrives once, whole; a sync batch delivered twice is answered once; a
// sync whose answer was lost with its connection is made again from the
// same position and its message answered once; and after a restart,
// what came while hermes was away is answered and nothing before it
// again.
func TestGatewayMatrixFaults(t *testing.T) {
	r := newMatrixRig(t)
	h := newHome(t)
	srv := llmtest.New(t)
	srv.Handle(func(req llmtest.Request) llmtest.Reply {
		text := req.LastUserText()
		return llmtest.Reply{Text: "answer: " + text[strings.LastIndex(text, "\n")+1:]}
	})
	stop := r.serve(t, h, srv, "")
	room := r.alice.CreateRoom(false, r.bot.UserID)
	r.waitJoined(t, room)

	r.proxy.RateLimitSends(2, 1500*time.Millisecond)
	r.alice.Say(room, "limited one")
	r.showsText(t, room, "answer: limited one")
	if n := r.proxy.Limited(); n != 2 {
		t.Errorf("%d sends were rate limited; want 2", n)
	}

	r.proxy.RedeliverWith("twice two")
	r.alice.Say(room, "twice two")
	r.showsText(t, room, "answer: twice two")
	r.proxy.DropSyncWith("dropped three")
	r.alice.Say(room, "dropped three")
	r.showsText(t, room, "answer: dropped three")
	if r.proxy.Redelivered() != 1 || r.proxy.Dropped() != 1 {
		t.Errorf("redelivered %d, dropped %d; want one each", r.proxy.Redelivered(), r.proxy.Dropped())
	}
	stop()

	r.alice.Say(room, "while away four")
	r.serve(t, h, srv, "")
	evs := r.showsText(t, room, "answer: while away four")
	counts := map[string]int{}
	for _, s := range shown(evs) {
		counts[s]++
	}
	for _, want := range []string{"answer: limited one", "answer: twice two", "answer: dropped three", "answer: while away four"} {
		if counts[want] != 1 {
			t.Errorf("%q was shown %d times; want once (all: %q)", want, counts[want], shown(evs))
		}
	}
	if n := len(srv.Requests()); n != 4 {
		t.Errorf("%d model calls; want 4, one per message", n)
	}
}

// A reply longer than one Matrix event holds arrives whole, in several
// messages, each within the limit in JSON bytes (a longer one dendrite
// would refuse).
func TestGatewayMatrixLongReply(t *testing.T) {
	r := newMatrixRig(t)
	h := newHome(t)
	srv := llmtest.New(t)
	var b strings.Builder
	for i := 0; b.Len() < 2*matrix.MaxText+5000; i++ {
		fmt.Fprintf(&b, "Paragraph %d says \"ünïcode\" and a tab\there.\n\n", i)
	}
	long := strings.TrimSpace(b.String()) + "\n\nTHE END"
	srv.Enqueue(llmtest.Reply{Text: long, ChunkSize: 20000})
	r.serve(t, h, srv, "")
	room := r.alice.CreateRoom(false, r.bot.UserID)
	r.waitJoined(t, room)
	r.alice.Say(room, "write a lot")
	evs := r.showsText(t, room, "THE END")
	parts := shown(evs)
	if len(parts) < 3 {
		t.Fatalf("%d messages; want the reply split in at least 3", len(parts))
	}
	for i, p := range parts {
		if n := matrix.Measure(p); n > matrix.MaxText {
			t.Errorf("message %d measures %d; want at most %d", i, n, matrix.MaxText)
		}
	}
	squash := func(s string) string { return strings.Join(strings.Fields(s), " ") }
	if squash(strings.Join(parts, "\n")) != squash(long) {
		t.Error("the messages put together are not the reply")
	}
}

// The README's steps, through the real binary: hermes config set with the
// token from .env, hermes gateway status naming the bot, a wrong token
// refused (exit 1) without showing it, and hermes serve logging in with
// a password and device_id instead, answering, and reusing that device.
func TestGatewayMatrixSetupAndPasswordLogin(t *testing.T) {
	r := newMatrixRig(t)
	h := newHome(t)
	h.write(".env", "MATRIX_ACCESS_TOKEN="+r.bot.Token+"\n")
	for _, kv := range [][2]string{
		{"gateway.matrix.homeserver", r.hs.URL},
		{"gateway.matrix.user_id", r.bot.UserID},
		{"gateway.matrix.access_token", "${MATRIX_ACCESS_TOKEN}"},
		{"gateway.matrix.allow", fmt.Sprintf("[%q]", r.alice.UserID)},
	} {
		if res := h.hermes("config", "set", kv[0], kv[1]); res.code != 0 {
			t.Fatalf("config set %s: exit %d %s", kv[0], res.code, res.stderr)
		}
	}
	res := h.hermes("gateway", "status")
	if res.code != 0 || !strings.Contains(res.stdout, "matrix") || !strings.Contains(res.stdout, r.bot.UserID) {
		t.Fatalf("status: exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
	if strings.Contains(res.stdout+res.stderr, r.bot.Token) {
		t.Errorf("the token is in the status:\n%s", res.stdout)
	}
	h.write(".env", "MATRIX_ACCESS_TOKEN=syt_wrong_token_0123456789\n")
	res = h.hermes("gateway", "status")
	if res.code == 0 || !strings.Contains(res.stdout, "refused the access token") || strings.Contains(res.stdout+res.stderr, "syt_wrong") {
		t.Errorf("a wrong token: exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}

	srv := llmtest.New(t)
	srv.Handle(func(req llmtest.Request) llmtest.Reply { return llmtest.Reply{Text: "pong: " + req.LastUserText()} })
	h.write(".env", "MATRIX_PASSWORD="+r.bot.Password+"\n")
	h.write("config.yaml", fmt.Sprintf(`model: {base_url: "%s/v1", default: test-model, api_mode: chat_completions, api_key: sk-test-123456}
memory: {long_term: false}
gateway:
  matrix:
    homeserver: "%s"
    user_id: "%s"
    password: ${MATRIX_PASSWORD}
    device_id: HERMESDEV
    allow: ["%s"]
`, srv.URL(), r.hs.URL, r.bot.UserID, r.alice.UserID))
	r.start(t, h)
	room := r.alice.CreateRoom(false, r.bot.UserID)
	r.waitJoined(t, room)
	r.alice.Say(room, "ping")
	r.showsText(t, room, "pong: ping")
	if !slices.Contains(r.bot.Devices(), "HERMESDEV") {
		t.Errorf("devices %q; want the password login on device_id HERMESDEV", r.bot.Devices())
	}
}

// Through the real binary: a file Alice sends with a caption is kept in
// the session's folder and the model is told where; a reply's MEDIA:
// line is uploaded to the room as a file, and the line is not shown.
func TestGatewayMatrixFiles(t *testing.T) {
	r := newMatrixRig(t)
	h := newHome(t)
	h.cwd = t.TempDir() // the project replies attach from, outside $HERMES_HOME
	report := filepath.Join(h.cwd, "report.txt")
	if err := os.WriteFile(report, []byte("the report"), 0o600); err != nil {
		t.Fatal(err)
	}
	srv := llmtest.New(t)
	srv.Enqueue(llmtest.Reply{Text: "I read the notes.\nMEDIA:" + report})
	r.serve(t, h, srv, "")
	room := r.alice.CreateRoom(false, r.bot.UserID)
	r.waitJoined(t, room)
	uri := r.alice.Upload("notes.txt", "text/plain", []byte("buy milk"))
	r.alice.SendContent(room, "m.room.message", map[string]any{"msgtype": "m.file", "body": "read these", "filename": "notes.txt",
		"url": uri, "info": map[string]any{"mimetype": "text/plain", "size": 8}})
	evs := r.alice.WaitFor(room, r.bot.UserID, 30*time.Second, "the report as a file", func(evs []matrixtest.Event) bool {
		return slices.ContainsFunc(evs, func(e matrixtest.Event) bool { return e.Content["msgtype"] == "m.file" })
	})
	for _, e := range evs {
		if e.Content["msgtype"] == "m.file" {
			if got := r.alice.Download(e.Content["url"].(string)); string(got) != "the report" || e.Body() != "report.txt" {
				t.Errorf("the attachment %q reads %q", e.Body(), got)
			}
		}
		if strings.Contains(e.Body(), "MEDIA:") {
			t.Errorf("the MEDIA: line was shown: %q", e.Body())
		}
	}
	saved := sessionFiles(t, h)
	var kept string
	for p, b := range saved {
		if string(b) == "buy milk" {
			kept = p
		}
	}
	if kept == "" {
		t.Fatalf("the file was not kept in the session's folder: %v", saved)
	}
	if last := srv.Requests()[0].LastUserText(); !strings.Contains(last, "read these") || !strings.Contains(last, filepath.Base(kept)) {
		t.Errorf("the model was not told the caption and where the file is: %q", last)
	}
}
