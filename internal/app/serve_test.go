package app

import (
	"bufio"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/clock"
	"github.com/hermes-go/hermes/internal/config"
	"github.com/hermes-go/hermes/internal/cron"
	"github.com/hermes-go/hermes/internal/llm/llmtest"
)

// t0 is when the serve tests start: Monday 7 December 2026, 08:00 UTC.
var t0 = time.Date(2026, 12, 7, 8, 0, 0, 0, time.UTC)

// server is hermes serve in-process: an App on a home of its own config,
// its scheduler running on a fake clock with the engine as the runner,
// and the runs it finishes on a channel.
type server struct {
	t    *testing.T
	app  *App
	clk  *clock.Fake
	logs *logWatch
	done chan cron.RunResult
	stop context.CancelFunc
	ran  chan error
	// recorded is the log line of the last run the scheduler recorded.
	recorded int
}

// writeConfig writes config.yaml of home as editors save: a new file
// renamed over the old one, which the reload sees as one change.
func writeConfig(t *testing.T, home, text string) {
	t.Helper()
	tmp := filepath.Join(home, ".config.yaml.swp")
	if err := os.WriteFile(tmp, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, filepath.Join(home, "config.yaml")); err != nil {
		t.Fatal(err)
	}
}

// loadOptions load home's configuration and nothing of the environment.
func loadOptions(home string) config.LoadOptions {
	return config.LoadOptions{Home: home, Env: func(string) (string, bool) { return "", false }}
}

// serve opens home as hermes serve does, on clk, logging to logs (a new
// log when nil), and starts its scheduler; Close stops it.
func serve(t *testing.T, home string, clk *clock.Fake, holder string, logs *logWatch) *server {
	t.Helper()
	l, err := config.Load(loadOptions(home))
	if err != nil {
		t.Fatal(err)
	}
	if logs == nil {
		logs = newLogWatch()
	}
	a, err := Open(context.Background(), Options{Config: l, Logger: logs.logger(), Clock: clk, Holder: holder})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.SyncJobs(context.Background()); err != nil {
		t.Fatal(err)
	}
	s := &server{t: t, app: a, clk: clk, logs: logs, done: make(chan cron.RunResult, 16), ran: make(chan error, 1), recorded: -1}
	runner := cron.RunnerFunc(func(ctx context.Context, job cron.Job, at time.Time) cron.RunResult {
		res := a.Engine.RunJob(ctx, job, at)
		s.done <- res
		return res
	})
	ctx, stop := context.WithCancel(context.Background())
	s.stop = stop
	go func() { s.ran <- a.RunScheduler(ctx, runner, loadOptions(home)) }()
	t.Cleanup(a.Close)
	t.Cleanup(s.Close)
	return s
}

// Close stops the scheduler as SIGTERM does and waits for it to return.
func (s *server) Close() {
	if s.ran == nil {
		return
	}
	s.stop()
	if err := <-s.ran; err != nil {
		s.t.Errorf("RunScheduler: %v", err)
	}
	s.ran = nil
}

// recordedLine is what the scheduler logs once a job's runs are recorded
// and it may fire again.
const recordedLine = "cron: runs recorded"

// next waits until the scheduler has recorded the next run, so that the
// job is no longer running when the test moves the clock on, and returns
// the run's result.
func (s *server) next() cron.RunResult {
	s.t.Helper()
	s.recorded = s.logs.waitAfter(s.t, s.recorded, recordedLine)
	return <-s.done
}

// history is a job's runs, oldest first.
func (s *server) history(job string) []cron.Run {
	s.t.Helper()
	runs, err := s.app.Jobs.History(context.Background(), job, 100)
	if err != nil {
		s.t.Fatal(err)
	}
	for i, j := 0, len(runs)-1; i < j; i, j = i+1, j-1 {
		runs[i], runs[j] = runs[j], runs[i]
	}
	return runs
}

// delivered is what the local target holds for job.
func delivered(home, job string) string {
	data, _ := os.ReadFile(filepath.Join(home, "deliveries", job+".md"))
	return string(data)
}

// logWatch is a log handler that lets a test wait for a message.
type logWatch struct {
	mu   sync.Mutex
	msgs []string
	seen chan struct{}
}

func newLogWatch() *logWatch { return &logWatch{seen: make(chan struct{}, 1)} }

// logger writes text lines into w, debug lines too.
func (w *logWatch) logger() *slog.Logger {
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// Write keeps one log line and tells waitFor.
func (w *logWatch) Write(p []byte) (int, error) {
	w.mu.Lock()
	w.msgs = append(w.msgs, strings.TrimSpace(string(p)))
	w.mu.Unlock()
	select {
	case w.seen <- struct{}{}:
	default:
	}
	return len(p), nil
}

// waitFor waits until a line holding text has been logged, and returns
// its index.
func (w *logWatch) waitFor(t *testing.T, text string) int {
	t.Helper()
	return w.waitAfter(t, -1, text)
}

// waitAfter waits until a line after line i holds text, and returns its
// index. The time limit only ends a test that would otherwise hang.
func (w *logWatch) waitAfter(t *testing.T, i int, text string) int {
	t.Helper()
	limit := time.After(20 * time.Second)
	for {
		w.mu.Lock()
		for j := i + 1; j < len(w.msgs); j++ {
			if strings.Contains(w.msgs[j], text) {
				w.mu.Unlock()
				return j
			}
		}
		w.mu.Unlock()
		select {
		case <-w.seen:
		case <-limit:
			t.Fatalf("nothing logged %q; the log:\n%s", text, w.String())
		}
	}
}

func (w *logWatch) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return strings.Join(w.msgs, "\n")
}

// TestSchedulerFiresOnItsClock: jobs fire when the clock reaches their
// time, each fire once, and their results are delivered and recorded.
func TestSchedulerFiresOnItsClock(t *testing.T) {
	home := t.TempDir()
	writeConfig(t, home, "schedules:\n  tick: {cron: \"@every 2s\", no_agent: true, script: echo tick, deliver: local}\n")
	s := serve(t, home, clock.NewFake(t0), "", nil)
	for i := range 3 {
		s.clk.BlockUntil(1)
		s.clk.Advance(2 * time.Second)
		if res := s.next(); res.Err != nil || res.Output != "tick" {
			t.Fatalf("fire %d: %+v", i, res)
		}
	}
	s.Close()
	runs := s.history("tick")
	if len(runs) != 3 {
		t.Fatalf("%d runs recorded, want 3: %+v", len(runs), runs)
	}
	for i, r := range runs {
		if want := t0.Add(time.Duration(2*(i+1)) * time.Second); r.Status != cron.StatusOK || !r.ScheduledFor.Equal(want) {
			t.Errorf("run %d = %s for %s, want ok for %s", i, r.Status, r.ScheduledFor, want)
		}
	}
	// Each delivery is one entry under a heading.
	if n := strings.Count("\n"+delivered(home, "tick"), "\n## "); n != 3 {
		t.Errorf("%d deliveries, want 3:\n%s", n, delivered(home, "tick"))
	}
}

// TestTwoServesFireOnce: two hermes serve on one home (two apps, each
// with its own database handle, as two processes have) fire each of a
// job's fires exactly once between them, through a lease renewal.
func TestTwoServesFireOnce(t *testing.T) {
	home := t.TempDir()
	writeConfig(t, home, "schedules:\n  tick: {cron: \"@every 2s\", no_agent: true, script: echo tick, deliver: local}\n")
	clk := clock.NewFake(t0)
	logs := newLogWatch()
	a := serve(t, home, clk, "serve-a", logs)
	b := serve(t, home, clk, "serve-b", logs)
	recorded := -1
	for range 8 { // 16 s: past the lease's renewal at 10 s
		clk.BlockUntil(2)
		clk.Advance(2 * time.Second)
		recorded = logs.waitAfter(t, recorded, recordedLine)
		select {
		case <-a.done:
		case <-b.done:
		}
	}
	clk.BlockUntil(2)
	a.Close()
	b.Close()
	select {
	case res := <-a.done:
		t.Errorf("a fire ran twice: %+v", res)
	case res := <-b.done:
		t.Errorf("a fire ran twice: %+v", res)
	default:
	}
	l, err := config.Load(loadOptions(home))
	if err != nil {
		t.Fatal(err)
	}
	h, err := OpenStores(context.Background(), Options{Config: l})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	runs, err := h.Jobs.History(context.Background(), "tick", 100)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[time.Time]bool{}
	for _, r := range runs {
		if seen[r.ScheduledFor] || r.Status != cron.StatusOK {
			t.Errorf("run for %s: %s (seen before: %v)", r.ScheduledFor, r.Status, seen[r.ScheduledFor])
		}
		seen[r.ScheduledFor] = true
	}
	if len(runs) != 8 {
		t.Errorf("%d runs, want 8", len(runs))
	}
}

// fifo makes a named pipe in dir: a job's script and the test meet on it,
// so the test knows where the script is without polling.
func fifo(t *testing.T, dir, name string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Skipf("no named pipes here: %v", err)
	}
	return p
}

// TestShutdownGrace: on SIGTERM a running job gets
// scheduler.shutdown_timeout to finish; one that needs longer is
// cancelled, recorded as interrupted, and not delivered.
func TestShutdownGrace(t *testing.T) {
	for _, tc := range []struct {
		name, status, output string
		finish               bool
	}{
		{"finishes within the grace", cron.StatusOK, "finished", true},
		{"cancelled after the grace", cron.StatusError, "interrupted by shutdown", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			home := t.TempDir()
			started, proceed := fifo(t, home, "started"), fifo(t, home, "proceed")
			writeConfig(t, home, `scheduler: {shutdown_timeout: 15s}
schedules:
  slow:
    cron: "@every 2s"
    no_agent: true
    script: echo up > `+started+`; read go < `+proceed+`; echo finished
    deliver: local
`)
			s := serve(t, home, clock.NewFake(t0), "", nil)
			s.clk.BlockUntil(1)
			s.clk.Advance(2 * time.Second)
			f, err := os.Open(started) // blocks until the script has started
			if err != nil {
				t.Fatal(err)
			}
			bufio.NewReader(f).ReadString('\n')
			f.Close()
			s.stop() // SIGTERM
			if tc.finish {
				w, err := os.OpenFile(proceed, os.O_WRONLY, 0)
				if err != nil {
					t.Fatal(err)
				}
				w.WriteString("go\n")
				w.Close()
			} else {
				s.clk.BlockUntil(2) // the grace and the lease renewal
				s.clk.Advance(15 * time.Second)
			}
			s.next()
			s.Close()
			runs := s.history("slow")
			if len(runs) != 1 || runs[0].Status != tc.status || !strings.Contains(runs[0].Output+runs[0].Error, tc.output) {
				t.Fatalf("runs = %+v, want one %s run saying %q", runs, tc.status, tc.output)
			}
			if got := strings.Contains(delivered(home, "slow"), "finished"); got != tc.finish {
				t.Errorf("delivered = %v for a %s run:\n%s", got, tc.status, delivered(home, "slow"))
			}
		})
	}
}

// TestSchedulesReload: a job added to config.yaml while serve runs starts
// firing without a restart; a config.yaml that breaks is logged and the
// jobs stay as they were.
func TestSchedulesReload(t *testing.T) {
	home := t.TempDir()
	writeConfig(t, home, "schedules:\n  weekly: {cron: 0 9 * * MON, no_agent: true, script: echo weekly}\n")
	s := serve(t, home, clock.NewFake(t0), "", nil)
	asleep := s.logs.waitFor(t, "cron: sleeping")
	writeConfig(t, home, `schedules:
  weekly: {cron: 0 9 * * MON, no_agent: true, script: echo weekly}
  tick: {cron: "@every 2s", no_agent: true, script: echo tick, deliver: local}
`)
	s.clk.BlockUntil(2) // the editor's write seen, the reload waiting out the debounce
	s.clk.Advance(reloadDebounce)
	// The reload wakes the scheduler, which goes back to sleep until the
	// new job's first fire.
	s.logs.waitFor(t, `schedules reloaded from config.yaml" added=[tick]`)
	s.logs.waitAfter(t, asleep, "cron: sleeping")
	s.clk.Advance(2 * time.Second)
	if res := s.next(); res.Output != "tick" {
		t.Fatalf("the added job's run: %+v", res)
	}
	writeConfig(t, home, "schedules:\n  tick: {cron: \"@every 2s\", no_agent: true, script: [oops\n")
	s.clk.BlockUntil(2)
	s.clk.Advance(reloadDebounce)
	s.logs.waitFor(t, "does not load; the jobs stay as they were")
	s.clk.BlockUntil(1)
	s.clk.Advance(2 * time.Second)
	if res := s.next(); res.Output != "tick" {
		t.Fatalf("tick after the broken edit: %+v", res)
	}
	if jobs, _ := s.app.Jobs.List(context.Background()); len(jobs) != 2 {
		t.Errorf("jobs after the broken edit: %+v, want weekly and tick", jobs)
	}
}

// TestJobInactivityFromConfig: scheduler.inactivity_timeout stops a run
// whose model never answers; the run is recorded failed and the failure
// delivered rather than kept silent.
func TestJobInactivityFromConfig(t *testing.T) {
	srv := llmtest.New(t)
	arrived := make(chan struct{}, 1)
	srv.Handle(func(llmtest.Request) llmtest.Reply {
		arrived <- struct{}{}
		return llmtest.Reply{Text: "too late", Delay: time.Hour}
	})
	home := t.TempDir()
	writeConfig(t, home, `model: {base_url: "`+srv.URL()+`/v1", default: test-model, api_mode: chat_completions, api_key: sk-test-123456}
agent: {api_max_retries: 0}
memory: {long_term: false}
scheduler: {inactivity_timeout: 1s}
schedules:
  stuck: {cron: "@hourly", prompt: summarize the night's alerts, deliver: local}
`)
	l, err := config.Load(loadOptions(home))
	if err != nil {
		t.Fatal(err)
	}
	clk := clock.NewFake(t0)
	a, err := Open(context.Background(), Options{Config: l, Clock: clk})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if err := a.SyncJobs(context.Background()); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		res, err := a.Engine.RunJobNow(context.Background(), "stuck")
		if err == nil {
			err = res.Err
		}
		done <- err
	}()
	<-arrived
	clk.BlockUntil(1) // the watchdog
	clk.Advance(time.Second)
	if err := <-done; err == nil || !strings.Contains(err.Error(), "no progress for 1s") {
		t.Fatalf("the stuck run ended with %v", err)
	}
	runs, err := a.Jobs.History(context.Background(), "stuck", 5)
	if err != nil || len(runs) != 1 || runs[0].Status != cron.StatusError || !strings.Contains(runs[0].Error, "no progress") {
		t.Errorf("history = %+v, %v", runs, err)
	}
	if got := delivered(home, "stuck"); !strings.Contains(got, `"stuck" failed`) || !strings.Contains(got, "no progress for 1s") {
		t.Errorf("the failure was not delivered:\n%s", got)
	}
}
