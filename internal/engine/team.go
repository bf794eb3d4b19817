package engine

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/hermes-go/hermes/internal/notify"
	"github.com/hermes-go/hermes/internal/team"
	"github.com/hermes-go/hermes/internal/tool"
)

// The defaults of a team that leaves a field zero.
const (
	DefaultTeamTimeout = 2 * time.Hour
	defaultTeamWorkers = 1
)

// Team is a team resolved for the engine (config's teams:): a coordinator
// that only posts, waits for and reads tasks, and the role agents whose
// workers do them. The coordinator and every role are agents of
// Options.Agents; an empty Coordinator is hermes's own identity.
type Team struct {
	Name        string        `json:"name"`
	Description string        `json:"description,omitempty"`
	Coordinator string        `json:"coordinator,omitempty"`
	Roles       []string      `json:"roles"`
	Workers     int           `json:"workers,omitempty"`
	Lease       time.Duration `json:"lease,omitempty"`
	MaxAttempts int           `json:"max_attempts,omitempty"`
	MaxTurns    int           `json:"max_turns,omitempty"`
	Timeout     time.Duration `json:"timeout,omitempty"`
	Goal        string        `json:"goal,omitempty"`
	Deliver     []string      `json:"deliver,omitempty"`
	// Job is the scheduled job a run of the team was started by; its
	// Deliver is then the job's chain, so a run another process finishes
	// (its own was stopped) is delivered where the job's would have been.
	Job string `json:"job,omitempty"`
}

// Teams is what team runs need.
type Teams struct {
	// Store is the durable queue in state.db.
	Store *team.Store
	// Defs are the configured teams, by name.
	Defs map[string]Team
}

// TeamRun asks for one run of a team.
type TeamRun struct {
	// Team is the team to start a run of; ignored when Resume is set.
	Team Team
	// Goal is what the run is for; empty takes the team's Goal.
	Goal string
	// Resume, when set, goes on with that run instead of starting one:
	// its finished tasks stay done, its unfinished ones are claimed again
	// once their leases run out, and its coordinator continues its own
	// session.
	Resume int64
	// Deliver sends the answer along the team's deliver: chain once, when
	// the run ends done (a job's run is delivered by the job instead).
	Deliver bool
	// Unattended leases a new run to this process (see team.HoldRun): it
	// belongs to no terminal, so when this process stops before the run
	// ends, hermes serve takes it over. A job's run is unattended; a run
	// started by hand is resumed by hand.
	Unattended bool
	// Started, when set, is told the run once it exists, before any
	// work: the live view follows its tasks from there.
	Started func(team.Run)
}

// ErrTeamBusy is returned (wrapped) when the run to resume is being run
// by a process that is still alive.
var ErrTeamBusy = errors.New("the run is held by a live process")

// RunTeam runs a team to completion: it starts (or resumes) the run, its
// workers and its coordinator, records how it ended, delivers the answer
// when asked, and returns the run as stored. When ctx ends first the run
// stays active, to be resumed; the error says so.
func (e *Engine) RunTeam(ctx context.Context, req TeamRun) (team.Run, error) {
	store := e.opt.Teams.Store
	if store == nil {
		return team.Run{}, errors.New("team runs need the team store, which this process has not opened")
	}
	r, spec, err := e.teamRun(ctx, req)
	if err != nil || r.State != team.RunActive {
		if err == nil && req.Deliver {
			r, err = e.deliverTeam(ctx, spec, r)
		}
		return r, err
	}
	if req.Started != nil {
		req.Started(r)
	}
	log := e.opt.Logger.With("team", spec.Name, "run", r.ID)
	timeout := cmp.Or(spec.Timeout, DefaultTeamTimeout)
	lctx, lost := context.WithCancelCause(ctx)
	defer lost(nil)
	rctx, cancel := context.WithTimeoutCause(lctx, timeout, fmt.Errorf("the run went on longer than its timeout (%v)", timeout))
	defer cancel()
	stopKeeping := e.keepTeamRun(rctx, r, spec, lost, log)
	defer stopKeeping()

	coord, err := e.coordinatorSession(rctx, spec, &r)
	if err != nil {
		return r, err
	}
	wctx, stopWorkers := context.WithCancel(rctx)
	var workers sync.WaitGroup
	for _, role := range spec.Roles {
		for i := range cmp.Or(spec.Workers, defaultTeamWorkers) {
			w := &team.Worker{Store: store, Role: role, RunID: r.ID, Lease: spec.Lease, Logger: log,
				Name: fmt.Sprintf("%s-%d@%s", role, i+1, e.holder), Run: e.teamTask(spec, r, coord)}
			workers.Go(func() { _ = w.Serve(wctx) })
		}
	}
	answer, tokens, turnErr := e.coordinate(rctx, spec, r, coord)
	stopWorkers()
	workers.Wait()
	// The lease is renewed no more before the run is ended or released.
	stopKeeping()

	if ctx.Err() != nil {
		log.Info("team run interrupted; it can be resumed")
		if !r.LeaseUntil.IsZero() {
			if err := store.ReleaseRun(context.WithoutCancel(ctx), r.ID, e.holder); err != nil {
				log.Warn("team: releasing the run's lease", "err", err)
			}
			return r, fmt.Errorf("team run %d was interrupted; hermes serve goes on with it, or `hermes team resume %d`: %w", r.ID, r.ID, ctx.Err())
		}
		return r, fmt.Errorf("team run %d was interrupted; `hermes team resume %d` goes on with it: %w", r.ID, r.ID, ctx.Err())
	}
	if cause := context.Cause(lctx); errors.Is(cause, team.ErrLeaseLost) {
		return e.lostTeamRun(ctx, r, cause)
	}
	out := team.Outcome{State: team.RunDone, Answer: answer, Tokens: tokens}
	if turnErr != nil {
		if cause := context.Cause(rctx); rctx.Err() != nil && cause != nil {
			turnErr = cause
		}
		out = team.Outcome{State: team.RunFailed, Answer: answer, Error: turnErr.Error(), Tokens: tokens}
	}
	if err := store.EndRun(context.WithoutCancel(ctx), r.ID, out); err != nil {
		return r, err
	}
	log.Info("team run finished", "state", string(out.State), "tokens", tokens)
	if r, err = store.GetRun(context.WithoutCancel(ctx), r.ID); err != nil {
		return r, err
	}
	if req.Deliver {
		return e.deliverTeam(ctx, spec, r)
	}
	return r, nil
}

// teamRun starts the run req asks for, or takes over the one it resumes,
// and returns it with the team it runs.
func (e *Engine) teamRun(ctx context.Context, req TeamRun) (team.Run, Team, error) {
	store := e.opt.Teams.Store
	if req.Resume == 0 {
		spec := req.Team
		if err := e.checkTeam(spec); err != nil {
			return team.Run{}, spec, err
		}
		goal := cmp.Or(req.Goal, spec.Goal)
		if goal == "" {
			return team.Run{}, spec, fmt.Errorf("team %s: the run has no goal; give one, or set teams.%s.goal", spec.Name, spec.Name)
		}
		enc, err := json.Marshal(spec)
		if err != nil {
			return team.Run{}, spec, err
		}
		st := team.Start{Team: spec.Name, Goal: goal, Spec: string(enc), Holder: e.holder}
		if req.Unattended {
			st.Lease = teamLease(spec)
		}
		r, err := store.StartRun(ctx, st)
		return r, spec, err
	}
	r, err := store.GetRun(ctx, req.Resume)
	if err != nil {
		return r, Team{}, err
	}
	var spec Team
	if err := json.Unmarshal([]byte(r.Spec), &spec); err != nil {
		return r, spec, fmt.Errorf("team run %d: its stored team does not read back (%v); it cannot be resumed", r.ID, err)
	}
	if r.State != team.RunActive {
		return r, spec, nil
	}
	if err := e.checkTeam(spec); err != nil {
		return r, spec, fmt.Errorf("team run %d: %w", r.ID, err)
	}
	lapsed := !r.LeaseUntil.IsZero() && r.LeaseUntil.Before(e.opt.Clock.Now())
	if r.Holder != e.holder && r.Holder != "" && !e.gone(r.Holder) && !lapsed {
		return r, spec, fmt.Errorf("team run %d: %w (%s); stop it there first", r.ID, ErrTeamBusy, r.Holder)
	}
	if err := store.HoldRun(ctx, r, e.holder, teamLease(spec)); err != nil {
		return r, spec, fmt.Errorf("team run %d: taking it over: %w", r.ID, err)
	}
	r, err = store.GetRun(ctx, r.ID)
	return r, spec, err
}

// keepTeamRun renews r's lease, when it has one, until ctx ends or the
// returned function is called (which waits for the last renewal), and
// calls lost with the reason when the lease is lost.
func (e *Engine) keepTeamRun(ctx context.Context, r team.Run, spec Team, lost context.CancelCauseFunc, log *slog.Logger) (stop func()) {
	if r.LeaseUntil.IsZero() {
		return func() {}
	}
	ctx, cancel := context.WithCancel(ctx)
	kept := make(chan struct{})
	go func() {
		defer close(kept)
		warn := func(err error) { log.Warn("team: renewing the run's lease", "err", err) }
		if err := e.opt.Teams.Store.KeepRun(ctx, r.ID, e.holder, teamLease(spec), warn); err != nil {
			lost(err)
		}
	}()
	return func() { cancel(); <-kept }
}

// teamLease is the lease of spec's runs and tasks.
func teamLease(spec Team) time.Duration { return cmp.Or(spec.Lease, team.DefaultLease) }

// lostTeamRun is how RunTeam ends when the run's lease was lost: the run
// ended meanwhile (cancelled), which is how it ended, or another process
// took it over, which goes on with it.
func (e *Engine) lostTeamRun(ctx context.Context, r team.Run, cause error) (team.Run, error) {
	got, err := e.opt.Teams.Store.GetRun(context.WithoutCancel(ctx), r.ID)
	if err != nil {
		return r, err
	}
	if got.State != team.RunActive {
		return got, nil
	}
	e.opt.Logger.Warn("team run taken over by another process; this one stops", slog.Int64("run", r.ID), slog.String("holder", got.Holder))
	return got, fmt.Errorf("team run %d: %s goes on with it: %w", r.ID, got.Holder, cause)
}

// checkTeam refuses a team whose agents are not configured.
func (e *Engine) checkTeam(t Team) error {
	if len(t.Roles) == 0 {
		return fmt.Errorf("team %s has no roles; list its role agents under teams.%s.roles", t.Name, t.Name)
	}
	for _, name := range append([]string{t.Coordinator}, t.Roles...) {
		if _, ok := e.opt.Agents[name]; name != "" && !ok {
			return fmt.Errorf("team %s: agent %q is not configured; define it under agents: in config.yaml", t.Name, name)
		}
	}
	return nil
}

// deliverTeam sends a finished run's answer along its team's chain, once:
// a run already delivered, or not done, is left as it is.
func (e *Engine) deliverTeam(ctx context.Context, spec Team, r team.Run) (team.Run, error) {
	n := e.opt.Jobs.Notifier
	if r.State != team.RunDone || !r.DeliveredAt.IsZero() || len(spec.Deliver) == 0 || n == nil {
		return r, nil
	}
	chain, err := n.ParseChain(spec.Deliver)
	if err != nil {
		return r, fmt.Errorf("teams.%s.deliver: %w", spec.Name, err)
	}
	msg := notify.Message{Title: "team " + spec.Name, Text: r.Answer, Job: "team-" + spec.Name,
		RunID: fmt.Sprintf("team-run-%d", r.ID), Full: fmt.Sprintf("hermes team status %d", r.ID)}
	if spec.Job != "" {
		msg.Title, msg.Job = spec.Job, spec.Job
	}
	rep := n.Deliver(context.WithoutCancel(ctx), chain, msg)
	if rep.Delivered == "" {
		return r, fmt.Errorf("team run %d: delivering the answer: %w", r.ID, rep.Err())
	}
	if err := e.opt.Teams.Store.MarkDelivered(context.WithoutCancel(ctx), r.ID, rep.Delivered); err != nil {
		return r, err
	}
	e.opt.Logger.Info("team run delivered", slog.Int64("run", r.ID), slog.String("target", rep.Delivered))
	return e.opt.Teams.Store.GetRun(context.WithoutCancel(ctx), r.ID)
}

// coordinatorTools are the only tools a coordinator has: the queue's,
// scoped to its run.
func (e *Engine) coordinatorTools(r team.Run, spec Team) (*Toolbox, error) {
	reg := tool.NewRegistry()
	sc := team.Scope{Store: e.opt.Teams.Store, Run: r.ID, Roles: spec.Roles, MaxAttempts: spec.MaxAttempts}
	if err := reg.Swap(nil, team.Tools(sc)); err != nil {
		return nil, err
	}
	return e.toolbox(reg), nil
}
