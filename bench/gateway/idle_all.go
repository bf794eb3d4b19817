package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/hermes-go/hermes/internal/llm/llmtest"
)

// fleetServe is hermes serve pointed at a fleet of platforms.
type fleetServe struct {
	fleet *fleet
	llm   *llmtest.Server
	cmd   *exec.Cmd
	home  string
	// hooks receives the base URL of serve's webhook listener, once.
	hooks chan string
	// exited is closed when serve has exited.
	exited chan struct{}
}

// startFleetServe starts the fakes of names, then hermes serve in a
// fresh home with one config.yaml naming them all, every user allowed.
func startFleetServe(o loadOptions, names []string) (*fleetServe, error) {
	home, err := os.MkdirTemp(o.dir, "home-")
	if err != nil {
		return nil, err
	}
	f, err := startFleet(names, o.dir, o.log)
	if err != nil {
		os.RemoveAll(home)
		return nil, err
	}
	s := &fleetServe{fleet: f, home: home, llm: llmtest.NewServer(),
		hooks: make(chan string, 1), exited: make(chan struct{})}
	s.llm.Handle(func(llmtest.Request) llmtest.Reply { return llmtest.Reply{Text: "Noted."} })
	gw, env := f.gatewayYAML()
	cfg := fmt.Sprintf("model: {base_url: \"%s/v1\", default: bench-model, api_mode: chat_completions, api_key: sk-bench-123456}\nmemory: {long_term: false}\n%s", s.llm.URL(), gw)
	if err := os.WriteFile(filepath.Join(home, "config.yaml"), []byte(cfg), 0o600); err != nil {
		s.close()
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(home, ".env"), []byte(env), 0o600); err != nil {
		s.close()
		return nil, err
	}
	s.cmd = exec.Command(o.bin, "serve")
	s.cmd.Dir = home
	s.cmd.Env = append(append(os.Environ(), "HERMES_HOME="+home), o.env...)
	stdout, err := s.cmd.StdoutPipe()
	if err != nil {
		s.close()
		return nil, err
	}
	s.cmd.Stderr = o.log
	if o.log == nil {
		s.cmd.Stderr = io.Discard
	}
	if err := s.cmd.Start(); err != nil {
		s.close()
		return nil, err
	}
	go s.readHooks(stdout)
	go func() { s.cmd.Wait(); close(s.exited) }()
	return s, nil
}

// readHooks finds the line where serve says where its webhooks listen.
func (s *fleetServe) readHooks(stdout io.Reader) {
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		if u, ok := strings.CutPrefix(sc.Text(), "gateway: webhooks on "); ok {
			select {
			case s.hooks <- u:
			default:
			}
		}
	}
}

// connected waits until every platform's fake has seen serve connect, in
// turn, or serve exits, or ctx ends.
func (s *fleetServe) connected(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-s.exited:
			cancel()
		case <-ctx.Done():
		}
	}()
	var hooks string
	for _, m := range s.fleet.members {
		if !m.webhooks || hooks != "" {
			continue
		}
		select {
		case hooks = <-s.hooks:
		case <-ctx.Done():
			return s.failed("listen for webhooks", ctx.Err())
		}
	}
	for _, m := range s.fleet.members {
		if err := m.connected(ctx, hooks); err != nil {
			return s.failed("connect to "+m.name, err)
		}
	}
	return nil
}

func (s *fleetServe) failed(what string, err error) error {
	select {
	case <-s.exited:
		return fmt.Errorf("hermes serve exited before it could %s: %v", what, s.cmd.ProcessState)
	default:
	}
	return fmt.Errorf("hermes serve did not %s: %w", what, err)
}

// memory reads serve's resident set and its anonymous part, in MB.
func (s *fleetServe) memory() (rss, anon float64, err error) {
	return readMemory(s.cmd.Process.Pid)
}

// close stops serve, then the servers, and removes the home.
func (s *fleetServe) close() {
	stopServe(s.cmd, s.exited)
	s.llm.Close()
	s.fleet.close()
	os.RemoveAll(s.home)
}

// idleFleetOnce measures serve with names connected after settle, and
// says which platforms were skipped.
func idleFleetOnce(o loadOptions, names []string, settle time.Duration) (rss, anon float64, skipped []string, err error) {
	s, err := startFleetServe(o, names)
	if err != nil {
		return 0, 0, nil, err
	}
	defer s.close()
	if len(s.fleet.members) == 0 {
		return 0, 0, s.fleet.skipped, errors.New("no platform could start")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := s.connected(ctx); err != nil {
		return 0, 0, s.fleet.skipped, err
	}
	time.Sleep(settle)
	rss, anon, err = s.memory()
	return rss, anon, s.fleet.skipped, err
}

// runIdleFleet measures serve idle with names connected and with
// Telegram alone, the median of reps runs each, as a table.
func runIdleFleet(w io.Writer, o loadOptions, names []string, settle time.Duration, reps int) error {
	var rss, anon, tgRSS, tgAnon []float64
	var skipped, connected []string
	for i := range reps {
		a, b, sk, err := idleFleetOnce(o, names, settle)
		if err != nil {
			return fmt.Errorf("run %d with %s: %w", i+1, strings.Join(names, ","), err)
		}
		rss, anon, skipped = append(rss, a), append(anon, b), sk
		c, d, err := idleOnce(o, settle)
		if err != nil {
			return fmt.Errorf("run %d with Telegram alone: %w", i+1, err)
		}
		tgRSS, tgAnon = append(tgRSS, c), append(tgAnon, d)
	}
	for _, n := range names {
		if !skippedName(skipped, n) {
			connected = append(connected, n)
		}
	}
	fmt.Fprintf(w, "hermes serve idle, %s after connecting, median of %d\n", settle, reps)
	fmt.Fprintf(w, "%-44s %10s %10s\n", "", "VmRSS MB", "anon MB")
	fmt.Fprintf(w, "%-44s %10.1f %10.1f\n", fmt.Sprintf("%d adapters connected", len(connected)), median(rss), median(anon))
	fmt.Fprintf(w, "%-44s %10.1f %10.1f\n", "Telegram alone", median(tgRSS), median(tgAnon))
	fmt.Fprintf(w, "connected: %s\n", strings.Join(connected, ", "))
	for _, s := range skipped {
		fmt.Fprintf(w, "skipped: %s\n", s)
	}
	fmt.Fprintf(w, "each run, all: VmRSS %s; anon %s\n", floats(rss), floats(anon))
	fmt.Fprintf(w, "each run, Telegram: VmRSS %s; anon %s\n", floats(tgRSS), floats(tgAnon))
	return nil
}

func skippedName(skipped []string, name string) bool {
	for _, s := range skipped {
		if strings.HasPrefix(s, name+": ") {
			return true
		}
	}
	return false
}
