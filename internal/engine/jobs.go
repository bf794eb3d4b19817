package engine

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/hermes-go/hermes/internal/cron"
	"github.com/hermes-go/hermes/internal/logctx"
	"github.com/hermes-go/hermes/internal/notify"
	"github.com/hermes-go/hermes/internal/safety"
	"github.com/hermes-go/hermes/internal/team"
	"github.com/hermes-go/hermes/internal/tool"
)

// silentPrefix starts a reply that is stored but not delivered.
const silentPrefix = "[SILENT]"

// Jobs is what scheduled job runs need.
type Jobs struct {
	// Store records the runs RunJobNow starts (the cronjob tool, hermes
	// cron run); the scheduler records its own.
	Store *cron.Store
	// Notifier delivers a run's result along the job's chain.
	Notifier *notify.Notifier
	// Inactivity stops a run that has shown no progress this long
	// (scheduler.inactivity_timeout); zero never stops one.
	Inactivity time.Duration
	// Approval decides on dangerous commands in a job's turn, where
	// nobody can be asked (approvals.cron_mode).
	Approval safety.Asker
	// ScriptEnv returns the environment a job's script runs with. app
	// gives the terminal's, so a script sees what a terminal command sees
	// (no provider keys or secrets; terminal.env_passthrough applies);
	// nil means hermes's own without every variable whose name looks
	// secret.
	ScriptEnv func() []string
	// Expand resolves the ${VAR} references of a script declared in
	// config.yaml when it runs (they are kept as written at load, so a
	// secret is not stored with the job); nil leaves scripts as they are.
	// Scripts of jobs made at run time are never expanded by hermes: the
	// shell sees them with the scrubbed environment.
	Expand func(string) string
}

// RunJob runs a scheduled job once: its script, then a turn of the agent
// in a fresh session (or the job's own), then delivery of the reply along
// its chain, ending in the local file. A run that fails is delivered too,
// as a failure notice, so a broken job is never silent; a run stopped by
// shutdown is recorded, not announced. It has the shape of cron.Runner.
func (e *Engine) RunJob(ctx context.Context, job cron.Job, scheduled time.Time) cron.RunResult {
	log := e.opt.Logger.With("job", job.Name)
	start := e.opt.Clock.Now()
	res := e.runJob(ctx, job, log)
	if res.Err == nil && strings.HasPrefix(strings.TrimSpace(res.Output), silentPrefix) {
		res.Status = cron.StatusSilent
	}
	if res.Err != nil && ctx.Err() != nil {
		// The next start shows it in the history.
		res.Err = fmt.Errorf("interrupted by shutdown: %w", res.Err)
		return res
	}
	if res.Status == cron.StatusSilent {
		log.Info("job run finished silently", "session_id", res.SessionID, "duration_ms", e.opt.Clock.Now().Sub(start).Milliseconds())
		e.jobMemory(ctx, job, res)
		return res
	}
	delivered := DeliverRun(ctx, e.opt.Jobs.Notifier, job, scheduled, &res)
	log.Info("job run finished", "session_id", res.SessionID, "delivered", delivered, "failed", res.Err != nil,
		"duration_ms", e.opt.Clock.Now().Sub(start).Milliseconds())
	e.jobMemory(ctx, job, res)
	return res
}

// jobExtractTimeout bounds the extraction after a job's run: the run is
// delivered already, and the job's process waits for it before exiting.
const jobExtractTimeout = 2 * time.Minute

// jobMemory extracts the lasting facts of a job's run into long-term
// memory, when the job asks for it (memory: extract) and the run was an
// agent's turn that went through. It runs before RunJob returns: a job's
// process ends with its run.
func (e *Engine) jobMemory(ctx context.Context, job cron.Job, res cron.RunResult) {
	if job.Memory != cron.MemoryExtract || job.Team != "" || res.SessionID == "" || res.Err != nil {
		return
	}
	if lt := e.opt.LongTerm; lt == nil || lt.Model.Provider == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), jobExtractTimeout)
	defer cancel()
	e.extract(ctx, res.SessionID)
}

// RunJobNow runs the job called name now, recorded in the job's history
// like a scheduled run, and returns the result (hermes cron run, the
// cronjob tool's "run").
func (e *Engine) RunJobNow(ctx context.Context, name string) (cron.RunResult, error) {
	run, err := e.startJobRun(ctx, name)
	if err != nil {
		return cron.RunResult{}, err
	}
	return run.finish(ctx)
}

// RunJobOutput is RunJobNow for the cronjob tool: the run's output, and
// its failure as the error.
func (e *Engine) RunJobOutput(ctx context.Context, name string) (string, error) {
	res, err := e.RunJobNow(ctx, name)
	if err == nil {
		err = res.Err
	}
	return res.Output, err
}

// DeliverRun sends a run's result along the job's chain, or when the run
// failed a notice saying so, records every attempt on res and returns the
// target that took it. A chain that does not parse still leaves the
// result in the local file.
func DeliverRun(ctx context.Context, n *notify.Notifier, job cron.Job, scheduled time.Time, res *cron.RunResult) string {
	text := res.Output
	if res.Err != nil {
		text = fmt.Sprintf("hermes: the scheduled job %q failed at %s: %v", job.Name, cron.FireTime(scheduled, job.Timezone), res.Err)
		if res.Output != "" {
			text += "\n\nOutput so far:\n" + res.Output
		}
	}
	chain, err := n.ParseChain(job.Deliver)
	if err != nil {
		res.Err = errors.Join(res.Err, err)
		chain = nil
	}
	msg := notify.Message{Title: job.Name, Text: text, Job: job.Name, RunID: scheduled.Format(time.RFC3339),
		Full: "hermes cron show " + job.Name}
	if res.SessionID != "" {
		msg.Full = "hermes sessions show " + res.SessionID
	}
	rep := n.Deliver(context.WithoutCancel(ctx), chain, msg)
	for _, a := range rep.Attempts {
		res.Deliveries = append(res.Deliveries, cron.Delivery{Target: a.Target, OK: a.Status == "ok", Error: a.Error})
	}
	return rep.Delivered
}

// runJob runs the job's script and agent turn under the inactivity
// watchdog, without delivering.
func (e *Engine) runJob(ctx context.Context, job cron.Job, log *slog.Logger) cron.RunResult {
	ctx = logctx.With(ctx, slog.String("job", job.Name))
	var scriptOut string
	if job.Script != "" {
		script := job.Script
		if job.Source == cron.SourceConfig && e.opt.Jobs.Expand != nil {
			script = e.opt.Jobs.Expand(script)
		}
		out, err := e.runScript(ctx, script)
		if err != nil {
			log.Warn("job script failed", "error", err)
			return cron.RunResult{Err: fmt.Errorf("script: %w", err), Output: out}
		}
		scriptOut = out
	}
	if job.NoAgent {
		return cron.RunResult{Output: scriptOut}
	}
	if _, err := e.opt.Models.Model(job.Model); err != nil {
		if job.Model == "" {
			err = fmt.Errorf("the job needs a model: %w", err)
		}
		return cron.RunResult{Err: err}
	}
	text, err := e.jobPrompt(job, scriptOut)
	if err != nil {
		return cron.RunResult{Err: err}
	}
	if job.Team != "" {
		return e.runTeamJob(ctx, job, text)
	}
	sid := ""
	if job.SessionType == cron.SessionContinue {
		sid = job.SessionID
	}
	wctx, dog := newWatchdog(ctx, e.opt.Clock, e.opt.Jobs.Inactivity)
	defer dog.Stop()
	in := Input{Text: text, Source: "cron", Toolsets: job.Toolsets, Model: job.Model, Agent: job.Agent, Approval: e.opt.Jobs.Approval}
	// A job run from inside a turn (the cronjob tool's "run") asks whoever
	// that turn asks: approvals.cron_mode is for nobody's turns, and a
	// model must not get past its own turn's approvals by scheduling the
	// command and running the job.
	if ap := tool.InvocationFrom(ctx).Approver; ap != nil {
		in.Approver = ap
	}
	turn, err := e.Turn(wctx, sid, in, dog)
	// The watchdog's reason is the run's, whatever step it cut short.
	cause := context.Cause(wctx)
	if !errors.As(cause, new(errInactive)) {
		cause = nil
	}
	if err != nil {
		if cause != nil {
			err = cause
		}
		return cron.RunResult{Err: err}
	}
	res := cron.RunResult{SessionID: turn.SessionID, Output: turn.Final}
	switch {
	case cause != nil:
		res.Err = cause
	case turn.Err != nil && turn.Final == "":
		res.Err = turn.Err
	}
	return res
}

// runTeamJob runs the job's team with the job's prompt as the goal (the
// team's own goal when the job has none) and returns the answer as the
// run's output, for the job to deliver. The team's timeout bounds it, not
// the inactivity watchdog: a coordinator waiting on its tasks shows no
// progress of its own. A run cut off by shutdown stays active, and
// hermes team resume finishes it.
func (e *Engine) runTeamJob(ctx context.Context, job cron.Job, goal string) cron.RunResult {
	spec, ok := e.opt.Teams.Defs[job.Team]
	if !ok {
		return cron.RunResult{Err: fmt.Errorf("the job's team %q is not configured under teams: in config.yaml", job.Team)}
	}
	// Should this process stop before the run ends, hermes serve goes on
	// with it and delivers the answer along the job's chain.
	spec.Job, spec.Deliver = job.Name, job.Deliver
	if len(spec.Deliver) == 0 {
		spec.Deliver = []string{"local"}
	}
	run, err := e.RunTeam(ctx, TeamRun{Team: spec, Goal: strings.TrimSpace(goal), Unattended: true})
	res := cron.RunResult{SessionID: run.SessionID, Output: run.Answer, Err: err}
	if err == nil && run.State != team.RunDone {
		res.Err = fmt.Errorf("team run %d %s: %s", run.ID, run.State, run.Error)
	}
	return res
}

// jobPrompt is the job's first message: its skills, the prompt, and the
// script's output.
func (e *Engine) jobPrompt(job cron.Job, scriptOut string) (string, error) {
	var parts []string
	for _, name := range job.Skills {
		if e.opt.Prompt.Skills == nil {
			return "", fmt.Errorf("skill %q: there is no skills library", name)
		}
		inv, err := e.opt.Prompt.Skills.Invocation(name, "this scheduled job")
		if err != nil {
			return "", fmt.Errorf("skill %q: %w", name, err)
		}
		parts = append(parts, inv)
	}
	parts = append(parts, job.Prompt)
	if scriptOut != "" {
		parts = append(parts, "Output of the job's script:\n"+scriptOut)
	}
	return strings.Join(parts, "\n\n"), nil
}

// Interface guard.
var _ cron.NowRunner = (*Engine)(nil)
