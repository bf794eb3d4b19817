package declared

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/clock"
	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/safety"
	"github.com/hermes-go/hermes/internal/safety/netguard"
	"github.com/hermes-go/hermes/internal/tool"
)

// home is a $HERMES_HOME in a temporary directory with a tools
// directory, a registry and an environment for ${NAME} lookups.
type home struct {
	t      *testing.T
	dir    string
	tools  string
	reg    *tool.Registry
	env    map[string]string
	loader *Loader
}

func newHome(t *testing.T) *home {
	t.Helper()
	return newGuardedHome(t, nil)
}

// newGuardedHome is newHome whose http tools send through guard.
func newGuardedHome(t *testing.T, guard *netguard.Guard) *home {
	t.Helper()
	dir := t.TempDir()
	h := &home{t: t, dir: dir, tools: filepath.Join(dir, "tools"), reg: tool.NewRegistry(), env: map[string]string{}}
	if err := os.MkdirAll(h.tools, 0o755); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	h.loader = NewLoader(LoaderOptions{
		Dir:        h.tools,
		ConfigFile: filepath.Join(dir, "config.yaml"),
		Registry:   h.reg,
		Env: func(name string) (string, bool) {
			mu.Lock()
			defer mu.Unlock()
			v, ok := h.env[name]
			return v, ok
		},
		Guard:    guard,
		Fallback: (&safety.Policy{}).For("test", safety.Asker{}),
	})
	t.Cleanup(func() { h.loader.Close() })
	return h
}

// write writes a file under the tools directory (or config.yaml).
func (h *home) write(name, content string) string {
	h.t.Helper()
	path := filepath.Join(h.tools, name)
	if name == "config.yaml" {
		path = filepath.Join(h.dir, name)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		h.t.Fatal(err)
	}
	return path
}

// load writes one tools file and loads it, failing on any problem.
func (h *home) load(name, content string) {
	h.t.Helper()
	h.write(name, content)
	if err := h.loader.Load(); err != nil {
		h.t.Fatal(err)
	}
	if ps := h.loader.Problems(); len(ps) > 0 {
		h.t.Fatalf("problems: %v", ps)
	}
}

// fakeSleep is a fake clock whose Sleep records the dispatcher's retry
// waits instead of sleeping.
type fakeSleep struct {
	*clock.Fake
	mu    sync.Mutex
	waits []time.Duration
}

func (f *fakeSleep) Sleep(ctx context.Context, d time.Duration) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.waits = append(f.waits, d)
	return ctx.Err()
}

// run calls a tool through a real dispatcher and returns its outcome.
func (h *home) run(ctx context.Context, name, args string) (tool.Outcome, *fakeSleep) {
	h.t.Helper()
	fs := &fakeSleep{Fake: clock.NewFake(time.Date(2026, 12, 2, 9, 0, 0, 0, time.UTC))}
	d := &tool.Dispatcher{Registry: h.reg, Clock: fs}
	outs := d.Run(ctx, []llm.ToolCall{{ID: "c1", Name: name, Arguments: args}}, nil)
	if len(outs) != 1 {
		h.t.Fatalf("got %d outcomes", len(outs))
	}
	return outs[0], fs
}

// call runs a tool and fails the test unless the call succeeded; it
// returns the data as decoded JSON.
func (h *home) call(ctx context.Context, name, args string) any {
	h.t.Helper()
	o, _ := h.run(ctx, name, args)
	if o.Result.Status != tool.StatusOK {
		h.t.Fatalf("%s(%s) = %s %s: %s", name, args, o.Result.Status, o.Result.ErrorCode, o.Result.Message)
	}
	return roundTrip(h.t, o.Result.Data)
}

// roundTrip encodes and decodes v, so tests compare plain JSON values.
func roundTrip(t *testing.T, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// traces collects the traces of calls made with its context.
type traces struct {
	mu  sync.Mutex
	all []Trace
}

func (tr *traces) ctx() context.Context {
	return WithTrace(context.Background(), func(t Trace) {
		tr.mu.Lock()
		defer tr.mu.Unlock()
		tr.all = append(tr.all, t)
	})
}

func (tr *traces) String() string {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	var b strings.Builder
	for _, t := range tr.all {
		b.WriteString(t.String() + "\n")
	}
	return b.String()
}
