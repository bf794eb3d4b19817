// Package code is the built-in "execute_code" tool: programmatic tool
// calling. The model writes a short JavaScript program that calls other
// hermes tools as functions, loops and filters over their results, and
// prints only what it needs; the intermediate results never enter the
// conversation, which saves both model turns and context.
//
// Programs run in goja, a JavaScript interpreter written in Go, so there is
// no subprocess and nothing to install. The interpreter has no file,
// network, process or timer access of its own: the only way out is the
// tools object, whose calls go through the tool.Caller of the call's
// invocation — the dispatcher that runs execute_code — so the tools offered
// to the turn, and the dispatcher's validation, timeouts and approval rules,
// apply to every call a program makes.
package code

import (
	"context"
	_ "embed"
	"encoding/json"
	"slices"
	"time"

	"github.com/hermes-go/hermes/internal/tool"
)

//go:embed description.md
var description string

// Name is the tool's name; it is never bound inside a program, so a program
// cannot start another program.
const Name = "execute_code"

// Defaults of Options fields left zero.
const (
	// DefaultTimeout bounds one program's run, tool calls included.
	DefaultTimeout = 300 * time.Second
	// DefaultMaxCalls bounds the tool calls of one program, so a runaway
	// loop cannot hammer a service or the file system.
	DefaultMaxCalls = 50
	// DefaultMaxOutput caps, in bytes, what a program's prints return to
	// the model.
	DefaultMaxOutput = 50_000
	// MaxCodeBytes caps the program text; a longer program is a sign the
	// model should write a file and run it some other way.
	MaxCodeBytes = 200_000
)

// Options configure the tool. Zero limits take the defaults above.
type Options struct {
	// Timeout bounds one program's run.
	Timeout time.Duration
	// MaxCalls bounds the tool calls of one program.
	MaxCalls int
	// MaxOutput caps the printed output returned, in bytes.
	MaxOutput int
}

// Result is the data of a finished program, and also the data of the
// error envelope when a program fails, so the model sees what was printed
// before the failure.
type Result struct {
	// Output is everything the program printed, one line per print call.
	Output string `json:"output"`
	// ToolCalls counts the tool calls the program made, failed ones
	// included.
	ToolCalls int `json:"tool_calls"`
	// Truncated reports that Output was cut at the output cap.
	Truncated bool `json:"truncated,omitempty"`
}

// Code is the execute_code tool. It keeps no state between calls and is
// safe for concurrent use; each call gets a fresh interpreter.
type Code struct {
	opts Options
}

// New returns the tool with opts, filling zero limits with defaults.
func New(opts Options) *Code {
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	if opts.MaxCalls <= 0 {
		opts.MaxCalls = DefaultMaxCalls
	}
	if opts.MaxOutput <= 0 {
		opts.MaxOutput = DefaultMaxOutput
	}
	return &Code{opts: opts}
}

// Spec describes the tool. A program may call tools that change things, so
// calls neither run beside others nor get retried. The dispatcher's
// timeout sits a little above the run limit so that the program's own
// limit, which keeps the output printed so far, is the one that fires.
func (c *Code) Spec() tool.Spec {
	return tool.Spec{
		Name:        Name,
		Description: description,
		Parameters:  schema,
		Toolset:     "code_execution",
		Timeout:     c.opts.Timeout + 10*time.Second,
		// JSON escaping can double the printed bytes; the program's own
		// cap, which marks the cut, should be the one that applies.
		MaxOutput: 2*c.opts.MaxOutput + 4096,
	}
}

var schema = json.RawMessage(`{
  "type": "object",
  "properties": {
    "code": {
      "type": "string",
      "description": "JavaScript program to run. Call tools as tools.<name>({...args}) (await is optional); print results with print(...) or console.log(...). Only printed output is returned."
    }
  },
  "required": ["code"]
}`)

type args struct {
	Code string `json:"code"`
}

// Call runs the program and returns a Result. A syntax error is
// invalid_arguments with the line and column; an uncaught exception is an
// error carrying the exception and the Result so far; running out of time
// is timeout, and cancellation of the turn is interrupted.
func (c *Code) Call(ctx context.Context, raw json.RawMessage) (any, error) {
	var a args
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, tool.Errorf(tool.CodeInvalidArguments, "arguments must be an object with a string code: %v", err)
	}
	if len(a.Code) == 0 {
		return nil, tool.Errorf(tool.CodeInvalidArguments, "code is empty; give a JavaScript program")
	}
	if len(a.Code) > MaxCodeBytes {
		return nil, tool.Errorf(tool.CodeInvalidArguments, "code is %d bytes; at most %d are accepted", len(a.Code), MaxCodeBytes)
	}
	caller := tool.InvocationFrom(ctx).Caller
	if caller == nil {
		return nil, tool.Errorf(tool.CodeUpstreamUnavailable, "execute_code can call no tools here: it runs only through a tool dispatcher")
	}
	return c.run(ctx, caller, a.Code)
}

// allowed returns the names a program may call through caller, without
// execute_code, asked once per run so that a toolset change applies to the
// next program.
func allowed(caller tool.Caller) []string {
	names := slices.Clone(caller.ToolNames())
	names = slices.DeleteFunc(names, func(n string) bool { return n == "" || n == Name })
	slices.Sort(names)
	return slices.Compact(names)
}
