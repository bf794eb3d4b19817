package llm_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/clock"
	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/llm/llmtest"
	"github.com/hermes-go/hermes/internal/llm/openai"
)

// These tests drive the retry and fallback wrappers through a real adapter
// against the scripted server, so what is retried is what a vendor really
// sends: a 429 with Retry-After, a 503, a stream that stalls.

// sleeper is a fake clock whose Sleep records the delays a policy asked
// for instead of sleeping.
type sleeper struct {
	*clock.Fake
	mu     sync.Mutex
	delays []time.Duration
}

func newSleeper() *sleeper {
	return &sleeper{Fake: clock.NewFake(time.Date(2026, 12, 2, 9, 0, 0, 0, time.UTC))}
}

func (s *sleeper) Sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	s.delays = append(s.delays, d)
	s.mu.Unlock()
	return ctx.Err()
}

func chatAt(srv *llmtest.Server, name string, t llm.Timeouts) llm.Provider {
	return openai.NewChat(llm.Endpoint{Name: name, BaseURL: srv.URL() + "/v1", APIKey: "k", Model: "m", Timeouts: t})
}

func policy(s *sleeper) llm.RetryPolicy {
	return llm.RetryPolicy{MaxRetries: 3, BaseDelay: 2 * time.Second, MaxDelay: 60 * time.Second,
		Clock: s, Rand: func() float64 { return 0 }}
}

type outcome struct {
	resp    *llm.Response
	err     error
	retries []*llm.RetryInfo
	text    string // text deltas after the last retry event
}

func run(t *testing.T, p llm.Provider, req *llm.Request) outcome {
	t.Helper()
	var o outcome
	var text strings.Builder
	for ev := range p.Stream(t.Context(), req) {
		switch ev.Kind {
		case llm.EventText:
			text.WriteString(ev.Text)
		case llm.EventRetry:
			o.retries = append(o.retries, ev.Retry)
			text.Reset()
		case llm.EventDone:
			o.resp = ev.Response
		case llm.EventError:
			o.resp, o.err = ev.Response, ev.Err
		}
	}
	o.text = text.String()
	return o
}

func hello() *llm.Request { return &llm.Request{Messages: []llm.Message{llm.UserMessage("hi")}} }

func TestRetry(t *testing.T) {
	rateLimited := llmtest.Reply{Status: 429, Error: &llmtest.ErrorReply{Type: "rate_limit_error", Message: "slow down", RetryAfter: 7 * time.Second}}
	server := llmtest.Reply{Status: 500, Error: &llmtest.ErrorReply{Type: "server_error", Message: "boom"}}
	ok := llmtest.Reply{Text: "fine"}
	tests := []struct {
		name       string
		replies    []llmtest.Reply
		wantText   string
		wantKind   llm.ErrorKind
		wantDelays []time.Duration
	}{
		{"429 honours Retry-After", []llmtest.Reply{rateLimited, ok}, "fine", "", []time.Duration{7 * time.Second}},
		{"5xx backs off exponentially then gives up", []llmtest.Reply{server, server, server, server}, "", llm.ErrServer,
			[]time.Duration{time.Second, 2 * time.Second, 4 * time.Second}},
		{"overloaded then success", []llmtest.Reply{{Status: 529, Error: &llmtest.ErrorReply{Type: "overloaded_error", Message: "Overloaded"}}, ok}, "fine", "", []time.Duration{time.Second}},
		{"empty reply is retried", []llmtest.Reply{{}, ok}, "fine", "", []time.Duration{time.Second}},
		{"empty replies to the end are an error", []llmtest.Reply{{}, {}, {}, {}}, "", llm.ErrInvalidResponse,
			[]time.Duration{time.Second, 2 * time.Second, 4 * time.Second}},
		{"in-stream error is retried", []llmtest.Reply{{Text: "par", Error: &llmtest.ErrorReply{Type: "server_error", Message: "oops", InStream: true}}, ok}, "fine", "", []time.Duration{time.Second}},
		{"auth is not retried", []llmtest.Reply{{Status: 401, Error: &llmtest.ErrorReply{Type: "authentication_error", Message: "bad key"}}}, "", llm.ErrAuth, nil},
		{"bad request is not retried", []llmtest.Reply{{Status: 400, Error: &llmtest.ErrorReply{Type: "invalid_request_error", Message: "no"}}}, "", llm.ErrBadRequest, nil},
		{"context overflow goes back to the caller", []llmtest.Reply{{Status: 400, Error: &llmtest.ErrorReply{Type: "invalid_request_error", Code: "context_length_exceeded", Message: "This model's maximum context length is 8192 tokens"}}}, "", llm.ErrContextOverflow, nil},
		{"exhausted quota is not waited for", []llmtest.Reply{{Status: 429, Error: &llmtest.ErrorReply{Type: "insufficient_quota", Code: "insufficient_quota", Message: "quota"}}}, "", llm.ErrRateLimited, nil},
	}
	for _, tt := range tests {
		for _, stream := range []bool{true, false} {
			t.Run(tt.name+map[bool]string{true: "/stream", false: "/json"}[stream], func(t *testing.T) {
				srv := llmtest.New(t)
				srv.Enqueue(tt.replies...)
				s := newSleeper()
				req := hello()
				req.NoStream = !stream
				o := run(t, llm.WithRetry(chatAt(srv, "p", llm.Timeouts{}), policy(s)), req)
				if tt.wantKind != "" {
					if llm.KindOf(o.err) != tt.wantKind {
						t.Fatalf("err = %v, want kind %s", o.err, tt.wantKind)
					}
					if tt.wantKind == llm.ErrInvalidResponse && !strings.Contains(o.err.Error(), "empty reply 4 times in a row") {
						t.Errorf("err = %v, want it to say how many empty replies came", o.err)
					}
				} else if o.err != nil || o.resp.Text() != tt.wantText || o.text != tt.wantText {
					t.Fatalf("got %q (deltas after last retry %q), err %v; want %q", o.resp.Text(), o.text, o.err, tt.wantText)
				}
				if len(s.delays) != len(tt.wantDelays) || (len(tt.wantDelays) > 0 && !equalDurations(s.delays, tt.wantDelays)) {
					t.Errorf("delays = %v, want %v", s.delays, tt.wantDelays)
				}
				if got, want := len(srv.Requests()), len(tt.wantDelays)+1; got != want {
					t.Errorf("server saw %d requests, want %d", got, want)
				}
				if len(o.retries) != len(tt.wantDelays) {
					t.Errorf("%d retry events, want %d", len(o.retries), len(tt.wantDelays))
				}
			})
		}
	}
}

func equalDurations(a, b []time.Duration) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return len(a) == len(b)
}

// TestStalledStreamIsCutAndRetried checks the idle timeout end to end: the
// first stream sends a few events and goes silent; the watchdog cuts it,
// the retry layer voids what was shown and asks again.
func TestStalledStreamIsCutAndRetried(t *testing.T) {
	srv := llmtest.New(t)
	srv.Enqueue(llmtest.Reply{Text: "this answer will never finish", ChunkSize: 4, StallAfter: 3}, llmtest.Reply{Text: "complete answer"})
	s := newSleeper()
	p := llm.WithRetry(chatAt(srv, "p", llm.Timeouts{FirstByte: 10 * time.Second, Idle: 100 * time.Millisecond}), policy(s))
	o := run(t, p, hello())
	if o.err != nil || o.resp.Text() != "complete answer" || o.text != "complete answer" {
		t.Fatalf("got %q / deltas %q, err %v", o.resp.Text(), o.text, o.err)
	}
	if len(o.retries) != 1 || llm.KindOf(o.retries[0].Err) != llm.ErrNetwork || !strings.Contains(o.retries[0].Err.Error(), "idle timeout") {
		t.Fatalf("retries = %+v, want one after an idle timeout", o.retries)
	}
}

func TestCancelAbortsAtOnce(t *testing.T) {
	srv := llmtest.New(t)
	srv.Enqueue(llmtest.Reply{Text: "never ends", StallAfter: 2})
	ctx, cancel := context.WithCancel(t.Context())
	p := llm.WithRetry(chatAt(srv, "p", llm.Timeouts{}), llm.DefaultRetryPolicy)
	done := make(chan error, 1)
	go func() {
		var err error
		for ev := range p.Stream(ctx, hello()) {
			if ev.Kind == llm.EventText {
				cancel() // the user pressed Ctrl-C while text was arriving
			}
			if ev.Kind == llm.EventError {
				err = ev.Err
			}
		}
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v, want context.Canceled", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("stream did not end after cancel")
	}
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("a cancelled call was retried: %d requests", n)
	}
}

func TestFallbackChain(t *testing.T) {
	primary, backup := llmtest.New(t), llmtest.New(t)
	overloaded := llmtest.Reply{Status: 503, Error: &llmtest.ErrorReply{Type: "overloaded_error", Message: "busy"}}
	primary.Enqueue(overloaded, overloaded) // first attempt and its one retry
	backup.Handle(func(r llmtest.Request) llmtest.Reply { return llmtest.Reply{Text: "from backup " + r.Model} })

	s := newSleeper()
	pol := policy(s)
	pol.MaxRetries = 1
	clk := clock.NewFake(time.Date(2026, 12, 2, 9, 0, 0, 0, time.UTC))
	fb := llm.NewFallback([]llm.Route{
		{Provider: llm.WithRetry(chatAt(primary, "primary", llm.Timeouts{}), pol)},
		{Provider: llm.WithRetry(chatAt(backup, "backup", llm.Timeouts{}), pol), Model: "backup-model"},
	}, llm.FallbackOptions{Cooldown: time.Minute, Clock: clk})

	o := run(t, fb, hello())
	if o.err != nil || o.resp.Text() != "from backup backup-model" || o.resp.Provider != "backup" {
		t.Fatalf("got %q from %q, err %v", o.resp.Text(), o.resp.Provider, o.err)
	}
	if len(o.retries) != 2 || o.retries[0].Fallback || !o.retries[1].Fallback || o.retries[1].Provider != "backup" || o.retries[1].Model != "backup-model" {
		t.Errorf("retry events = %+v, want one retry then a fallback to backup/backup-model", o.retries)
	}

	// While the primary rests, calls go straight to the backup.
	clk.Advance(30 * time.Second)
	if o := run(t, fb, hello()); o.err != nil || o.resp.Provider != "backup" || len(o.retries) != 0 {
		t.Fatalf("during cooldown: provider %q, retries %d, err %v", o.resp.Provider, len(o.retries), o.err)
	}
	if n := len(primary.Requests()); n != 2 {
		t.Errorf("primary got %d requests during its cooldown, want still 2", n)
	}

	// After the cooldown the primary is asked first again.
	clk.Advance(time.Minute)
	primary.Enqueue(llmtest.Reply{Text: "primary is back"})
	if o := run(t, fb, hello()); o.err != nil || o.resp.Text() != "primary is back" {
		t.Fatalf("after cooldown: %q, err %v", o.resp.Text(), o.err)
	}
}

func TestFallbackOnlyForProviderFailures(t *testing.T) {
	tests := []struct {
		name         string
		reply        llmtest.Reply
		wantFallback bool
	}{
		{"unknown model", llmtest.Reply{Status: 404, Error: &llmtest.ErrorReply{Type: "invalid_request_error", Code: "model_not_found", Message: "no such model"}}, true},
		{"rate limited", llmtest.Reply{Status: 429, Error: &llmtest.ErrorReply{Type: "rate_limit_error", Message: "slow"}}, true},
		{"bad key", llmtest.Reply{Status: 401, Error: &llmtest.ErrorReply{Type: "authentication_error", Message: "bad key"}}, false},
		{"context overflow", llmtest.Reply{Status: 400, Error: &llmtest.ErrorReply{Code: "context_length_exceeded", Message: "maximum context length"}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			primary, backup := llmtest.New(t), llmtest.New(t)
			primary.Enqueue(tt.reply)
			backup.Handle(func(llmtest.Request) llmtest.Reply { return llmtest.Reply{Text: "backup"} })
			fb := llm.NewFallback([]llm.Route{{Provider: chatAt(primary, "primary", llm.Timeouts{})}, {Provider: chatAt(backup, "backup", llm.Timeouts{})}}, llm.FallbackOptions{})
			o := run(t, fb, hello())
			if got := o.err == nil && o.resp.Provider == "backup"; got != tt.wantFallback {
				t.Errorf("fell back = %v (err %v), want %v", got, o.err, tt.wantFallback)
			}
			if !tt.wantFallback && len(backup.Requests()) != 0 {
				t.Errorf("backup was asked although the failure was %s", llm.KindOf(o.err))
			}
		})
	}
}
