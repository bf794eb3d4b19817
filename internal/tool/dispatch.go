package tool

import (
	"context"
	"encoding/json"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hermes-go/hermes/internal/clock"
	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/safety"
)

// Defaults of a Dispatcher whose fields are zero.
const (
	// DefaultTimeout bounds one attempt of a tool that sets no timeout: a
	// hung service must not hold the turn (seed 003 §3.2).
	DefaultTimeout = 30 * time.Second
	// DefaultMaxOutput caps a serialized result, in characters, so one
	// verbose tool cannot fill the model's context.
	DefaultMaxOutput = 100_000
	// DefaultMaxParallel bounds how many calls of one batch run at once.
	DefaultMaxParallel = 8
)

// Dispatcher is the execution layer: it runs the tool calls of one model
// reply and turns each into the envelope the model reads. Nothing a tool or
// the model does escapes it as a panic or an error: unknown names, bad
// arguments, failures, timeouts and cancellation all become results. Its
// fields are configuration, set before the first Run; a Dispatcher is safe
// for concurrent use by several turns.
type Dispatcher struct {
	// Registry resolves names, prepares arguments and holds the tools;
	// pass the result of Registry.Select to honour the toolset selection.
	Registry *Registry
	// DefaultTimeout bounds one attempt of a tool whose spec and override
	// set none; zero means DefaultTimeout (30 s).
	DefaultTimeout time.Duration
	// MaxOutput caps a serialized result in characters for tools whose
	// spec and override set none; zero means DefaultMaxOutput.
	MaxOutput int
	// Overrides adjusts single tools by name, from configuration.
	Overrides map[string]Override
	// MaxParallel bounds concurrent calls in one batch; zero means
	// DefaultMaxParallel.
	MaxParallel int
	// Clock times the waits between retries, which end early with ctx's
	// error when ctx ends; nil means the real clock. Tests pass a fake.
	Clock clock.Clock
	// Redact, when set, is applied to every serialized result and error
	// message before the model, the observer or the log sees it, so
	// secret values a tool printed do not leave the process.
	Redact func(string) string
	// Logger gets one line per call (tool, duration_ms, status,
	// error_code; never argument values, which may hold secrets). Nil
	// means no logging.
	Logger *slog.Logger
	// Hooks, when set, run before each call (and may block it or rewrite
	// its arguments) and after it.
	Hooks CallHooks
	// Audit, when set, hears of every call when it ends, run or not:
	// the audit log's entry.
	Audit func(ctx context.Context, c Audited)

	// calls numbers the calls tools make through the invocation's
	// Caller, so each has an id of its own in logs.
	calls atomic.Int64
}

// Override replaces parts of one tool's spec from configuration. Zero
// fields keep the tool's own values; Retry applies when Retry.Attempts is
// set (1 disables retries).
type Override struct {
	Timeout   time.Duration
	Retry     Retry
	MaxOutput int
}

// Outcome is the answer to one call.
type Outcome struct {
	// Call is the call as the model made it.
	Call llm.ToolCall
	// Name is the canonical name of the tool that ran, or the called name
	// when none matched.
	Name string
	// Result is the tool's result before any output cut.
	Result Result
	// Content is the serialized envelope the model sees, cut to the
	// output limit.
	Content string
	// Truncated reports that Content was cut to fit the output limit.
	Truncated bool
	// Duration covers every attempt and the waits between them.
	Duration time.Duration
	// Attempts counts the tries; zero when the call never ran.
	Attempts int
}

// Observer hears about calls as they run, for progress display. Every
// call of a batch gets exactly one ToolStarted followed by one
// ToolFinished, also calls that fail before running. The Dispatcher never
// calls an Observer from two goroutines at once; i is the call's index in
// the batch.
type Observer interface {
	ToolStarted(i int, c llm.ToolCall)
	ToolFinished(i int, o Outcome)
}

// Run executes a batch of calls and returns one Outcome per call, in call
// order. Calls of ParallelSafe tools run together, path-scoped calls run
// together when their paths do not overlap, and any other tool runs alone,
// because it may touch anything. The invocation in ctx (WithInvocation) reaches each
// tool with its CallID set. When ctx is cancelled Run returns promptly:
// calls not started are answered "interrupted", running ones see their
// context cancelled and are answered "interrupted" without waiting for a
// tool that ignores its context.
func (d *Dispatcher) Run(ctx context.Context, calls []llm.ToolCall, obs Observer) []Outcome {
	outs := make([]Outcome, len(calls))
	if len(calls) == 0 {
		return outs
	}
	o := &lockedObserver{obs: obs}
	inv := InvocationFrom(ctx)
	jobs := make([]*job, len(calls))
	for i, c := range calls {
		jobs[i] = d.prepare(ctx, i, c, inv.Workdir)
	}
	d.schedule(ctx, jobs, outs, o)
	return outs
}

// job is one call on its way through the dispatcher.
type job struct {
	index int
	call  llm.ToolCall
	name  string
	entry *entry
	args  json.RawMessage
	// early is set when the call failed before it could run.
	early *Result
	class class
	path  string
	deps  []int
}

// prepare resolves the name and the arguments of a call, lets the
// pre_tool_call hooks block or rewrite it, and classifies it for
// scheduling by the arguments it will run with.
func (d *Dispatcher) prepare(ctx context.Context, i int, c llm.ToolCall, workdir string) *job {
	j := &job{index: i, call: c, name: c.Name}
	_, canon, ok := d.Registry.Resolve(c.Name)
	var e *entry
	if ok {
		e, ok = d.Registry.lookup(canon)
	}
	if !ok {
		res := d.Registry.UnknownToolResult(c.Name)
		j.early = &res
		return j
	}
	j.name, j.entry = canon, e
	args, perr := e.schema.Prepare(c.Arguments)
	if perr != nil {
		res := Result{Status: StatusError, ErrorCode: perr.Code, Message: perr.Message, Data: perr.Data}
		j.early = &res
		return j
	}
	if d.Hooks != nil {
		rewritten, block := d.Hooks.BeforeCall(ctx, canon, args)
		if block != "" {
			res := hookBlocked(canon, block)
			j.early = &res
			return j
		}
		if args, perr = e.schema.Prepare(string(rewritten)); perr != nil {
			res := hookRewroteBadly(canon, perr.Message)
			j.early = &res
			return j
		}
	}
	j.args = args
	j.class, j.path = classify(e.spec, args, workdir)
	return j
}

// finishEarly answers a call that never ran.
func (d *Dispatcher) finishEarly(ctx context.Context, j *job, res Result, o *lockedObserver) Outcome {
	out := Outcome{Call: j.call, Name: j.name, Result: res}
	out.Content, out.Truncated = render(res, d.maxOutput(j))
	o.started(j.index, j.call)
	d.log(ctx, out)
	d.audit(ctx, j, out, nil)
	o.finished(j.index, out)
	return out
}

// execute runs a prepared call with its invocation, timeout and retries.
func (d *Dispatcher) execute(ctx context.Context, j *job, o *lockedObserver) Outcome {
	o.started(j.index, j.call)
	inv := InvocationFrom(ctx)
	inv.CallID = j.call.ID
	inv.Caller = dispatchCaller{d}
	ctx = WithInvocation(ctx, inv)
	var note *safety.Note
	if d.Audit != nil {
		ctx, note = safety.WithNote(ctx)
	}
	start := time.Now()
	res, attempts := d.callWithRetry(ctx, j)
	if d.Redact != nil {
		res = redactResult(res, d.Redact)
	}
	out := Outcome{Call: j.call, Name: j.name, Result: res, Duration: time.Since(start), Attempts: attempts}
	out.Content, out.Truncated = render(res, d.maxOutput(j))
	d.log(ctx, out)
	d.audit(ctx, j, out, note)
	if d.Hooks != nil {
		d.Hooks.AfterCall(ctx, j.name, j.args, out.Content)
	}
	o.finished(j.index, out)
	return out
}

// log writes the call's one line. Argument values stay out of it: they may
// carry tokens and passwords.
func (d *Dispatcher) log(ctx context.Context, o Outcome) {
	if d.Logger == nil {
		return
	}
	d.Logger.LogAttrs(context.WithoutCancel(ctx), slog.LevelInfo, "tool call",
		slog.String("tool", o.Name),
		slog.String("call_id", o.Call.ID),
		slog.Float64("duration_ms", float64(o.Duration.Microseconds())/1000),
		slog.String("status", string(o.Result.Status)),
		slog.String("error_code", string(o.Result.ErrorCode)),
		slog.Int("attempts", o.Attempts),
		slog.Bool("truncated", o.Truncated))
}

// lockedObserver serializes an optional Observer.
type lockedObserver struct {
	mu  sync.Mutex
	obs Observer
}

func (l *lockedObserver) started(i int, c llm.ToolCall) {
	if l.obs == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.obs.ToolStarted(i, c)
}

func (l *lockedObserver) finished(i int, o Outcome) {
	if l.obs == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.obs.ToolFinished(i, o)
}
