package team

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/hermes-go/hermes/internal/safety/redact"
	"github.com/hermes-go/hermes/internal/tool"
)

// The bounds of task_wait's timeout.
const (
	defaultWait = 5 * time.Minute
	maxWait     = 30 * time.Minute
)

// maxWaitIDs bounds how many tasks one task_wait names.
const maxWaitIDs = 100

// Scope is what a coordinator's tools may reach: the tasks of one run,
// posted for the team's roles.
type Scope struct {
	Store *Store
	Run   int64
	// Roles are the roles task_post accepts; empty accepts any.
	Roles []string
	// MaxAttempts is a task's tries when task_post names none; zero
	// means DefaultMaxAttempts.
	MaxAttempts int
}

// Tools returns the coordinator's tools over sc: task_post, task_wait and
// artifact_read. Each refuses a task of another run as if it did not
// exist, so a coordinator neither reads nor waits on another run's work.
// What workers wrote (summaries, errors, artifacts) reaches the model with
// the secrets it holds redacted: a worker's output is the text of a turn
// or an error that may quote a key.
func Tools(sc Scope) []tool.Tool {
	return []tool.Tool{postTool{sc}, waitTool{sc}, readTool{sc}}
}

// unknownTask is the error for a task id outside the run, alike for ids
// of other runs and ids that do not exist.
func unknownTask(id int64) error {
	return tool.Errorf(tool.CodeNotFound, "no task %d in this run; use the ids task_post returned", id)
}

// classify turns a store error into what the model reads.
func classify(err error) error {
	if _, ok := tool.AsError(err); ok {
		return err
	}
	if errors.Is(err, ErrNotFound) {
		return tool.Errorf(tool.CodeNotFound, "%s", strings.TrimPrefix(err.Error(), "team: "))
	}
	return tool.Errorf(tool.CodeInvalidArguments, "%s", strings.TrimPrefix(err.Error(), "team: "))
}

// decode unmarshals raw into v, refusing fields the schema does not have.
func decode(raw json.RawMessage, v any) error {
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return tool.Errorf(tool.CodeInvalidArguments, "arguments: %v", err)
	}
	return nil
}

// task is the run's task id, or the not-found error for any other id.
func (sc Scope) task(ctx context.Context, id int64) (Task, error) {
	t, err := sc.Store.Task(ctx, id)
	if errors.Is(err, ErrNotFound) || (err == nil && t.Run != sc.Run) {
		return Task{}, unknownTask(id)
	}
	return t, err
}

type postTool struct{ sc Scope }

func (p postTool) Spec() tool.Spec {
	return tool.Spec{Name: "task_post", Toolset: "team", Timeout: 30 * time.Second,
		Description: "Post a task for one of the team's roles. A worker of that role does it with the description as its prompt and the artifacts of the input tasks beside it. " +
			"inputs name earlier tasks of this run whose outputs the task needs; it starts when all of them are done, and fails if one fails. Returns the task's id, for task_wait and artifact_read. " +
			"Posting a task the run already has (same role, description and inputs, not failed) returns the existing one.",
		Parameters: json.RawMessage(`{"type":"object","properties":{
"role":{"type":"string","description":"The role whose workers do the task."},
"description":{"type":"string","description":"What to do, complete enough to act on without this conversation."},
"inputs":{"type":"array","items":{"type":"integer"},"description":"Ids of earlier tasks of this run whose artifacts the task takes."},
"max_attempts":{"type":"integer","minimum":1,"maximum":20,"description":"How many times the task may be tried; default 3."}},
"required":["role","description"],"additionalProperties":false}`)}
}

func (p postTool) Call(ctx context.Context, raw json.RawMessage) (any, error) {
	var a struct {
		Role        string  `json:"role"`
		Description string  `json:"description"`
		Inputs      []int64 `json:"inputs"`
		MaxAttempts int     `json:"max_attempts"`
	}
	if err := decode(raw, &a); err != nil {
		return nil, err
	}
	if len(p.sc.Roles) > 0 && !slices.Contains(p.sc.Roles, a.Role) {
		return nil, tool.Errorf(tool.CodeInvalidArguments, "role %q is not one of this team's; use one of %s", a.Role, strings.Join(p.sc.Roles, ", "))
	}
	if a.MaxAttempts == 0 {
		a.MaxAttempts = p.sc.MaxAttempts
	}
	t, had, err := p.sc.Store.PostOnce(ctx, p.sc.Run, Post{Role: a.Role, Description: a.Description, Inputs: a.Inputs, MaxAttempts: a.MaxAttempts})
	if err != nil {
		return nil, classify(err)
	}
	out := map[string]any{"task": t.ID, "role": t.Role, "state": t.State, "inputs": t.Inputs}
	if had {
		out["note"] = "this run already has this task; its id is returned and it is not done again"
	}
	return out, nil
}

type waitTool struct{ sc Scope }

func (w waitTool) Spec() tool.Spec {
	return tool.Spec{Name: "task_wait", Toolset: "team", ParallelSafe: true, Timeout: maxWait + time.Minute,
		Description: "Wait until the given tasks are finished (done, failed or cancelled), or the timeout passes, and return each one's state, summary, error and artifact names. " +
			"Read an artifact's content with artifact_read.",
		Parameters: json.RawMessage(`{"type":"object","properties":{
"ids":{"type":"array","items":{"type":"integer"},"minItems":1,"maxItems":100,"description":"Ids of tasks of this run."},
"timeout_seconds":{"type":"integer","minimum":1,"maximum":1800,"description":"How long to wait at most; default 300."}},
"required":["ids"],"additionalProperties":false}`)}
}

func (w waitTool) Call(ctx context.Context, raw json.RawMessage) (any, error) {
	var a struct {
		IDs     []int64 `json:"ids"`
		Timeout int     `json:"timeout_seconds"`
	}
	if err := decode(raw, &a); err != nil {
		return nil, err
	}
	if len(a.IDs) == 0 || len(a.IDs) > maxWaitIDs {
		return nil, tool.Errorf(tool.CodeInvalidArguments, "ids has %d entries; give 1 to %d task ids", len(a.IDs), maxWaitIDs)
	}
	timeout := defaultWait
	if a.Timeout != 0 {
		timeout = time.Duration(a.Timeout) * time.Second
		if timeout < time.Second || timeout > maxWait {
			return nil, tool.Errorf(tool.CodeInvalidArguments, "timeout_seconds %d is not accepted; use 1 to %d", a.Timeout, int(maxWait.Seconds()))
		}
	}
	for _, id := range a.IDs {
		if _, err := w.sc.task(ctx, id); err != nil {
			return nil, err
		}
	}
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	timer := w.sc.Store.clk.AfterFunc(timeout, cancel)
	defer timer.Stop()
	ts, err := w.sc.Store.Wait(wctx, w.sc.Run, a.IDs)
	if err != nil && (ctx.Err() != nil || ts == nil) {
		return nil, classify(err)
	}
	out := make([]map[string]any, len(ts))
	for i, t := range ts {
		out[i], err = w.describe(ctx, t)
		if err != nil {
			return nil, err
		}
	}
	res := map[string]any{"finished": allFinished(ts), "tasks": out}
	if !allFinished(ts) {
		res["note"] = fmt.Sprintf("not every task finished within %v; call task_wait again to keep waiting", timeout)
	}
	return res, nil
}

// describe is a task as the coordinator sees it.
func (w waitTool) describe(ctx context.Context, t Task) (map[string]any, error) {
	d := map[string]any{"task": t.ID, "role": t.Role, "state": t.State, "attempts": t.Attempts}
	if t.Summary != "" {
		d["summary"] = redact.Secrets(t.Summary)
	}
	if t.Error != "" {
		d["error"] = redact.Secrets(t.Error)
	}
	if t.State == StateDone {
		as, err := w.sc.Store.Artifacts(ctx, t.ID)
		if err != nil {
			return nil, err
		}
		names := make([]map[string]any, len(as))
		for i, a := range as {
			names[i] = map[string]any{"name": a.Name, "kind": a.Kind, "size": a.Size}
		}
		d["artifacts"] = names
	}
	return d, nil
}

type readTool struct{ sc Scope }

func (r readTool) Spec() tool.Spec {
	return tool.Spec{Name: "artifact_read", Toolset: "team", ParallelSafe: true, Idempotent: true, Timeout: 30 * time.Second,
		Description: "Read an artifact a finished task of this run left: the text or JSON it holds, or a file's path and size. Without a name, list the task's artifacts.",
		Parameters: json.RawMessage(`{"type":"object","properties":{
"task":{"type":"integer","description":"The task's id."},
"name":{"type":"string","description":"The artifact's name, as task_wait lists it."}},
"required":["task"],"additionalProperties":false}`)}
}

func (r readTool) Call(ctx context.Context, raw json.RawMessage) (any, error) {
	var a struct {
		Task int64  `json:"task"`
		Name string `json:"name"`
	}
	if err := decode(raw, &a); err != nil {
		return nil, err
	}
	if _, err := r.sc.task(ctx, a.Task); err != nil {
		return nil, err
	}
	if a.Name == "" {
		as, err := r.sc.Store.Artifacts(ctx, a.Task)
		if err != nil {
			return nil, err
		}
		names := make([]string, len(as))
		for i, x := range as {
			names[i] = x.Name
		}
		return map[string]any{"task": a.Task, "artifacts": names}, nil
	}
	x, err := r.sc.Store.Artifact(ctx, a.Task, a.Name)
	if errors.Is(err, ErrNotFound) {
		return nil, tool.Errorf(tool.CodeNotFound, "task %d has no artifact %q; call artifact_read with only the task to list its artifacts", a.Task, a.Name)
	}
	if err != nil {
		return nil, err
	}
	d := map[string]any{"task": x.Task, "name": x.Name, "kind": x.Kind, "size": x.Size}
	switch x.Kind {
	case KindFile:
		d["path"] = x.Path
	case KindJSON:
		// Redaction keeps a JSON document valid unless a secret spans its
		// syntax; then the model gets the redacted text as a string.
		if c := redact.Secrets(x.Content); json.Valid([]byte(c)) {
			d["content"] = json.RawMessage(c)
		} else {
			d["content"] = c
		}
	default:
		d["content"] = redact.Secrets(x.Content)
	}
	return d, nil
}
