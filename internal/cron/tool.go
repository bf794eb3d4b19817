package cron

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/hermes-go/hermes/internal/tool"
)

// toolSchema is the cronjob tool's parameters.
const toolSchema = `{"type":"object","properties":{
"action":{"type":"string","enum":["create","list","update","pause","resume","remove","run"],"description":"What to do."},
"name":{"type":"string","description":"The job's name: letters, digits, - _ . (not for list)."},
"schedule":{"type":"string","description":"create/update: a 5-field cron expression (\"0 9 * * MON\"), @daily, every 30m, a time (2026-12-24T09:00) or in 2h."},
"timezone":{"type":"string","description":"IANA zone of the schedule, e.g. Asia/Shanghai; default: the configured one."},
"prompt":{"type":"string","description":"create/update: the instruction the job runs with, as a user message in a fresh session."},
"deliver":{"type":"array","items":{"type":"string"},"description":"Where the result goes, tried in order: wecom:KEY, telegram:CHAT_ID, email:ADDRESS, webhook:URL, local."},
"session_type":{"type":"string","enum":["new","continue"],"description":"new (default): a fresh session per run; continue: one session across runs."}},
"required":["action"]}`

const toolDescription = `Schedule work for later or on a repeat, and manage those jobs: create one (a name, a schedule, the prompt it runs, where to deliver the result), list them with their next runs, update, pause, resume or remove one, or run one now.

Use it when the user asks for something at a time or regularly ("every Monday at 9, send me…", "remind me in 2 hours…"). Not for work to do now: do that directly. Jobs declared in config.yaml are listed but can only be changed there. A job runs without anyone to approve commands, so keep its prompt to safe work.`

// Tool is the cronjob tool: jobs the model creates at run time live in
// state.db beside those of config.yaml.
type Tool struct {
	store JobStore
	run   NowRunner
	// deliver, when set, checks the delivery targets a turn from a
	// source gives a job (see CheckDeliver).
	deliver func(source string, targets []string) error
}

// NowRunner runs a job now, recorded like a scheduled run, and returns its
// output or why it failed (the engine, as "hermes cron run" does).
type NowRunner interface {
	RunJobOutput(ctx context.Context, name string) (string, error)
}

// NewTool returns the cronjob tool over store; run, when not nil, runs
// jobs for its "run" action.
func NewTool(store JobStore, run NowRunner) *Tool {
	return &Tool{store: store, run: run}
}

// CheckDeliver makes the tool ask check before it creates or changes a
// job's delivery targets: check gets the turn's source and the targets,
// and its error, which says what is accepted, refuses them. A front whose
// turns anyone holding a key can start (the HTTP API) keeps a job's
// results from going to an address the caller picked.
func (t *Tool) CheckDeliver(check func(source string, targets []string) error) *Tool {
	t.deliver = check
	return t
}

func (t *Tool) Spec() tool.Spec {
	return tool.Spec{Name: "cronjob", Description: toolDescription, Parameters: json.RawMessage(toolSchema), Toolset: "cron", Timeout: 10 * time.Minute}
}

// Call does what the action says. Inside a scheduled job it refuses: a job
// that schedules jobs could multiply itself.
func (t *Tool) Call(ctx context.Context, raw json.RawMessage) (any, error) {
	if tool.InvocationFrom(ctx).Source == "cron" {
		return nil, tool.Errorf(tool.CodeDenied, "the cronjob tool is not available inside a scheduled job")
	}
	if tool.InvocationFrom(ctx).User != "" {
		// Jobs run as the owner, with the owner's tools, memory and
		// sessions: a job a user scheduled would be a way past their
		// limits.
		return nil, tool.Errorf(tool.CodeDenied, "scheduled jobs are the owner's: they cannot be listed or changed in a user's turn; tell the user to ask the owner")
	}
	var a struct {
		Action, Name, Schedule, Timezone, Prompt string
		Deliver                                  []string
		SessionType                              string `json:"session_type"`
		// Script and NoAgent are not offered, and refused when given.
		Script  *string `json:"script"`
		NoAgent *bool   `json:"no_agent"`
		// Team is not offered either, and refused when given.
		Team *string `json:"team"`
	}
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, tool.Errorf(tool.CodeInvalidArguments, "arguments: %v", err)
	}
	if a.Script != nil || a.NoAgent != nil {
		return nil, tool.Errorf(tool.CodeDenied, "the cronjob tool does not set a job's script or no_agent: a script is a shell "+
			"command that would run later with no one to approve it. Give the job a prompt instead (its turn asks for "+
			"approval as usual), or ask the user to add the script with hermes cron create --script")
	}
	if a.Team != nil {
		return nil, tool.Errorf(tool.CodeDenied, "the cronjob tool does not give a job a team: a team run is many agents' "+
			"turns, unattended, with their tools and memory. Ask the user to run the team with hermes team run, or to "+
			"schedule it with hermes cron create --team")
	}
	if t.deliver != nil && a.Deliver != nil {
		if err := t.deliver(tool.InvocationFrom(ctx).Source, a.Deliver); err != nil {
			return nil, tool.Errorf(tool.CodeDenied, "deliver: %v", err)
		}
	}
	if a.Action != "list" && a.Name == "" {
		return nil, tool.Errorf(tool.CodeInvalidArguments, "name is required for %s", a.Action)
	}
	agent := tool.InvocationFrom(ctx).Agent
	spec := Spec{Schedule: a.Schedule, Timezone: a.Timezone, Prompt: a.Prompt, Deliver: a.Deliver, SessionType: a.SessionType, Agent: agent}
	if a.Action != "list" && a.Action != "create" {
		if err := t.ownJob(ctx, a.Name, agent); err != nil {
			return nil, err
		}
	}
	var job Job
	var err error
	switch a.Action {
	case "list":
		return t.list(ctx, agent)
	case "create":
		if a.Schedule == "" || a.Prompt == "" {
			return nil, tool.Errorf(tool.CodeInvalidArguments, "create needs schedule and prompt")
		}
		job, err = t.store.Create(ctx, Job{Name: a.Name, Spec: spec, Source: SourceTool})
	case "update":
		old, gerr := t.store.Get(ctx, a.Name)
		if gerr != nil {
			return nil, classify(gerr)
		}
		if old.Team != "" {
			return nil, teamJobDenied(old, "changed")
		}
		if old.Memory == MemoryExtract {
			return nil, tool.Errorf(tool.CodeDenied, "job %q feeds long-term memory (memory: extract) and is not changed by the cronjob tool: "+
				"what its runs read becomes what the user is remembered by. Ask the user to change it with hermes cron edit", old.Name)
		}
		merged := old.Spec
		if a.Schedule != "" {
			merged.Schedule = a.Schedule
		}
		if a.Timezone != "" {
			merged.Timezone = a.Timezone
		}
		if a.Prompt != "" {
			merged.Prompt = a.Prompt
		}
		if a.Deliver != nil {
			merged.Deliver = a.Deliver
		}
		if a.SessionType != "" {
			merged.SessionType = a.SessionType
		}
		job, err = t.store.Update(ctx, a.Name, merged)
	case "pause":
		err = t.store.Pause(ctx, a.Name)
	case "resume":
		err = t.store.Resume(ctx, a.Name)
	case "remove":
		if err = t.store.Remove(ctx, a.Name); err == nil {
			return map[string]any{"removed": a.Name}, nil
		}
	case "run":
		if t.run == nil {
			return nil, tool.Errorf(tool.CodeInvalidArguments, "running a job now is not available here")
		}
		if old, gerr := t.store.Get(ctx, a.Name); gerr == nil && old.Team != "" {
			return nil, teamJobDenied(old, "run")
		}
		out, rerr := t.run.RunJobOutput(ctx, a.Name)
		if rerr != nil {
			return nil, classify(rerr)
		}
		return map[string]any{"job": a.Name, "output": out}, nil
	default:
		return nil, tool.Errorf(tool.CodeInvalidArguments, "action %q is not accepted; use create, list, update, pause, resume, remove or run", a.Action)
	}
	if err != nil {
		return nil, classify(err)
	}
	if job.Name == "" {
		if job, err = t.store.Get(ctx, a.Name); err != nil {
			return nil, classify(err)
		}
	}
	return describe(job), nil
}

// list lists the jobs; in a role agent's turn, only the agent's own.
func (t *Tool) list(ctx context.Context, agent string) (any, error) {
	jobs, err := t.store.List(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]map[string]any, 0, len(jobs))
	for _, j := range jobs {
		if agent == "" || j.Agent == agent {
			out = append(out, describe(j))
		}
	}
	return map[string]any{"jobs": out}, nil
}

// ownJob refuses, in a role agent's turn, a job that runs as someone
// else: changing or running it would act with another's tools, memory
// and knowledge bases. Such a job is reported as missing, as list leaves
// it out, so the agent learns nothing of it. Jobs the agent creates run
// as the agent; hermes's own turns may touch every job.
func (t *Tool) ownJob(ctx context.Context, name, agent string) error {
	if agent == "" {
		return nil
	}
	j, err := t.store.Get(ctx, name)
	if err == nil && j.Agent != agent {
		err = fmt.Errorf("cron: job %q: %w", name, ErrNotFound)
	}
	if err != nil {
		return classify(err)
	}
	return nil
}

// describe is a job as the model sees it.
func describe(j Job) map[string]any {
	d := map[string]any{"name": j.Name, "schedule": j.Schedule, "enabled": j.Enabled, "source": j.Source}
	if j.Timezone != "" {
		d["timezone"] = j.Timezone
	}
	if !j.NextRunAt.IsZero() && j.Enabled {
		d["next_run"] = j.NextRunAt.Format(time.RFC3339)
	}
	if len(j.Deliver) > 0 {
		d["deliver"] = j.Deliver
	}
	if j.Team != "" {
		d["team"] = j.Team
	}
	return d
}

// teamJobDenied is the tool's answer to changing or running a job that
// runs a team: that would start the team's unattended run, with a goal
// the model may have chosen.
func teamJobDenied(j Job, what string) error {
	return tool.Errorf(tool.CodeDenied, "job %q runs team %q and is not %s by the cronjob tool: a team run is many agents' "+
		"turns, unattended. It fires on its schedule; ask the user to change or run it with hermes cron edit or hermes cron run", j.Name, j.Team, what)
}

// classify turns a store error into what the model should read.
func classify(err error) error {
	if errors.Is(err, ErrNotFound) {
		return tool.Errorf(tool.CodeNotFound, "%v; list shows the jobs there are", err)
	}
	return tool.Errorf(tool.CodeInvalidArguments, "%s", fmt.Sprint(err))
}
