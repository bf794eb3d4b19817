package main

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/gateway/matrix/matrixtest"
	"github.com/hermes-go/hermes/internal/llm/llmtest"
)

// matrixRig is a dendrite with a bot account and Alice, the bot's owner,
// and a fault proxy in front of it that hermes talks through.
type matrixRig struct {
	hs         *matrixtest.Homeserver
	proxy      *matrixtest.Proxy
	bot, alice *matrixtest.Client
}

func newMatrixRig(t *testing.T) *matrixRig {
	t.Helper()
	hs := matrixtest.Start(t)
	r := &matrixRig{hs: hs, proxy: hs.Proxy(t), bot: hs.Register(t, "hermes"), alice: hs.Register(t, "alice")}
	return r
}

// serve starts hermes serve with Matrix on, through the proxy, with the
// bot's access token, allowing Alice and also; extra is more of the
// gateway section.
func (r *matrixRig) serve(t *testing.T, h *home, srv *llmtest.Server, extra string, also ...*matrixtest.Client) (stop func()) {
	t.Helper()
	allow := fmt.Sprintf("%q", r.alice.UserID)
	for _, c := range also {
		allow += fmt.Sprintf(", %q", c.UserID)
	}
	h.write(".env", "MATRIX_ACCESS_TOKEN="+r.bot.Token+"\n")
	h.write("config.yaml", fmt.Sprintf(`model: {base_url: "%s/v1", default: test-model, api_mode: chat_completions, api_key: sk-test-123456}
memory: {long_term: false}
gateway:
  matrix:
    homeserver: "%s"
    user_id: "%s"
    access_token: ${MATRIX_ACCESS_TOKEN}
    allow: [%s]
%s`, srv.URL(), r.proxy.URL, r.bot.UserID, allow, extra))
	return r.start(t, h)
}

// start runs hermes serve on the config in h, in h.cwd (the hermes home
// when empty), until the test ends or stop is called; it fails the test
// if the bot's token or password reached the log.
func (r *matrixRig) start(t *testing.T, h *home) (stop func()) {
	t.Helper()
	cmd := exec.Command(hermesBin, "serve")
	cmd.Env, cmd.Dir = h.env, h.dir
	if h.cwd != "" {
		cmd.Dir = h.cwd
	}
	var logs syncBuffer
	cmd.Stdout, cmd.Stderr = io.Discard, &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	stop = sync.OnceFunc(func() {
		cmd.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			t.Errorf("hermes serve did not stop on SIGINT\n%s", logs.String())
		}
		if t.Failed() {
			t.Logf("serve's log:\n%s", logs.String())
		}
		if strings.Contains(logs.String(), r.bot.Token) || strings.Contains(logs.String(), r.bot.Password) {
			t.Errorf("the bot's access token or password is in serve's log")
		}
	})
	t.Cleanup(stop)
	return stop
}

// shown is what the room shows of the bot's messages: each message with
// its last edit applied, oldest first, edits left out.
func shown(evs []matrixtest.Event) []string {
	var order []string
	text := map[string]string{}
	for _, e := range evs {
		if rel, target, _ := e.Relation(); rel == "m.replace" {
			if nc, ok := e.Content["m.new_content"].(map[string]any); ok {
				text[target], _ = nc["body"].(string)
			}
			continue
		}
		order = append(order, e.EventID)
		text[e.EventID] = e.Body()
	}
	out := make([]string, len(order))
	for i, id := range order {
		out[i] = text[id]
	}
	return out
}

// showsText waits until one of the bot's messages in room, edits
// applied, holds want, and returns them all.
func (r *matrixRig) showsText(t *testing.T, room, want string) []matrixtest.Event {
	t.Helper()
	return r.alice.WaitFor(room, r.bot.UserID, 30*time.Second, "a message holding "+want, func(evs []matrixtest.Event) bool {
		return slices.ContainsFunc(shown(evs), func(s string) bool { return strings.Contains(s, want) })
	})
}

// waitJoined waits until the bot has joined room.
func (r *matrixRig) waitJoined(t *testing.T, room string) {
	t.Helper()
	if !r.alice.Await(30*time.Second, func() bool { return slices.Contains(r.alice.Members(room), r.bot.UserID) }) {
		t.Fatalf("the bot did not join %s", room)
	}
}
