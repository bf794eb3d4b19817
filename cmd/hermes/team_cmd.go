package main

import (
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"github.com/hermes-go/hermes/internal/engine"
	"github.com/hermes-go/hermes/internal/team"
)

func newTeamCmd(a *cli) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "team",
		Short: "Run a team of role agents over the durable task queue, and inspect its runs",
		Long: `A team (teams: in config.yaml, or a YAML file) is a coordinator and the
role agents it dispatches to. The coordinator has no tools but the
queue's: it posts tasks for roles, waits for them and reads what they
produced; workers of each role claim the tasks and run each as an
ordinary turn of that agent. Every run, task and artifact is kept in
state.db, so a run can be inspected afterwards and resumed after a crash
without redoing the tasks already done.`,
	}
	cmd.AddCommand(newTeamRunCmd(a), newTeamResumeCmd(a), newTeamStatusCmd(a), newTeamListCmd(a), newTeamCancelCmd(a), newTeamAdoptCmd(a))
	return cmd
}

// teamRunFlags are the flags of team run and team resume.
type teamRunFlags struct {
	turnFlags
	noDeliver bool
	asJSON    bool
}

func (f *teamRunFlags) register(cmd *cobra.Command) {
	f.modelFlags.register(cmd)
	fl := cmd.Flags()
	fl.BoolVar(&f.noDeliver, "no-deliver", false, "do not send the answer along the team's deliver: chain")
	fl.BoolVar(&f.asJSON, "json", false, "print the finished run as JSON instead of its answer")
}

func newTeamRunCmd(a *cli) *cobra.Command {
	var f teamRunFlags
	cmd := &cobra.Command{
		Use:   "run TEAM [GOAL]",
		Short: "Run a team toward a goal, showing its tasks as they go",
		Long: `Run TEAM (a name under teams: in config.yaml, or a path to a YAML file
holding one team) toward GOAL (default: the team's goal:). The tasks are
shown as they change state on stderr; the coordinator's answer is printed
on stdout and, unless --no-deliver, sent along the team's deliver: chain.

Workers run unattended: their dangerous commands are decided by
approvals.cron_mode (deny unless set to allow). Ctrl-C stops the run and
keeps it: hermes team resume RUN goes on with it.`,
		Args: cobra.RangeArgs(1, 2),
		RunE: func(cmd *cobra.Command, args []string) error {
			goal := ""
			if len(args) == 2 {
				goal = args[1]
			}
			return runTeam(cmd, a, &f, func(h teamApp) (engine.TeamRun, error) {
				spec, err := h.TeamNamed(args[0])
				return engine.TeamRun{Team: spec, Goal: goal}, err
			})
		},
	}
	f.register(cmd)
	return cmd
}

func newTeamResumeCmd(a *cli) *cobra.Command {
	var f teamRunFlags
	cmd := &cobra.Command{
		Use:   "resume RUN",
		Short: "Go on with a run that was stopped or whose process died",
		Long: `Go on with RUN as it was defined when it started. Finished tasks keep
their results and are not run again; a task whose worker died is claimed
again once its lease runs out; the coordinator continues in its own
session. A run that finished is only delivered, if it was not yet.
A run another process holds is refused while that process lives: on this
host while its process exists, elsewhere while it renews the run's lease
(a job's run; hermes serve takes those over by itself).`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := runID(args[0])
			if err != nil {
				return err
			}
			return runTeam(cmd, a, &f, func(teamApp) (engine.TeamRun, error) { return engine.TeamRun{Resume: id}, nil })
		},
	}
	f.register(cmd)
	return cmd
}

// teamApp is what runTeam's request builder may ask of the app.
type teamApp interface {
	TeamNamed(name string) (engine.Team, error)
}

// runTeam opens hermes, runs the team req asks for with the live view on
// stderr, and prints the answer.
func runTeam(cmd *cobra.Command, a *cli, f *teamRunFlags, build func(teamApp) (engine.TeamRun, error)) error {
	h, err := a.openTurns(cmd, &f.turnFlags, f.options())
	if err != nil {
		return err
	}
	defer h.Close()
	req, err := build(h)
	if err != nil {
		return err
	}
	req.Deliver = !f.noDeliver
	view := newTeamView(cmd.ErrOrStderr(), h.Team)
	req.Started = view.start
	run, err := h.Engine.RunTeam(cmd.Context(), req)
	view.stop()
	if err != nil {
		return err
	}
	if f.asJSON {
		return writeRunJSON(cmd, h.Team, run)
	}
	if err := renderRun(cmd.Context(), cmd.ErrOrStderr(), h.Team, run, false); err != nil {
		return err
	}
	if run.State != team.RunDone {
		return fmt.Errorf("team run %d %s: %s", run.ID, run.State, run.Error)
	}
	fmt.Fprintln(cmd.OutOrStdout(), run.Answer)
	return nil
}

func newTeamStatusCmd(a *cli) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "status RUN",
		Short: "Show a run: its state, its tasks (state, agent, tries, time, tokens, session) and its answer",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return withRun(cmd, a, args[0], func(store *team.Store, id int64) error {
				run, err := store.GetRun(cmd.Context(), id)
				if err != nil {
					return fmt.Errorf("%w; hermes team list shows the runs there are", err)
				}
				if asJSON {
					return writeRunJSON(cmd, store, run)
				}
				return renderRun(cmd.Context(), cmd.OutOrStdout(), store, run, true)
			})
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the run and its tasks as JSON")
	return cmd
}

func newTeamListCmd(a *cli) *cobra.Command {
	var limit int
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the newest team runs",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if limit < 1 {
				return fmt.Errorf("--limit %d: want 1 or more", limit)
			}
			h, err := a.openStores(cmd)
			if err != nil {
				return err
			}
			defer h.Close()
			runs, err := h.Team.Runs(cmd.Context(), limit)
			if err != nil {
				return err
			}
			w := cmd.OutOrStdout()
			if len(runs) == 0 {
				fmt.Fprintln(w, "no team runs yet; hermes team run TEAM GOAL starts one")
				return nil
			}
			fmt.Fprintf(w, "%-5s %-16s %-9s %-23s %s\n", "RUN", "TEAM", "STATE", "STARTED", "GOAL")
			for _, r := range runs {
				fmt.Fprintf(w, "%-5d %-16s %-9s %-23s %s\n", r.ID, r.Team, r.State, localTime(r.CreatedAt), oneLine(r.Goal, 60))
			}
			return nil
		},
	}
	cmd.Flags().IntVar(&limit, "limit", 20, "how many runs to list")
	return cmd
}

func newTeamCancelCmd(a *cli) *cobra.Command {
	return &cobra.Command{
		Use:   "cancel RUN",
		Short: "Cancel an active run: its unfinished tasks are never done",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return withRun(cmd, a, args[0], func(store *team.Store, id int64) error {
				if err := store.CancelRun(cmd.Context(), id); err != nil {
					return err
				}
				fmt.Fprintf(cmd.OutOrStdout(), "team run %d cancelled\n", id)
				return nil
			})
		},
	}
}

// withRun opens the stores and calls fn with the team queue and the run
// arg names.
func withRun(cmd *cobra.Command, a *cli, arg string, fn func(*team.Store, int64) error) error {
	id, err := runID(arg)
	if err != nil {
		return err
	}
	h, err := a.openStores(cmd)
	if err != nil {
		return err
	}
	defer h.Close()
	return fn(h.Team, id)
}

// runID parses a run's id.
func runID(s string) (int64, error) {
	id, err := strconv.ParseInt(s, 10, 64)
	if err != nil || id < 1 {
		return 0, fmt.Errorf("run %q: want the run's number, as hermes team list shows it", s)
	}
	return id, nil
}

// writeRunJSON prints run and its tasks as one JSON object.
func writeRunJSON(cmd *cobra.Command, store *team.Store, run team.Run) error {
	tasks, err := store.Tasks(cmd.Context(), run.ID)
	if err != nil {
		return err
	}
	type jsonTask struct {
		ID          int64      `json:"id"`
		Role        string     `json:"role"`
		Description string     `json:"description"`
		Inputs      []int64    `json:"inputs"`
		State       team.State `json:"state"`
		Attempts    int        `json:"attempts"`
		MaxAttempts int        `json:"max_attempts"`
		Summary     string     `json:"summary,omitempty"`
		Error       string     `json:"error,omitempty"`
		SessionID   string     `json:"session_id,omitempty"`
		Tokens      int        `json:"tokens"`
		DurationMS  int64      `json:"duration_ms"`
	}
	out := struct {
		ID          int64         `json:"id"`
		Team        string        `json:"team"`
		Goal        string        `json:"goal"`
		State       team.RunState `json:"state"`
		SessionID   string        `json:"session_id,omitempty"`
		Answer      string        `json:"answer,omitempty"`
		Error       string        `json:"error,omitempty"`
		Tokens      int           `json:"tokens"`
		Delivery    string        `json:"delivered_to,omitempty"`
		DeliveredAt *time.Time    `json:"delivered_at,omitempty"`
		CreatedAt   time.Time     `json:"created_at"`
		Tasks       []jsonTask    `json:"tasks"`
	}{ID: run.ID, Team: run.Team, Goal: run.Goal, State: run.State, SessionID: run.SessionID, Answer: run.Answer,
		Error: run.Error, Tokens: run.Tokens, Delivery: run.Delivery, CreatedAt: run.CreatedAt, Tasks: []jsonTask{}}
	if !run.DeliveredAt.IsZero() {
		out.DeliveredAt = &run.DeliveredAt
	}
	for _, t := range tasks {
		out.Tasks = append(out.Tasks, jsonTask{ID: t.ID, Role: t.Role, Description: t.Description, Inputs: t.Inputs, State: t.State,
			Attempts: t.Attempts, MaxAttempts: t.MaxAttempts, Summary: t.Summary, Error: t.Error, SessionID: t.SessionID,
			Tokens: t.Tokens, DurationMS: taskDuration(t, time.Now()).Milliseconds()})
	}
	enc := json.NewEncoder(cmd.OutOrStdout())
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}
