package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/hermes-go/hermes/bench/internal/proc"
	"github.com/hermes-go/hermes/internal/llm/llmtest"
)

// apiKey is the key serve's API takes; the model's key is another.
const apiKey = "hermes-bench-key-0123456789"

// tokenRE finds the token that names a request in a prompt and a reply.
var tokenRE = regexp.MustCompile(`req-[0-9]+-[0-9]+`)

// model is llmtest answering as a model with a fixed time to first
// token, recording per request token how long it took.
type model struct {
	srv   *llmtest.Server
	think time.Duration

	mu    sync.Mutex
	spent map[string]time.Duration // by token: the model's time to first token
	aux   int                      // requests that carried no token
}

func startModel(think time.Duration) *model {
	m := &model{srv: llmtest.NewServer(), think: think, spent: map[string]time.Duration{}}
	m.srv.Handle(m.reply)
	return m
}

// reply answers one request: it thinks, then streams a reply that
// starts with the request's token. Its time runs from when llmtest has
// read and decoded the request to when it starts writing the answer.
func (m *model) reply(r llmtest.Request) llmtest.Reply {
	start := time.Now()
	tok := tokenRE.FindString(r.LastUserText())
	time.Sleep(m.think)
	spent := time.Since(start)
	m.mu.Lock()
	defer m.mu.Unlock()
	// A request without a token, or a second one with a token already
	// answered (a background review quoting the conversation), is not
	// the turn's own.
	if _, seen := m.spent[tok]; tok == "" || seen {
		m.aux++
		return llmtest.Reply{Text: "Noted."}
	}
	m.spent[tok] = spent
	return llmtest.Reply{Text: tok + ": " + strings.Repeat("a short answer, streamed in pieces. ", 4), ChunkSize: 16}
}

// of returns the model's time to first token for the request tok, and
// whether the model saw it.
func (m *model) of(tok string) (time.Duration, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	d, ok := m.spent[tok]
	return d, ok
}

func (m *model) auxRequests() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.aux
}

// serve is one running hermes serve with the API enabled.
type serve struct {
	cmd    *exec.Cmd
	home   string
	url    string // the API's root, http://127.0.0.1:port
	exited chan struct{}
}

// serveOptions say how to start serve.
type serveOptions struct {
	bin, dir string
	modelURL string
	api      bool // enable the API
	maxRuns  int  // api.max_concurrent_runs
	env      []string
	log      io.Writer // serve's stderr; nil discards it
}

// startServe starts hermes serve in a fresh home whose model is at
// modelURL, with nothing configured but the API (and with the API off
// when o.api is false), and waits until the API listens.
func startServe(o serveOptions) (*serve, error) {
	home, err := os.MkdirTemp(o.dir, "home-")
	if err != nil {
		return nil, err
	}
	cfg := fmt.Sprintf(`model: {base_url: "%s/v1", default: bench-model, api_mode: chat_completions, api_key: sk-bench-123456}
memory: {long_term: false}
api: {enabled: %t, listen: "127.0.0.1:0", keys: ["%s"], max_concurrent_runs: %d}
`, o.modelURL, o.api, apiKey, max(o.maxRuns, 1))
	if err := os.WriteFile(filepath.Join(home, "config.yaml"), []byte(cfg), 0o600); err != nil {
		os.RemoveAll(home)
		return nil, err
	}
	s := &serve{home: home, exited: make(chan struct{})}
	s.cmd = exec.Command(o.bin, "serve")
	s.cmd.Dir = home
	s.cmd.Env = append(append(os.Environ(), "HERMES_HOME="+home), o.env...)
	s.cmd.Stderr = o.log
	if o.log == nil {
		s.cmd.Stderr = io.Discard
	}
	// serve says on stdout where the API listens, or that it started
	// without one.
	ready := make(chan string, 1)
	s.cmd.Stdout = &lineWatch{line: func(line string) {
		u, ok := strings.CutPrefix(line, "api: listening on ")
		if ok || (!o.api && strings.HasPrefix(line, "no jobs")) {
			select {
			case ready <- u:
			default:
			}
		}
	}}
	if err := s.cmd.Start(); err != nil {
		os.RemoveAll(home)
		return nil, err
	}
	go func() { s.cmd.Wait(); close(s.exited) }()
	select {
	case s.url = <-ready:
		return s, nil
	case <-s.exited:
		err = fmt.Errorf("hermes serve exited before it was ready: %v", s.cmd.ProcessState)
	case <-time.After(30 * time.Second):
		err = fmt.Errorf("hermes serve was not ready after 30 s")
	}
	s.close()
	return nil, err
}

// lineWatch is a writer that hands each whole line to line.
type lineWatch struct {
	buf  []byte
	line func(string)
}

func (w *lineWatch) Write(p []byte) (int, error) {
	w.buf = append(w.buf, p...)
	for {
		i := bytes.IndexByte(w.buf, '\n')
		if i < 0 {
			return len(p), nil
		}
		w.line(string(w.buf[:i]))
		w.buf = w.buf[i+1:]
	}
}

func (s *serve) memory() (proc.Memory, error) { return proc.ReadMemory(s.cmd.Process.Pid) }

func (s *serve) cpu() (time.Duration, error) { return proc.CPU(s.cmd.Process.Pid) }

// close stops serve with SIGINT, as a person would (a kill after ten
// seconds), and removes its home.
func (s *serve) close() {
	s.cmd.Process.Signal(os.Interrupt)
	select {
	case <-s.exited:
	case <-time.After(10 * time.Second):
		s.cmd.Process.Kill()
		<-s.exited
	}
	os.RemoveAll(s.home)
}
