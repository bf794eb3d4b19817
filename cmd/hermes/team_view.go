package main

import (
	"context"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/hermes-go/hermes/internal/team"
)

// teamViewEvery is how often the live view reads the run's tasks.
const teamViewEvery = 200 * time.Millisecond

// teamView follows a run's tasks while it runs, writing a line each time
// a task changes state: posted, claimed (again), done or failed, with its
// agent, tries, time and tokens. It reads state.db, so it shows what
// workers of other processes do too.
type teamView struct {
	w     io.Writer
	store *team.Store

	stopOnce sync.Once
	quit     chan struct{}
	done     chan struct{}
}

func newTeamView(w io.Writer, store *team.Store) *teamView {
	return &teamView{w: w, store: store, quit: make(chan struct{}), done: make(chan struct{})}
}

// start begins following run; it is Started of the run's request.
func (v *teamView) start(run team.Run) {
	fmt.Fprintf(v.w, "team run %d (%s): %s\n", run.ID, run.Team, oneLine(run.Goal, 100))
	go v.follow(run.ID)
}

// stop ends the view after one last read, so the final states show.
func (v *teamView) stop() {
	v.stopOnce.Do(func() { close(v.quit) })
	select {
	case <-v.done:
	case <-time.After(time.Second):
	}
}

func (v *teamView) follow(run int64) {
	defer close(v.done)
	seen := map[int64]string{}
	tick := time.NewTicker(teamViewEvery)
	defer tick.Stop()
	for {
		v.show(run, seen)
		select {
		case <-v.quit:
			v.show(run, seen)
			return
		case <-tick.C:
		}
	}
}

// show writes the tasks whose state or attempt changed since seen.
func (v *teamView) show(run int64, seen map[int64]string) {
	tasks, err := v.store.Tasks(context.Background(), run)
	if err != nil {
		return
	}
	now := time.Now()
	for _, t := range tasks {
		key := fmt.Sprintf("%s/%d", t.State, t.Attempts)
		if seen[t.ID] == key {
			continue
		}
		seen[t.ID] = key
		line := fmt.Sprintf("  task %-3d %-12s %-9s try %d/%d", t.ID, t.Role, t.State, t.Attempts, t.MaxAttempts)
		switch t.State {
		case team.StateWaiting:
			line += fmt.Sprintf("  waits for %v", t.Inputs)
		case team.StateDone:
			line += fmt.Sprintf("  %s  %d tokens  %s", taskDuration(t, now).Round(10*time.Millisecond), t.Tokens, oneLine(t.Summary, 60))
		case team.StateFailed, team.StateCancelled:
			line += "  " + oneLine(t.Error, 80)
		}
		fmt.Fprintln(v.w, line)
	}
}

// taskDuration is how long the task's last attempt took, or has taken so
// far.
func taskDuration(t team.Task, now time.Time) time.Duration {
	switch {
	case t.ClaimedAt.IsZero():
		return 0
	case t.FinishedAt.IsZero():
		return now.Sub(t.ClaimedAt)
	case t.FinishedAt.Before(t.ClaimedAt):
		return 0
	}
	return t.FinishedAt.Sub(t.ClaimedAt)
}

// renderRun writes run and a table of its tasks, and its answer when
// withAnswer is set.
func renderRun(ctx context.Context, w io.Writer, store *team.Store, run team.Run, withAnswer bool) error {
	tasks, err := store.Tasks(ctx, run.ID)
	if err != nil {
		return err
	}
	end := run.FinishedAt
	if end.IsZero() {
		end = time.Now()
	}
	fmt.Fprintf(w, "run %d  team %s  %s  %s\n", run.ID, run.Team, run.State, end.Sub(run.CreatedAt).Round(10*time.Millisecond))
	fmt.Fprintf(w, "goal: %s\n", oneLine(run.Goal, 200))
	if run.SessionID != "" {
		fmt.Fprintf(w, "coordinator: session %s, %d tokens\n", run.SessionID, run.Tokens)
	}
	if !run.DeliveredAt.IsZero() {
		fmt.Fprintf(w, "delivered: %s at %s\n", run.Delivery, localTime(run.DeliveredAt))
	}
	if run.Error != "" {
		fmt.Fprintf(w, "error: %s\n", run.Error)
	}
	if run.State == team.RunActive {
		fmt.Fprintf(w, "held by: %s (hermes team resume %d goes on with it once that process is gone)\n", run.Holder, run.ID)
	}
	fmt.Fprintf(w, "%-5s %-12s %-9s %-6s %-9s %-7s %s\n", "TASK", "AGENT", "STATE", "TRIES", "TIME", "TOKENS", "SESSION")
	now := time.Now()
	for _, t := range tasks {
		fmt.Fprintf(w, "%-5d %-12s %-9s %-6s %-9s %-7d %s\n", t.ID, t.Role, t.State, fmt.Sprintf("%d/%d", t.Attempts, t.MaxAttempts),
			taskDuration(t, now).Round(10*time.Millisecond), t.Tokens, t.SessionID)
	}
	if withAnswer && run.Answer != "" {
		fmt.Fprintf(w, "\nanswer:\n%s\n", run.Answer)
	}
	return nil
}
