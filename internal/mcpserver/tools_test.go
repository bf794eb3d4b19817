package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/clock"
	"github.com/hermes-go/hermes/internal/safety"
	"github.com/hermes-go/hermes/internal/tool"
)

// serveEnv, when set in the environment of the test binary, makes it an
// MCP server on stdio over the test tools instead of running tests: the
// stdio tests start it as a real child process.
const serveEnv = "HERMES_MCPSERVER_TEST_SERVE"

// testWorkdir is the Workdir the test servers give their tools.
const testWorkdir = "/srv/hermes-test"

func TestMain(m *testing.M) {
	if os.Getenv(serveEnv) == "stdio" {
		os.Exit(serveStdioForTest())
	}
	os.Exit(m.Run())
}

// serveStdioForTest serves the test tools on stdin/stdout until stdin
// closes or the process gets SIGINT or SIGTERM; logs go to stderr.
func serveStdioForTest() int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	srv, err := newTestServer(Options{Logger: log})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	if err := srv.ServeStdio(ctx); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// newTestServer builds the test registry, narrows it as hermes would,
// and returns a server over it with a real non-interactive approval
// policy; fields set in opts are kept.
func newTestServer(opts Options) (*Server, error) {
	reg, err := testRegistry()
	if err != nil {
		return nil, err
	}
	return newServerOn(reg, opts)
}

// newServerOn returns a server over the selected view of reg.
func newServerOn(reg *tool.Registry, opts Options) (*Server, error) {
	view, err := reg.Select(nil, []string{"internal"})
	if err != nil {
		return nil, err
	}
	policy := &safety.Policy{}
	opts.Registry = view
	opts.Dispatcher = &tool.Dispatcher{Registry: view, Clock: clock.NewFake(time.Date(2026, 12, 2, 9, 0, 0, 0, time.UTC))}
	opts.Approver = func(sessionID string) tool.Approver { return policy.For(sessionID, safety.Asker{}) }
	opts.Workdir = testWorkdir
	opts.Name, opts.Version = "hermes", "test"
	return New(opts), nil
}

// testRegistry holds the tools the tests expose: some offered, one
// unavailable and one in a toolset the selection leaves out.
func testRegistry() (*tool.Registry, error) {
	reg := tool.NewRegistry()
	err := reg.Swap(nil, []tool.Tool{
		lookupOrder{},
		funcTool{spec: tool.Spec{Name: "fail_always", Description: "Always fails."}, call: failAlways},
		funcTool{spec: tool.Spec{Name: "delete_scratch", Description: "Deletes the scratch directory."}, call: deleteScratch},
		funcTool{spec: tool.Spec{Name: "whoami", Description: "Says which session calls.", ParallelSafe: true}, call: whoami},
		funcTool{spec: tool.Spec{Name: "greet", Description: "Greets.", Idempotent: true}, call: greet},
		funcTool{spec: tool.Spec{Name: "screenshot", Description: "Returns an image."}, call: screenshotTool},
		funcTool{spec: tool.Spec{Name: "hidden_tool", Description: "Not selected.", Toolset: "internal"}, call: greet},
		unavailable{funcTool{spec: tool.Spec{Name: "offline_tool", Description: "Needs a service."}, call: greet}},
	})
	return reg, err
}

// exposedTools are the names a client must list, sorted.
var exposedTools = []string{"delete_scratch", "fail_always", "greet", "lookup_order", "screenshot", "whoami"}

// lookupOrderSchema is the schema of lookup_order, as a declared tool
// would have it.
const lookupOrderSchema = `{"type":"object","properties":{"order_id":{"type":"string","description":"The order number, e.g. A-1001."},"verbose":{"type":"boolean"}},"required":["order_id"],"additionalProperties":false}`

// lookupOrder looks up a made-up order.
type lookupOrder struct{}

func (lookupOrder) Spec() tool.Spec {
	return tool.Spec{Name: "lookup_order", Description: "Looks up an order by its number.", Parameters: json.RawMessage(lookupOrderSchema), Toolset: "orders"}
}

func (lookupOrder) Call(_ context.Context, args json.RawMessage) (any, error) {
	var a struct {
		OrderID string `json:"order_id"`
		Verbose bool   `json:"verbose"`
	}
	if err := json.Unmarshal(args, &a); err != nil {
		return nil, err
	}
	return map[string]any{"order_id": a.OrderID, "status": "shipped", "verbose": a.Verbose}, nil
}

// funcTool is a tool made of a spec and a function.
type funcTool struct {
	spec tool.Spec
	call func(ctx context.Context, args json.RawMessage) (any, error)
}

func (f funcTool) Spec() tool.Spec { return f.spec }
func (f funcTool) Call(ctx context.Context, args json.RawMessage) (any, error) {
	return f.call(ctx, args)
}

// unavailable is a tool whose requirement is missing.
type unavailable struct{ funcTool }

func (unavailable) Available() error { return errors.New("the service is not configured") }

func failAlways(context.Context, json.RawMessage) (any, error) {
	return nil, &tool.Error{Code: tool.CodeUpstreamUnavailable, Message: "the order service answered 503", Data: map[string]any{"exit_code": 3}}
}

// deleteScratch asks the approver before a dangerous command and runs
// nothing either way.
func deleteScratch(ctx context.Context, _ json.RawMessage) (any, error) {
	inv := tool.InvocationFrom(ctx)
	if inv.Approver == nil {
		return nil, tool.Errorf(tool.CodeDenied, "no approver")
	}
	if err := inv.Approver.ApproveCommand(ctx, "rm -rf /tmp/x"); err != nil {
		return nil, tool.Errorf(tool.CodeDenied, "%v", err)
	}
	return "approved", nil
}

func whoami(ctx context.Context, _ json.RawMessage) (any, error) {
	inv := tool.InvocationFrom(ctx)
	return map[string]any{"session_id": inv.SessionID, "workdir": inv.Workdir, "call_id": inv.CallID}, nil
}

func greet(context.Context, json.RawMessage) (any, error) { return "hello from hermes", nil }

// tinyPNG is a 1×1 PNG.
const tinyPNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="

func screenshotTool(context.Context, json.RawMessage) (any, error) {
	return map[string]any{"path": "shot.png", "image_data_url": "data:image/png;base64," + tinyPNG}, nil
}

// mustServer returns a server over the test tools or fails t.
func mustServer(t *testing.T, opts Options) *Server {
	t.Helper()
	srv, err := newTestServer(opts)
	if err != nil {
		t.Fatal(err)
	}
	return srv
}
