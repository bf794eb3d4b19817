package tool

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/llm"
)

// guard fails a test that would otherwise hang when calls that must run
// together are run one after another.
func guard(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// waitFor blocks until ch is closed or the test's guard expires.
func waitFor(ctx context.Context, ch <-chan struct{}) error {
	select {
	case <-ch:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("waited in vain: calls that should run together did not")
	}
}

func TestParallelOrderPreservedUnderReverseFinish(t *testing.T) {
	const n = 5
	done := make([]chan struct{}, n+1)
	for i := range done {
		done[i] = make(chan struct{})
	}
	close(done[n])
	var mu sync.Mutex
	var order []int
	// Call i finishes only after call i+1 did: the batch can only complete
	// if all calls run at once, and they finish in reverse order.
	tl := &fakeTool{spec: Spec{Name: "fetch", ParallelSafe: true, Parameters: json.RawMessage(`{"type":"object","properties":{"i":{"type":"integer"}}}`)},
		call: func(ctx context.Context, args json.RawMessage) (any, error) {
			var a struct{ I int }
			_ = json.Unmarshal(args, &a)
			if err := waitFor(ctx, done[a.I+1]); err != nil {
				return nil, err
			}
			mu.Lock()
			order = append(order, a.I)
			mu.Unlock()
			close(done[a.I])
			return a.I, nil
		}}
	d := &Dispatcher{Registry: newRegistry(t, tl)}
	var calls []llm.ToolCall
	for i := range n {
		calls = append(calls, call(fmt.Sprint(i), "fetch", fmt.Sprintf(`{"i":%d}`, i)))
	}
	outs := d.Run(guard(t), calls, nil)
	for i, o := range outs {
		if o.Call.ID != fmt.Sprint(i) || o.Content != fmt.Sprintf(`{"status":"ok","data":%d}`, i) {
			t.Errorf("outcome %d = %s %s", i, o.Call.ID, o.Content)
		}
	}
	if fmt.Sprint(order) != "[4 3 2 1 0]" {
		t.Errorf("tools finished in order %v, want reverse", order)
	}
}

// tracker counts calls running at once.
type tracker struct {
	active, peak atomic.Int32
	violations   atomic.Int32
}

func (tr *tracker) enter() int32 {
	n := tr.active.Add(1)
	for {
		p := tr.peak.Load()
		if n <= p || tr.peak.CompareAndSwap(p, n) {
			return n
		}
	}
}

func (tr *tracker) leave() { tr.active.Add(-1) }

func TestBarrierRunsAlone(t *testing.T) {
	tr := &tracker{}
	var barrierDone atomic.Bool
	gate := make(chan struct{})
	var gateOnce sync.Once
	var readers atomic.Int32
	read := &fakeTool{spec: Spec{Name: "read", ParallelSafe: true, Parameters: json.RawMessage(`{"type":"object","properties":{"after":{"type":"boolean"}}}`)},
		call: func(ctx context.Context, args json.RawMessage) (any, error) {
			tr.enter()
			defer tr.leave()
			if strings.Contains(string(args), "true") {
				if !barrierDone.Load() {
					tr.violations.Add(1)
				}
				return nil, nil
			}
			// The two readers before the barrier wait for each other, which
			// proves they ran together.
			if readers.Add(1) == 2 {
				gateOnce.Do(func() { close(gate) })
			}
			return nil, waitFor(ctx, gate)
		}}
	write := &fakeTool{spec: Spec{Name: "shell"}, call: func(ctx context.Context, _ json.RawMessage) (any, error) {
		if tr.enter() != 1 {
			tr.violations.Add(1)
		}
		time.Sleep(5 * time.Millisecond) // give a wrongly started call the chance to show up
		if tr.active.Load() != 1 {
			tr.violations.Add(1)
		}
		barrierDone.Store(true)
		tr.leave()
		return nil, nil
	}}
	d := &Dispatcher{Registry: newRegistry(t, read, write)}
	outs := d.Run(guard(t), []llm.ToolCall{
		call("1", "read", `{}`), call("2", "read", `{}`), call("3", "shell", `{}`),
		call("4", "read", `{"after":true}`), call("5", "read", `{"after":true}`),
	}, nil)
	for i, o := range outs {
		if o.Result.Status != StatusOK {
			t.Errorf("call %d: %s", i, o.Content)
		}
	}
	if v := tr.violations.Load(); v != 0 {
		t.Errorf("%d calls ran beside the barrier", v)
	}
}

func TestMaxParallel(t *testing.T) {
	tr := &tracker{}
	tl := &fakeTool{spec: Spec{Name: "r", ParallelSafe: true}, call: func(context.Context, json.RawMessage) (any, error) {
		tr.enter()
		defer tr.leave()
		time.Sleep(2 * time.Millisecond)
		return nil, nil
	}}
	d := &Dispatcher{Registry: newRegistry(t, tl), MaxParallel: 2}
	calls := make([]llm.ToolCall, 6)
	for i := range calls {
		calls[i] = call(fmt.Sprint(i), "r", "")
	}
	d.Run(guard(t), calls, nil)
	if p := tr.peak.Load(); p > 2 {
		t.Errorf("%d calls ran at once, MaxParallel 2", p)
	}
}

func TestPathScopedCalls(t *testing.T) {
	schema := json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)
	var mu sync.Mutex
	running := map[string]bool{}
	var conflicts []string
	pair := make(chan struct{})
	var pairOnce sync.Once
	var pairCount atomic.Int32
	body := func(ctx context.Context, args json.RawMessage) (any, error) {
		var a struct{ Path string }
		_ = json.Unmarshal(args, &a)
		p := a.Path
		if !filepath.IsAbs(p) {
			p = filepath.Join("/w", p)
		}
		p = filepath.Clean(p)
		mu.Lock()
		for other := range running {
			if overlaps(other, p) {
				conflicts = append(conflicts, other+" with "+p)
			}
		}
		running[p] = true
		mu.Unlock()
		if a.Path == "/w/a/one.txt" || a.Path == "b/two.txt" {
			// Disjoint paths: each waits for the other to have started.
			if pairCount.Add(1) == 2 {
				pairOnce.Do(func() { close(pair) })
			}
			if err := waitFor(ctx, pair); err != nil {
				return nil, err
			}
		}
		time.Sleep(time.Millisecond)
		mu.Lock()
		delete(running, p)
		mu.Unlock()
		return nil, nil
	}
	write := &fakeTool{spec: Spec{Name: "write_file", PathArg: "path", Parameters: schema}, call: body}
	d := &Dispatcher{Registry: newRegistry(t, write)}
	ctx := WithInvocation(guard(t), Invocation{Workdir: "/w"})
	outs := d.Run(ctx, []llm.ToolCall{
		call("1", "write_file", `{"path":"/w/a/one.txt"}`),
		call("2", "write_file", `{"path":"b/two.txt"}`),         // relative to the workdir
		call("3", "write_file", `{"path":"a"}`),                 // parent of call 1
		call("4", "write_file", `{"path":"/w/b/../b/two.txt"}`), // same file as call 2
	}, nil)
	for i, o := range outs {
		if o.Result.Status != StatusOK {
			t.Errorf("call %d: %s", i, o.Content)
		}
	}
	if len(conflicts) > 0 {
		t.Errorf("overlapping paths ran together: %v", conflicts)
	}
}

func TestInterruptStopsWaiting(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	started := make(chan struct{})
	var later atomic.Bool
	stuck := &fakeTool{spec: Spec{Name: "stuck"}, call: func(ctx context.Context, _ json.RawMessage) (any, error) {
		close(started)
		<-release // ignores its context on purpose
		return nil, nil
	}}
	next := &fakeTool{spec: Spec{Name: "next"}, call: func(context.Context, json.RawMessage) (any, error) {
		later.Store(true)
		return nil, nil
	}}
	d := &Dispatcher{Registry: newRegistry(t, stuck, next)}
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-started; cancel() }()
	rec := &recorder{}
	returned := make(chan []Outcome)
	go func() {
		returned <- d.Run(ctx, []llm.ToolCall{call("1", "stuck", ""), call("2", "next", ""), call("3", "nope", "")}, rec)
	}()
	var outs []Outcome
	select {
	case outs = <-returned:
	case <-time.After(5 * time.Second):
		t.Fatal("Run kept waiting after the context was cancelled")
	}
	if later.Load() {
		t.Error("a call after the cancellation ran")
	}
	want := []Code{CodeInterrupted, CodeInterrupted, CodeNotFound}
	for i, o := range outs {
		if o.Result.ErrorCode != want[i] {
			t.Errorf("call %d: %s, want %s", i, o.Content, want[i])
		}
	}
	if outs[1].Attempts != 0 {
		t.Errorf("the call never started but reports %d attempts", outs[1].Attempts)
	}
	starts, finishes := 0, 0
	for _, e := range rec.events {
		if strings.HasPrefix(e, "start") {
			starts++
		} else {
			finishes++
		}
	}
	if starts != 3 || finishes != 3 {
		t.Errorf("observer saw %v", rec.events)
	}
}
