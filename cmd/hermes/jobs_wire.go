package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/hermes-go/hermes/config"
	"github.com/hermes-go/hermes/cron"
	"github.com/hermes-go/hermes/engine"
	"github.com/hermes-go/hermes/notify"
	"github.com/hermes-go/hermes/tool"
)

// scriptTimeout bounds a job's pre-run script.
const scriptTimeout = 5 * time.Minute

// silentPrefix starts a reply that is stored but not delivered.
const silentPrefix = "[SILENT]"

// configJobs are the schedules of config.yaml as cron jobs.
func configJobs(c config.Config) []cron.Job {
	jobs := make([]cron.Job, 0, len(c.Schedules))
	for _, name := range slices.Sorted(maps.Keys(c.Schedules)) {
		s := c.Schedules[name]
		jobs = append(jobs, cron.Job{Name: name, Enabled: s.Enabled.Or(true), Source: cron.SourceConfig, Spec: cron.Spec{
			Schedule: s.Cron, Timezone: s.Timezone, SessionType: string(s.SessionType), Prompt: s.Prompt,
			Skills: s.Skills, Toolsets: s.Toolsets, Model: s.Model, Deliver: s.Deliver,
			Script: s.Script, NoAgent: s.NoAgent, CatchUp: string(s.CatchUp),
		}})
	}
	return jobs
}

// jobRunner runs a scheduled job: its script, then a turn of the agent in
// a fresh session (or the job's own), then delivery of the reply along its
// chain, ending in the local file. A run that fails is delivered too, as
// a failure notice, so a broken job is never silent.
type jobRunner struct {
	rt       *wiring
	notifier *notify.Notifier
	log      *slog.Logger
	// inactivity stops a run that has shown no progress this long.
	inactivity time.Duration
	// noModel, when set, is why there is no engine (rt is nil): only
	// no_agent jobs run.
	noModel error

	mu sync.Mutex
	// engines are those built for jobs that name their own toolsets or
	// model, by toolsets and model, kept for the job's next runs.
	engines map[string]*engine.Engine
}

func (j *jobRunner) Run(ctx context.Context, job cron.Job, scheduled time.Time) cron.RunResult {
	log := j.log.With("job", job.Name)
	start := time.Now()
	res := j.run(ctx, job, log)
	if res.Err == nil && strings.HasPrefix(strings.TrimSpace(res.Output), silentPrefix) {
		res.Status = cron.StatusSilent
	}
	if res.Err != nil && ctx.Err() != nil {
		// Stopped by shutdown: recorded, not announced; the next start
		// shows it in the history.
		res.Err = fmt.Errorf("interrupted by shutdown: %w", res.Err)
		return res
	}
	if res.Status == cron.StatusSilent {
		log.Info("job run finished silently", "session_id", res.SessionID, "duration_ms", time.Since(start).Milliseconds())
		return res
	}
	delivered := deliverRun(ctx, j.notifier, job, scheduled, &res)
	log.Info("job run finished", "session_id", res.SessionID, "delivered", delivered, "failed", res.Err != nil,
		"duration_ms", time.Since(start).Milliseconds())
	return res
}

// deliverRun sends a run's result along the job's chain, or when the run
// failed a notice saying so, records every attempt on res and returns the
// target that took it.
func deliverRun(ctx context.Context, n *notify.Notifier, job cron.Job, scheduled time.Time, res *cron.RunResult) string {
	text := res.Output
	if res.Err != nil {
		text = fmt.Sprintf("hermes: the scheduled job %q failed at %s: %v", job.Name, fireTime(scheduled, job.Timezone), res.Err)
		if res.Output != "" {
			text += "\n\nOutput so far:\n" + res.Output
		}
	}
	chain, err := n.ParseChain(job.Deliver)
	if err != nil {
		// A bad target (the job was stored before the check) still
		// leaves the result in the local file.
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

// run runs the job's script and agent turn under the inactivity
// watchdog, without delivering.
func (j *jobRunner) run(ctx context.Context, job cron.Job, log *slog.Logger) cron.RunResult {
	var scriptOut string
	if job.Script != "" {
		out, err := runScript(ctx, job.Script)
		if err != nil {
			log.Warn("job script failed", "error", err)
			return cron.RunResult{Err: fmt.Errorf("script: %w", err), Output: out}
		}
		scriptOut = out
	}
	if job.NoAgent {
		return cron.RunResult{Output: scriptOut}
	}
	if j.noModel != nil {
		return cron.RunResult{Err: fmt.Errorf("the job needs a model: %w", j.noModel)}
	}
	eng, err := j.engineFor(job)
	if err != nil {
		return cron.RunResult{Err: err}
	}
	prompt, err := j.prompt(job, scriptOut)
	if err != nil {
		return cron.RunResult{Err: err}
	}
	sid := ""
	if job.SessionType == cron.SessionContinue {
		sid = job.SessionID
	}
	wctx, dog := newWatchdog(ctx, j.inactivity)
	defer dog.Stop()
	turn, err := eng.Turn(wctx, sid, engine.Input{Text: prompt, Source: "cron",
		Approver: func(id string) tool.Approver { return j.rt.policy.For(id) }}, dog)
	if err != nil {
		return cron.RunResult{Err: err}
	}
	res := cron.RunResult{SessionID: turn.SessionID, Output: turn.Final}
	switch cause := context.Cause(wctx); {
	case errors.As(cause, new(errInactive)):
		res.Err = cause
	case turn.Err != nil && turn.Final == "":
		res.Err = turn.Err
	}
	return res
}

// engineFor is the engine a job runs in: the wiring's own, or for a job
// that names its toolsets or model, one built for them.
func (j *jobRunner) engineFor(job cron.Job) (*engine.Engine, error) {
	if len(job.Toolsets) == 0 && job.Model == "" {
		return j.rt.engine, nil
	}
	key := strings.Join(job.Toolsets, ",") + "|" + job.Model
	j.mu.Lock()
	defer j.mu.Unlock()
	if e, ok := j.engines[key]; ok {
		return e, nil
	}
	e, err := j.rt.variant(job.Toolsets, job.Model)
	if err != nil {
		return nil, fmt.Errorf("job %q: %w", job.Name, err)
	}
	if j.engines == nil {
		j.engines = map[string]*engine.Engine{}
	}
	j.engines[key] = e
	return e, nil
}

// stop releases the wiring the runner runs in.
func (j *jobRunner) stop() {
	if j.rt != nil {
		j.rt.close()
	}
}

// close ends the engines built for jobs.
func (j *jobRunner) close() {
	j.mu.Lock()
	defer j.mu.Unlock()
	for _, e := range j.engines {
		e.Close()
	}
	j.engines = nil
}

// prompt is the job's first message: its skills, the prompt, and the
// script's output.
func (j *jobRunner) prompt(job cron.Job, scriptOut string) (string, error) {
	var parts []string
	for _, name := range job.Skills {
		inv, err := j.rt.tools.skills.Invocation(name, "this scheduled job")
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

// runScript runs a job's script with sh and returns its output.
func runScript(ctx context.Context, script string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, scriptTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", "-c", script)
	cmd.WaitDelay = 2 * time.Second
	out, err := cmd.Output()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok && len(ee.Stderr) > 0 {
			return string(out), fmt.Errorf("%w: %s", err, strings.TrimSpace(string(ee.Stderr)))
		}
		return string(out), err
	}
	return strings.TrimSpace(string(out)), nil
}
