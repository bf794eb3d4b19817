package main

import (
	"context"
	"fmt"
	"io"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/hermes-go/hermes/bench/internal/proc"
	"github.com/hermes-go/hermes/internal/gateway/telegram/telegramtest"
	"github.com/hermes-go/hermes/internal/llm/llmtest"
)

// rig is one hermes serve with its model and its Bot API server, the
// tap between them and the model's record of time spent per message.
type rig struct {
	tg    *telegramtest.Server
	tap   *tap
	front *httptest.Server // the tap, where hermes polls and sends
	llm   *llmtest.Server
	model *modelClock
	cmd   *exec.Cmd
	home  string
	// exited is closed when serve has exited.
	exited chan struct{}
}

// modelClock is the model's side: a fixed think time per request, and
// the time each message's requests took, by token.
type modelClock struct {
	think time.Duration

	mu    sync.Mutex
	spent map[string]time.Duration
	first map[string]time.Time // when the first request arrived
	aux   int                  // requests that carried no token
}

// reply answers one model request: it thinks, then streams a reply that
// starts with the request's token, so the chat's first message names it.
func (m *modelClock) reply(r llmtest.Request) llmtest.Reply {
	start := time.Now()
	tok := token(r.LastUserText())
	time.Sleep(m.think)
	spent := time.Since(start)
	m.mu.Lock()
	defer m.mu.Unlock()
	if tok == "" {
		m.aux++
		return llmtest.Reply{Text: "Noted."}
	}
	m.spent[tok] += spent
	if _, ok := m.first[tok]; !ok {
		m.first[tok] = start
	}
	return llmtest.Reply{Text: replyText(tok), ChunkSize: 16}
}

// replyText is the reply to the message named tok: plain text, so the
// chat shows it as written, about as long as a short real answer, so it
// streams in a send and a few edits.
func replyText(tok string) string {
	return tok + ": " + strings.Repeat("here is what you asked about, in a few words. ", 6) + "That is all."
}

// of returns the time the model spent on a message's requests, and when
// the first of them arrived.
func (m *modelClock) of(tok string) (time.Duration, time.Time) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.spent[tok], m.first[tok]
}

// rigOptions say how to start a rig.
type rigOptions struct {
	bin   string
	dir   string // where the home is made
	think time.Duration
	env   []string
	log   io.Writer // serve's stderr; nil discards it
}

// startRig starts the model, the Bot API server with its tap, and
// hermes serve in a fresh home pointed at them, with every Telegram user
// allowed (pairing is not what is measured).
func startRig(o rigOptions) (*rig, error) {
	home, err := os.MkdirTemp(o.dir, "home-")
	if err != nil {
		return nil, err
	}
	r := &rig{home: home, exited: make(chan struct{}),
		model: &modelClock{think: o.think, spent: map[string]time.Duration{}, first: map[string]time.Time{}}}
	r.llm = llmtest.NewServer()
	r.llm.Handle(r.model.reply)
	r.tg = telegramtest.New(telegramtest.Options{})
	r.tap = newTap(r.tg.Handler())
	r.front = httptest.NewServer(r.tap)
	cfg := fmt.Sprintf(`model: {base_url: "%s/v1", default: bench-model, api_mode: chat_completions, api_key: sk-bench-123456}
memory: {long_term: false}
gateway:
  telegram: {token: "%s", base_url: "%s", allow_all: true}
`, r.llm.URL(), r.tg.Token, r.front.URL)
	if err := os.WriteFile(filepath.Join(home, "config.yaml"), []byte(cfg), 0o600); err != nil {
		r.close()
		return nil, err
	}
	r.cmd = exec.Command(o.bin, "serve")
	r.cmd.Dir = home
	r.cmd.Env = append(append(os.Environ(), "HERMES_HOME="+home), o.env...)
	r.cmd.Stdout, r.cmd.Stderr = io.Discard, o.log
	if o.log == nil {
		r.cmd.Stderr = io.Discard
	}
	if err := r.cmd.Start(); err != nil {
		r.close()
		return nil, err
	}
	go func() { r.cmd.Wait(); close(r.exited) }()
	return r, nil
}

// polling waits until serve polls for updates, or exits, or ctx ends.
func (r *rig) polling(ctx context.Context) error {
	err := r.tg.Wait(ctx, func() bool {
		select {
		case <-r.exited:
			return true
		default:
		}
		return r.tg.CallCount("getUpdates") > 0
	})
	select {
	case <-r.exited:
		return fmt.Errorf("hermes serve exited before it polled: %v", r.cmd.ProcessState)
	default:
	}
	if err != nil {
		return fmt.Errorf("hermes serve did not poll Telegram: %w", err)
	}
	return nil
}

// memory reads serve's resident set and its anonymous part, in MB.
func (r *rig) memory() (rss, anon float64, err error) {
	return readMemory(r.cmd.Process.Pid)
}

// readMemory reads VmRSS and RssAnon of the process pid, in MB.
func readMemory(pid int) (rss, anon float64, err error) {
	m, err := proc.ReadMemory(pid)
	return m.RSS, m.Anon, err
}

// cpu returns the CPU time serve has used, user and system.
func (r *rig) cpu() (time.Duration, error) { return proc.CPU(r.cmd.Process.Pid) }

// dbSize returns the size of state.db and its WAL, in MB.
func (r *rig) dbSize() float64 {
	var n int64
	for _, name := range []string{"state.db", "state.db-wal"} {
		if st, err := os.Stat(filepath.Join(r.home, name)); err == nil {
			n += st.Size()
		}
	}
	return float64(n) / (1 << 20)
}

// close stops serve (with SIGINT, as a person would, then a kill after
// ten seconds) and the servers, and removes the home.
func (r *rig) close() {
	stopServe(r.cmd, r.exited)
	r.front.Close()
	r.tg.Close()
	r.llm.Close()
	os.RemoveAll(r.home)
}

// stopServe stops a started serve with SIGINT, as a person would, then a
// kill after ten seconds, and returns once exited is closed.
func stopServe(cmd *exec.Cmd, exited <-chan struct{}) {
	if cmd == nil || cmd.Process == nil {
		return
	}
	cmd.Process.Signal(os.Interrupt)
	select {
	case <-exited:
	case <-time.After(10 * time.Second):
		cmd.Process.Kill()
		<-exited
	}
}
