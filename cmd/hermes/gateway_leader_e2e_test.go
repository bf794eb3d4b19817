package main

import (
	"bufio"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/gateway/telegram/telegramtest"
	"github.com/hermes-go/hermes/internal/llm/llmtest"
	"github.com/hermes-go/hermes/internal/pgtest"
)

// pollWatch sees every replica's getUpdates calls to the one bot, each
// replica reaching the Bot API through a front of its own.
type pollWatch struct {
	mu       sync.Mutex
	inflight int
	most     int
	first    map[string]time.Time // each replica's first poll
}

// front is the Bot API as replica reaches it.
func (w *pollWatch) front(t *testing.T, replica string, api http.Handler) string {
	srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/getUpdates") {
			w.mu.Lock()
			w.inflight++
			w.most = max(w.most, w.inflight)
			if _, ok := w.first[replica]; !ok {
				w.first[replica] = time.Now()
			}
			w.mu.Unlock()
			defer func() {
				w.mu.Lock()
				w.inflight--
				w.mu.Unlock()
			}()
		}
		api.ServeHTTP(rw, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

func (w *pollWatch) firstPoll(replica string) (time.Time, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	at, ok := w.first[replica]
	return at, ok
}

// startReplica starts hermes serve in h and returns it once its gateway
// runs; the test kills it at the end whatever happens.
func startReplica(t *testing.T, h *home) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(hermesBin, "serve")
	cmd.Env, cmd.Dir = h.env, h.dir
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var logs syncBuffer
	cmd.Stderr = &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		if t.Failed() {
			t.Logf("serve (pid %d) said:\n%s", cmd.Process.Pid, logs.String())
		}
	})
	ready, ended := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(ended)
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if strings.HasPrefix(sc.Text(), "gateway: listening on ") {
				close(ready)
				break
			}
		}
		for sc.Scan() {
		}
	}()
	select {
	case <-ready:
	case <-ended:
		t.Fatalf("hermes serve ended before starting its gateway:\n%s", logs.String())
	case <-time.After(30 * time.Second):
		t.Fatalf("hermes serve did not start its gateway:\n%s", logs.String())
	}
	return cmd
}

// Two hermes serve replicas on one PostgreSQL database serve one
// Telegram bot that polls: only one polls at a time, the one hermes
// gateway status names; when it is killed with SIGKILL the other polls
// within about an election interval (2 s), and every message sent to the
// bot, before the kill and after, is answered exactly once.
func TestGatewayTelegramReplicasFailover(t *testing.T) {
	dsn := pgtest.NewDatabase(t)
	tg := telegramtest.New(telegramtest.Options{})
	t.Cleanup(tg.Close)
	srv := llmtest.New(t)
	srv.Handle(func(r llmtest.Request) llmtest.Reply { return llmtest.Reply{Text: "echo: " + r.LastUserText()} })
	const users = 10
	var allow []string
	for i := range users {
		allow = append(allow, fmt.Sprintf("%q", fmt.Sprint(101+i)))
	}
	watch := &pollWatch{first: map[string]time.Time{}}
	replica := func(name string) *home {
		h := newHome(t)
		h.write(".env", "DATABASE_URL="+dsn+"\n")
		h.write("config.yaml", fmt.Sprintf(`model: {base_url: "%s/v1", default: test-model, api_mode: chat_completions, api_key: sk-test-123456}
memory: {long_term: false}
storage: {driver: postgres, dsn: "${DATABASE_URL}"}
gateway:
  telegram:
    token: "%s"
    base_url: "%s"
    drafts: false
    allow: [%s]
`, srv.URL(), tg.Token, watch.front(t, name, tg.Handler()), strings.Join(allow, ", ")))
		return h
	}
	say := func(from, to int) {
		for i := from; i < to; i++ {
			tg.UserMessage(telegramtest.Incoming{From: telegramtest.User{ID: int64(101 + i), FirstName: "u"}, Text: fmt.Sprint("message ", i)})
		}
	}
	answered := func(from, to int) {
		t.Helper()
		for i := from; i < to; i++ {
			waitText(t, tg, int64(101+i), fmt.Sprint("echo: message ", i))
		}
	}

	ha, hb := replica("a"), replica("b")
	a := startReplica(t, ha)
	say(0, 1)
	answered(0, 1) // a, alone, leads
	b := startReplica(t, hb)
	say(1, 5)
	answered(1, 5)
	if _, ok := watch.firstPoll("b"); ok {
		t.Fatal("replica b polled while a led")
	}
	leads(t, hb, "telegram", a.Process.Pid)

	if err := a.Process.Signal(os.Kill); err != nil {
		t.Fatal(err)
	}
	killed := time.Now()
	say(5, users)
	answered(5, users)
	polled, ok := watch.firstPoll("b")
	if !ok {
		t.Fatal("replica b answered without polling")
	}
	failover := polled.Sub(killed)
	t.Logf("failover: %s from SIGKILL of the leader to the other replica's first getUpdates (election interval 2s)", failover)
	if failover > 10*time.Second {
		t.Errorf("failover took %s; want about one election interval (2 s)", failover)
	}
	leads(t, hb, "telegram", b.Process.Pid)

	for i := range users {
		sent := tg.Sent(int64(101 + i))
		if len(sent) != 1 {
			var texts []string
			for _, m := range sent {
				texts = append(texts, m.Text)
			}
			t.Errorf("chat %d got %q; want one answer", 101+i, texts)
		}
	}
	watch.mu.Lock()
	defer watch.mu.Unlock()
	if watch.most != 1 {
		t.Errorf("%d getUpdates polls were in flight at once; want one", watch.most)
	}
}
