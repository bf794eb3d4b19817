package tool

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/clock"
	"github.com/hermes-go/hermes/internal/llm"
)

// call builds a tool call for tests.
func call(id, name, args string) llm.ToolCall {
	return llm.ToolCall{ID: id, Name: name, Arguments: args}
}

// recorder is an Observer that keeps the order of events.
type recorder struct {
	mu     sync.Mutex
	events []string
}

func (r *recorder) ToolStarted(i int, c llm.ToolCall) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, "start "+c.ID)
}

func (r *recorder) ToolFinished(i int, o Outcome) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, "finish "+o.Call.ID)
}

// t0 is the time of the tests' fake clocks.
var t0 = time.Date(2026, 12, 2, 9, 0, 0, 0, time.UTC)

// noSleep is a fake clock whose Sleep records retry waits instead of
// sleeping.
type noSleep struct {
	*clock.Fake
	mu    sync.Mutex
	waits []time.Duration
}

func newNoSleep() *noSleep { return &noSleep{Fake: clock.NewFake(t0)} }

func (n *noSleep) Sleep(ctx context.Context, d time.Duration) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.waits = append(n.waits, d)
	return nil
}

func TestDispatchOK(t *testing.T) {
	var seen Invocation
	echo := &fakeTool{spec: Spec{Name: "read_file", Parameters: json.RawMessage(`{"type":"object","properties":{"limit":{"type":"integer"}}}`)},
		call: func(ctx context.Context, args json.RawMessage) (any, error) {
			seen = InvocationFrom(ctx)
			return map[string]any{"args": args, "text": "第一行 <ok>"}, nil
		}}
	d := &Dispatcher{Registry: newRegistry(t, echo)}
	ctx := WithInvocation(context.Background(), Invocation{SessionID: "s1", Workdir: "/w"})
	rec := &recorder{}
	outs := d.Run(ctx, []llm.ToolCall{call("c1", "ReadFile", `{"limit":"2"}`)}, rec)
	if len(outs) != 1 {
		t.Fatalf("%d outcomes", len(outs))
	}
	o := outs[0]
	if o.Name != "read_file" || o.Attempts != 1 || o.Call.Name != "ReadFile" || o.Truncated {
		t.Errorf("outcome = %+v", o)
	}
	if want := `{"status":"ok","data":{"args":{"limit":2},"text":"第一行 <ok>"}}`; o.Content != want {
		t.Errorf("Content = %s, want %s", o.Content, want)
	}
	if seen.CallID != "c1" || seen.SessionID != "s1" || seen.Workdir != "/w" {
		t.Errorf("tool saw invocation %+v", seen)
	}
	if got := strings.Join(rec.events, ","); got != "start c1,finish c1" {
		t.Errorf("observer events %s", got)
	}
}

func TestDispatchEarlyFailures(t *testing.T) {
	var calls atomic.Int32
	tl := &fakeTool{spec: Spec{Name: "search", Parameters: json.RawMessage(`{"type":"object","properties":{"q":{"type":"string"},"n":{"type":"integer","minimum":1}},"required":["q"]}`)},
		call: func(context.Context, json.RawMessage) (any, error) { calls.Add(1); return nil, nil }}
	d := &Dispatcher{Registry: newRegistry(t, tl)}
	rec := &recorder{}
	outs := d.Run(context.Background(), []llm.ToolCall{
		call("a", "nonexistent", `{}`),
		call("b", "search", `{"n": 0}`),
		call("c", "search", `{"q": "x`),
	}, rec)
	if calls.Load() != 0 {
		t.Error("the tool ran for invalid calls")
	}
	if o := outs[0]; o.Result.ErrorCode != CodeNotFound || !strings.Contains(o.Content, "search") || o.Attempts != 0 {
		t.Errorf("unknown tool outcome %+v", o)
	}
	if o := outs[1]; o.Result.ErrorCode != CodeInvalidArguments ||
		!strings.Contains(o.Result.Message, "missing property 'q'") || !strings.Contains(o.Result.Message, "at '/n': minimum: got 0, want 1") {
		t.Errorf("invalid arguments outcome %+v", o.Result)
	}
	if o := outs[2]; o.Result.ErrorCode != CodeInvalidArguments || !strings.Contains(o.Result.Message, "end before") {
		t.Errorf("truncated arguments outcome %+v", o.Result)
	}
	if got := strings.Join(rec.events, ","); got != "start a,finish a,start b,finish b,start c,finish c" {
		t.Errorf("observer events %s", got)
	}
}

func TestDispatchErrorEnvelopes(t *testing.T) {
	tests := []struct {
		name string
		fn   func(context.Context, json.RawMessage) (any, error)
		want string
	}{
		{"classified", func(context.Context, json.RawMessage) (any, error) {
			return nil, &Error{Code: CodeUpstreamUnavailable, Message: "billing API answered 503", Data: map[string]int{"exit": 1}}
		}, `{"status":"error","data":{"exit":1},"error_code":"upstream_unavailable","message":"billing API answered 503"}`},
		{"wrapped", func(context.Context, json.RawMessage) (any, error) {
			return nil, errors.Join(errors.New("context"), Errorf(CodeDenied, "not allowed"))
		}, `{"status":"error","error_code":"denied","message":"not allowed"}`},
		{"plain", func(context.Context, json.RawMessage) (any, error) {
			return nil, errors.New("disk full")
		}, `{"status":"error","error_code":"internal","message":"t failed: disk full"}`},
		{"no code", func(context.Context, json.RawMessage) (any, error) {
			return nil, &Error{Message: "odd"}
		}, `{"status":"error","error_code":"internal","message":"odd"}`},
		{"panic", func(context.Context, json.RawMessage) (any, error) {
			var m map[string]int
			m["x"] = 1
			return nil, nil
		}, `{"status":"error","error_code":"internal","message":"t failed with an internal error (assignment to entry in nil map); this is a fault in the tool, not in the arguments"}`},
		{"unencodable data", func(context.Context, json.RawMessage) (any, error) {
			return make(chan int), nil
		}, `{"status":"error","error_code":"internal","message":"the tool's result could not be encoded as JSON: json: unsupported type: chan int"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tl := &fakeTool{spec: Spec{Name: "t", Idempotent: true, Retry: Retry{Attempts: 3}}, call: tt.fn}
			d := &Dispatcher{Registry: newRegistry(t, tl), Clock: newNoSleep()}
			o := d.Run(context.Background(), []llm.ToolCall{call("1", "t", "")}, nil)[0]
			if o.Content != tt.want {
				t.Errorf("Content = %s\nwant      %s", o.Content, tt.want)
			}
			if tt.name == "panic" && o.Attempts != 1 {
				t.Errorf("a panicking tool was tried %d times", o.Attempts)
			}
		})
	}
}

func TestDispatchTimeout(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	tests := []struct {
		name string
		tool *fakeTool
		over map[string]Override
		want string
	}{
		{"honours context", &fakeTool{spec: Spec{Name: "slow", Timeout: 20 * time.Millisecond},
			call: func(ctx context.Context, _ json.RawMessage) (any, error) { <-ctx.Done(); return nil, ctx.Err() }}, nil, "within 20ms"},
		{"ignores context", &fakeTool{spec: Spec{Name: "stuck", Timeout: 20 * time.Millisecond},
			call: func(ctx context.Context, _ json.RawMessage) (any, error) { <-release; return "late", nil }}, nil, "within 20ms"},
		{"override wins", &fakeTool{spec: Spec{Name: "slow", Timeout: time.Hour},
			call: func(ctx context.Context, _ json.RawMessage) (any, error) { <-ctx.Done(); return nil, ctx.Err() }},
			map[string]Override{"slow": {Timeout: 10 * time.Millisecond}}, "within 10ms"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := &Dispatcher{Registry: newRegistry(t, tt.tool), Overrides: tt.over}
			start := time.Now()
			o := d.Run(context.Background(), []llm.ToolCall{call("1", tt.tool.spec.Name, "{}")}, nil)[0]
			if time.Since(start) > 2*time.Second {
				t.Fatal("the timeout did not stop the call")
			}
			if o.Result.ErrorCode != CodeTimeout || !strings.Contains(o.Result.Message, tt.want) || !strings.Contains(o.Result.Message, "narrower") {
				t.Errorf("Result = %+v", o.Result)
			}
		})
	}
}

func TestDispatchDefaultTimeout(t *testing.T) {
	tl := &fakeTool{spec: Spec{Name: "slow"}, call: func(ctx context.Context, _ json.RawMessage) (any, error) { <-ctx.Done(); return nil, ctx.Err() }}
	d := &Dispatcher{Registry: newRegistry(t, tl), DefaultTimeout: 5 * time.Millisecond}
	if o := d.Run(context.Background(), []llm.ToolCall{call("1", "slow", "")}, nil)[0]; o.Result.ErrorCode != CodeTimeout {
		t.Errorf("Result = %+v", o.Result)
	}
	if got := (&Dispatcher{}).timeout(&job{}); got != DefaultTimeout {
		t.Errorf("zero dispatcher timeout = %v, want %v", got, DefaultTimeout)
	}
}

func TestDispatchInterruptedDuringCall(t *testing.T) {
	started := make(chan struct{})
	tl := &fakeTool{spec: Spec{Name: "wait", Idempotent: true, Retry: Retry{Attempts: 5}},
		call: func(ctx context.Context, _ json.RawMessage) (any, error) {
			close(started)
			<-ctx.Done()
			return nil, ctx.Err()
		}}
	d := &Dispatcher{Registry: newRegistry(t, tl)}
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-started; cancel() }()
	o := d.Run(ctx, []llm.ToolCall{call("1", "wait", "")}, nil)[0]
	if o.Result.ErrorCode != CodeInterrupted || o.Attempts != 1 {
		t.Errorf("outcome = %+v", o)
	}
}

func TestDispatchAlreadyCancelled(t *testing.T) {
	var ran atomic.Bool
	tl := &fakeTool{spec: Spec{Name: "t"}, call: func(context.Context, json.RawMessage) (any, error) { ran.Store(true); return nil, nil }}
	d := &Dispatcher{Registry: newRegistry(t, tl)}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	outs := d.Run(ctx, []llm.ToolCall{call("1", "t", ""), call("2", "t", "")}, nil)
	for i, o := range outs {
		if o.Result.ErrorCode != CodeInterrupted || o.Attempts != 0 {
			t.Errorf("outcome %d = %+v", i, o)
		}
	}
	if ran.Load() {
		t.Error("a tool ran after the turn was cancelled")
	}
}

func TestDispatchLogging(t *testing.T) {
	var mu sync.Mutex
	var records []map[string]any
	h := slog.NewJSONHandler(writerFunc(func(p []byte) (int, error) {
		var m map[string]any
		if err := json.Unmarshal(p, &m); err != nil {
			return 0, err
		}
		mu.Lock()
		records = append(records, m)
		mu.Unlock()
		return len(p), nil
	}), nil)
	tl := &fakeTool{spec: Spec{Name: "login", Parameters: json.RawMessage(`{"type":"object"}`)},
		call: func(context.Context, json.RawMessage) (any, error) { return nil, Errorf(CodeDenied, "no") }}
	d := &Dispatcher{Registry: newRegistry(t, tl), Logger: slog.New(h)}
	d.Run(context.Background(), []llm.ToolCall{call("1", "login", `{"password":"hunter2"}`)}, nil)
	if len(records) != 1 {
		t.Fatalf("%d log records, want 1", len(records))
	}
	r := records[0]
	if r["tool"] != "login" || r["status"] != "error" || r["error_code"] != "denied" || r["duration_ms"] == nil {
		t.Errorf("log record %v", r)
	}
	b, _ := json.Marshal(r)
	if strings.Contains(string(b), "hunter2") {
		t.Error("an argument value reached the log")
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }
