package engine

import (
	"context"
	"encoding/json"
	"slices"
	"time"

	"github.com/hermes-go/hermes/internal/tool"
)

// Delegation configures delegate_task: how far a turn may hand work to
// child agents, each its own session and loop.
type Delegation struct {
	// MaxIterations is each child's iteration budget (50 when zero).
	MaxIterations int
	// MaxConcurrent bounds the children of one call running at once (3
	// when zero); the others wait for a slot.
	MaxConcurrent int
	// MaxDepth is how many levels of children there may be below a turn
	// started by a person (1 when zero): with 1, children cannot delegate.
	MaxDepth int
	// ChildTimeout ends a child that runs longer (10 minutes when zero).
	ChildTimeout time.Duration
	// IdleTimeout ends a child that shows no progress (no model output,
	// no tool call) for this long (3 minutes when zero).
	IdleTimeout time.Duration
	// Model, when set, is the model children call instead of the main
	// one (delegation.provider and model).
	Model *Model
	// ParentApproves lets children's dangerous commands be approved by
	// whoever approves the parent's; otherwise they are denied, since
	// nobody watches a child.
	ParentApproves bool
}

// withDefaults fills the zero fields.
func (d Delegation) withDefaults() Delegation {
	if d.MaxIterations <= 0 {
		d.MaxIterations = 50
	}
	if d.MaxConcurrent <= 0 {
		d.MaxConcurrent = 3
	}
	if d.MaxDepth <= 0 {
		d.MaxDepth = 1
	}
	if d.ChildTimeout <= 0 {
		d.ChildTimeout = 10 * time.Minute
	}
	if d.IdleTimeout <= 0 {
		d.IdleTimeout = 3 * time.Minute
	}
	return d
}

// childSource is the source of a child's session.
const childSource = "delegate"

// DelegateToolName is the tool's name; it is never offered to a child
// that may not delegate.
const DelegateToolName = "delegate_task"

// childBlocked are the tools no child is offered whatever the parent has:
// ones that write lasting state shared with the person (memory, jobs,
// skills, which every later session reads),
// run arbitrary programs that call tools behind the child's back, or ask
// a person, who is not watching a child.
var childBlocked = []string{DelegateToolName, "memory", "cronjob", "skill_manage", "execute_code", "clarify", "send_message"}

// Roles of a child.
const (
	roleLeaf         = "leaf"
	roleOrchestrator = "orchestrator"
)

// maxSummary bounds each child's summary returned to the parent.
const maxSummary = 24000

// delegateTool is delegate_task.
type delegateTool struct {
	e   *Engine
	cfg Delegation
}

// DelegateTool returns delegate_task, which runs child agents through
// this engine; register it in the registry the engine was built with.
func (e *Engine) DelegateTool() tool.Tool {
	return &delegateTool{e: e, cfg: e.opt.Delegation.withDefaults()}
}

// maxTasks is how many tasks one call may hand out: three rounds of
// concurrent children, so one call cannot queue work without end.
func (d *delegateTool) maxTasks() int { return 3 * d.cfg.MaxConcurrent }

// Spec describes delegate_task in Hermes's terms.
func (d *delegateTool) Spec() tool.Spec {
	rounds := (d.maxTasks() + d.cfg.MaxConcurrent - 1) / d.cfg.MaxConcurrent
	return tool.Spec{
		Name:    DelegateToolName,
		Toolset: "delegation",
		Description: "Hand self-contained work to child agents that run in their own sessions and report back. " +
			"Give either one goal, or tasks (run in parallel) each with its own goal. Children do not see this " +
			"conversation: put everything they need in context. They cannot ask the user anything, use memory, " +
			"schedule jobs or run code, and have only the tools you have. Each result says the child's status " +
			"(completed, failed, timed out, interrupted), its session id and a summary.",
		Parameters: json.RawMessage(`{"type":"object","properties":{` +
			`"goal":{"type":"string","description":"What the single child must achieve."},` +
			`"context":{"type":"string","description":"Everything the child needs to know: files, facts, constraints."},` +
			`"tasks":{"type":"array","description":"Several tasks run in parallel; each result comes back in this order.","items":{"type":"object","properties":{` +
			`"goal":{"type":"string"},"context":{"type":"string"},"role":{"type":"string","enum":["leaf","orchestrator"]}},"required":["goal"]}},` +
			`"role":{"type":"string","enum":["leaf","orchestrator"],"description":"leaf (default) works alone; orchestrator may delegate further where depth allows."}}}`),
		Timeout:   time.Duration(rounds)*d.cfg.ChildTimeout + time.Minute,
		MaxOutput: d.maxTasks()*(maxSummary+1024) + 1024,
	}
}

// task is one child's assignment.
type task struct {
	Goal    string `json:"goal"`
	Context string `json:"context"`
	Role    string `json:"role"`
}

// delegateArgs are delegate_task's arguments.
type delegateArgs struct {
	task
	Tasks []task `json:"tasks"`
}

// tasks returns the assignments of a, checked: each needs a goal and a
// known role, and there may not be more than maxTasks.
func (d *delegateTool) tasks(a delegateArgs) ([]task, error) {
	list := a.Tasks
	if len(list) == 0 {
		list = []task{a.task}
	} else if a.Goal != "" {
		return nil, tool.Errorf(tool.CodeInvalidArguments, "give either goal or tasks, not both; put the single goal into tasks as one more entry")
	}
	if len(list) > d.maxTasks() {
		return nil, tool.Errorf(tool.CodeInvalidArguments, "tasks has %d entries; at most %d are accepted (delegation.max_concurrent_children × 3): split the work into several calls", len(list), d.maxTasks())
	}
	for i := range list {
		t := &list[i]
		if t.Role == "" {
			t.Role = a.Role
		}
		if t.Role == "" {
			t.Role = roleLeaf
		}
		if t.Role != roleLeaf && t.Role != roleOrchestrator {
			return nil, tool.Errorf(tool.CodeInvalidArguments, "tasks[%d].role %q is not accepted; use leaf or orchestrator", i, t.Role)
		}
		if t.Goal == "" {
			return nil, tool.Errorf(tool.CodeInvalidArguments, "tasks[%d].goal is empty; every task needs a goal saying what the child must achieve", i)
		}
	}
	return list, nil
}

// depthKey carries in a turn's context how many delegations deep it runs.
type depthKey struct{}

// depthOf is the delegation depth of ctx: 0 for a turn a person or a job
// started. It comes from the context the engine set, never from a task's
// text, so a child cannot claim to be shallower than it is.
func depthOf(ctx context.Context) int {
	d, _ := ctx.Value(depthKey{}).(int)
	return d
}

// childTools is the registry a child is offered: the tools its parent is
// offered, less the blocked ones; delegate_task stays only for an
// orchestrator that may still delegate. A tool the engine does not hold
// by name (a session's own MCP tools) is not passed on; one it holds is
// passed on as the parent has it, so a role agent's own tool (a scoped
// kb_search) does not turn back into hermes's in its children.
func (d *delegateTool) childTools(parent []tool.Tool, mayDelegate bool) (*tool.Registry, error) {
	reg := tool.NewRegistry()
	for _, t := range parent {
		name := t.Spec().Name
		if slices.Contains(childBlocked, name) && !(mayDelegate && name == DelegateToolName) {
			continue
		}
		if _, ok := d.e.opt.Tools.Registry.Get(name); !ok {
			continue
		}
		if err := reg.Register(t); err != nil {
			return nil, err
		}
	}
	return reg, nil
}

// toolsCaller is a Caller that hands out the tools it offers, as the
// dispatcher's does.
type toolsCaller interface{ Tools() []tool.Tool }

// offeredBy returns the tools c offers: its own when it hands them out,
// else hermes's of the names it lists.
func (d *delegateTool) offeredBy(c tool.Caller) []tool.Tool {
	if c == nil {
		return nil
	}
	if tc, ok := c.(toolsCaller); ok {
		return tc.Tools()
	}
	var out []tool.Tool
	for _, name := range c.ToolNames() {
		if t, ok := d.e.opt.Tools.Registry.Get(name); ok {
			out = append(out, t)
		}
	}
	return out
}
