package code

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/tool"
)

// fake is a tool.Caller with a few scripted tools that records every
// call; names, when set, replaces the tools it offers.
type fake struct {
	calls []string
	names []string
}

func (f *fake) ToolNames() []string {
	if f.names != nil {
		return f.names
	}
	return []string{"read_file", "search_files", "wait", "nothing", "execute_code"}
}

func (f *fake) CallTool(ctx context.Context, name string, args json.RawMessage) tool.Result {
	f.calls = append(f.calls, name+" "+string(args))
	var a map[string]any
	_ = json.Unmarshal(args, &a)
	switch name {
	case "read_file":
		if a["path"] == "missing.txt" {
			return tool.Result{Status: tool.StatusError, ErrorCode: tool.CodeNotFound, Message: "missing.txt does not exist", Data: map[string]any{"path": "missing.txt"}}
		}
		return tool.OK(struct {
			Content string `json:"content"`
			Lines   int    `json:"lines"`
		}{"hello\nworld\n", 2})
	case "search_files":
		return tool.OK(map[string]any{"matches": []string{"a.txt", "b.txt", "c.txt"}})
	case "wait":
		<-ctx.Done()
		return tool.Fail(tool.CodeInterrupted, "cancelled")
	case "nothing":
		return tool.OK(nil)
	}
	return tool.Fail(tool.CodeNotFound, "unknown tool %s", name)
}

// bound is the tool with calls made under an invocation whose Caller is
// the fake, as the dispatcher would make them.
type bound struct {
	*Code
	caller tool.Caller
}

func (b bound) Call(ctx context.Context, raw json.RawMessage) (any, error) {
	return b.Code.Call(tool.WithInvocation(ctx, tool.Invocation{Caller: b.caller}), raw)
}

func newCode(f *fake, o Options) bound {
	return bound{New(o), f}
}

func execute(t *testing.T, c bound, src string) (Result, error) {
	t.Helper()
	args, _ := json.Marshal(map[string]string{"code": src})
	v, err := c.Call(context.Background(), args)
	if err != nil {
		return Result{}, err
	}
	return v.(Result), nil
}

// failed returns the *tool.Error of err, requiring the code.
func failed(t *testing.T, err error, code tool.Code) *tool.Error {
	t.Helper()
	te, ok := tool.AsError(err)
	if !ok || te.Code != code {
		t.Fatalf("error = %v, want code %s", err, code)
	}
	return te
}

func TestProgramCallsToolsAndPrints(t *testing.T) {
	f := &fake{}
	res, err := execute(t, newCode(f, Options{}), `
const found = await tools.search_files({pattern: "*.txt"});
let lines = 0;
for (const p of found.matches) {
  const r = tools.read_file({path: p});   // synchronous form
  lines += r.lines;
}
print("files:", found.matches.length, "lines:", lines);
console.log({first: found.matches[0]});
`)
	if err != nil {
		t.Fatal(err)
	}
	if want := "files: 3 lines: 6\n{\"first\":\"a.txt\"}\n"; res.Output != want {
		t.Errorf("output = %q, want %q", res.Output, want)
	}
	if res.ToolCalls != 4 || len(f.calls) != 4 || res.Truncated {
		t.Errorf("result = %+v, calls = %q", res, f.calls)
	}
	if f.calls[0] != `search_files {"pattern":"*.txt"}` || f.calls[1] != `read_file {"path":"a.txt"}` {
		t.Errorf("calls = %q", f.calls)
	}
}

func TestPrintFormats(t *testing.T) {
	tests := []struct{ src, want string }{
		{`print("a", 1, true, null, undefined)`, "a 1 true null undefined\n"},
		{`print([1, {b: "c"}])`, "[1,{\"b\":\"c\"}]\n"},
		{`print(new TypeError("bad"))`, "TypeError: bad\n"},
		{`const o = {}; o.self = o; print(o)`, "[object Object]\n"},
		{`print()`, "\n"},
		{`print(tools.nothing())`, "undefined\n"},
		{`console.error("x"); console.warn("y")`, "x\ny\n"},
		{`return 5`, ""},
	}
	for _, tt := range tests {
		res, err := execute(t, newCode(&fake{}, Options{}), tt.src)
		if err != nil {
			t.Errorf("%s: %v", tt.src, err)
			continue
		}
		if res.Output != tt.want {
			t.Errorf("%s: output %q, want %q", tt.src, res.Output, tt.want)
		}
	}
}

func TestSyntaxError(t *testing.T) {
	tests := []struct{ src, want string }{
		{"let a = ;", "line 1:9"},
		{"print(1)\nprint(2\nprint(3)", "line 3:1"},
		{"print(1)\n}", "line 2:1"},
		{"print(\"open", "line 1:7"},
		{"if (x) {\n  print(1)\n", "end of the program"},
		{"await tools.nothing()\nif (x) {", "end of the program"},
		{"await tools.nothing()\n}", "a } closes more than was opened"},
	}
	for _, tt := range tests {
		f := &fake{}
		_, err := execute(t, newCode(f, Options{}), tt.src)
		te := failed(t, err, tool.CodeInvalidArguments)
		if !strings.Contains(te.Message, "syntax error") || !strings.Contains(te.Message, tt.want) {
			t.Errorf("%q: message %q, want it to mention %q", tt.src, te.Message, tt.want)
		}
		if len(f.calls) != 0 {
			t.Errorf("%q: tools were called", tt.src)
		}
	}
}

func TestToolErrorCaughtInProgram(t *testing.T) {
	res, err := execute(t, newCode(&fake{}, Options{}), `
try {
  await tools.read_file({path: "missing.txt"});
  print("not reached");
} catch (e) {
  print(e instanceof Error, e.code, e.data.path, e.message);
}`)
	if err != nil {
		t.Fatal(err)
	}
	want := "true not_found missing.txt read_file: not_found: missing.txt does not exist\n"
	if res.Output != want || res.ToolCalls != 1 {
		t.Errorf("result = %+v, want output %q", res, want)
	}
}

func TestUncaughtException(t *testing.T) {
	tests := []struct{ src, want string }{
		{"print(\"before\")\ntools.read_file({path: \"missing.txt\"})", "uncaught exception: Error: read_file: not_found: missing.txt does not exist (at line 2:"},
		{"print(\"before\")\nconst x = null;\n  x.y = 1", "TypeError"},
		{"print(\"before\")\nthrow \"plain\"", "uncaught exception: plain"},
		{"print(\"before\")\nfunction f() { return f() }\nf()", "maximum call stack size exceeded (runaway recursion?) (at line 2:"},
		{"print(\"before\")\nawait new Promise(() => {})", "never settle"},
		{"print(\"before\")\ntools.read_file(\"a.txt\")", "takes one object"},
	}
	for _, tt := range tests {
		_, err := execute(t, newCode(&fake{}, Options{}), tt.src)
		te := failed(t, err, tool.CodeInvalidArguments)
		if !strings.Contains(te.Message, tt.want) {
			t.Errorf("%q: message %q, want it to contain %q", tt.src, te.Message, tt.want)
		}
		if r, ok := te.Data.(Result); !ok || r.Output != "before\n" {
			t.Errorf("%q: data = %#v, want the output printed so far", tt.src, te.Data)
		}
	}
}

func TestCallLimit(t *testing.T) {
	f := &fake{}
	_, err := execute(t, newCode(f, Options{MaxCalls: 3}), `
for (let i = 0; i < 3; i++) tools.read_file({path: "a.txt"});
try { tools.read_file({path: "a.txt"}) } catch (e) { print(e.code, e.message) }
tools.search_files({})`)
	te := failed(t, err, tool.CodeInvalidArguments)
	if !strings.Contains(te.Message, "at most 3 tool calls") {
		t.Errorf("message = %q", te.Message)
	}
	r := te.Data.(Result)
	if r.ToolCalls != 3 || len(f.calls) != 3 || !strings.HasPrefix(r.Output, "limit_reached tool call limit reached") {
		t.Errorf("data = %+v, calls = %d", r, len(f.calls))
	}
}

func TestTimeoutStopsLoop(t *testing.T) {
	for _, src := range []string{
		`print("start"); while (true) {}`,
		`print("start"); tools.wait({})`,
	} {
		start := time.Now()
		_, err := execute(t, newCode(&fake{}, Options{Timeout: 100 * time.Millisecond}), src)
		te := failed(t, err, tool.CodeTimeout)
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("%s: took %v", src, d)
		}
		if r := te.Data.(Result); r.Output != "start\n" {
			t.Errorf("%s: data = %+v", src, r)
		}
	}
}

func TestCancellation(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	_, err := newCode(&fake{}, Options{}).Call(ctx, json.RawMessage(`{"code": "for (;;) {}"}`))
	failed(t, err, tool.CodeInterrupted)
}

func TestOutputCap(t *testing.T) {
	res, err := execute(t, newCode(&fake{}, Options{MaxOutput: 100}), `
for (let i = 0; i < 100; i++) print("é123456789");`)
	if err != nil {
		t.Fatal(err)
	}
	head, note, ok := strings.Cut(res.Output, "\n[output truncated at 100 bytes: 1100 more bytes not shown")
	if !ok || !res.Truncated || len(head) > 100 || !strings.HasPrefix(head, "é123456789\n") {
		t.Errorf("output = %q, truncated = %v", res.Output, res.Truncated)
	}
	_ = note
}

func TestOnlyAllowedToolsBound(t *testing.T) {
	f := &fake{}
	f.names = []string{"read_file", "execute_code"}
	res, err := execute(t, newCode(f, Options{}), `
print(Object.keys(tools).join(","));
print(typeof tools.execute_code, typeof tools.search_files);
try { tools.search_files({}) } catch (e) { print(e.name) }`)
	if err != nil {
		t.Fatal(err)
	}
	if want := "read_file\nundefined undefined\nTypeError\n"; res.Output != want || len(f.calls) != 0 {
		t.Errorf("output = %q, want %q; calls %q", res.Output, want, f.calls)
	}
}

func TestNoOutsideAccess(t *testing.T) {
	res, err := execute(t, newCode(&fake{}, Options{}), `
print([typeof require, typeof fetch, typeof setTimeout, typeof setInterval, typeof process, typeof XMLHttpRequest].join(" "));`)
	if err != nil {
		t.Fatal(err)
	}
	if want := strings.TrimSpace(strings.Repeat("undefined ", 6)) + "\n"; res.Output != want {
		t.Errorf("output = %q", res.Output)
	}
	_, err = execute(t, newCode(&fake{}, Options{}), `require("fs")`)
	te := failed(t, err, tool.CodeInvalidArguments)
	if !strings.Contains(te.Message, "ReferenceError: require is not defined") {
		t.Errorf("message = %q", te.Message)
	}
}

func TestBadArguments(t *testing.T) {
	c := newCode(&fake{}, Options{})
	for _, raw := range []string{`{"code": ""}`, `{"code": 5}`, fmt.Sprintf(`{"code": %q}`, strings.Repeat("x", MaxCodeBytes+1))} {
		_, err := c.Call(context.Background(), json.RawMessage(raw))
		failed(t, err, tool.CodeInvalidArguments)
	}
	if _, err := New(Options{}).Call(context.Background(), json.RawMessage(`{"code": "print(1)"}`)); err == nil {
		t.Error("a call with no tool caller in its invocation ran")
	}
}

func TestSpec(t *testing.T) {
	s := New(Options{}).Spec()
	if s.Name != "execute_code" || s.Toolset != "code_execution" || s.ParallelSafe || s.Idempotent {
		t.Errorf("spec = %+v", s)
	}
	if s.Timeout <= DefaultTimeout || s.Timeout > DefaultTimeout+time.Minute {
		t.Errorf("timeout = %v", s.Timeout)
	}
	if !json.Valid(s.Parameters) || !strings.Contains(s.Description, "tools.") {
		t.Error("bad parameters or description")
	}
}

func BenchmarkTrivialProgram(b *testing.B) {
	c := newCode(&fake{}, Options{})
	args := json.RawMessage(`{"code": "const r = await tools.nothing({}); print(1 + 1)"}`)
	for b.Loop() {
		if _, err := c.Call(context.Background(), args); err != nil {
			b.Fatal(err)
		}
	}
}
