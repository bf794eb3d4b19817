package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/hermes-go/hermes/config"
	"github.com/hermes-go/hermes/cron"
	"github.com/hermes-go/hermes/notify"
)

// openJobs opens the job store of the home with the config's jobs synced
// into it.
func openJobs(cmd *cobra.Command, a *app, l *config.Loaded, log *slog.Logger) (*cron.Store, string, error) {
	store, err := openJobStore(a, l, log)
	if err != nil {
		return nil, "", err
	}
	if _, err := store.Sync(cmd.Context(), configJobs(l.Config)); err != nil {
		return nil, "", fmt.Errorf("config.yaml: schedules: %w", err)
	}
	return store, jobZone(l.Config), nil
}

// openJobStore is the job store over the profile's state.db (stateDB).
func openJobStore(a *app, l *config.Loaded, log *slog.Logger) (*cron.Store, error) {
	db, err := a.stateDB(l, log)
	if err != nil {
		return nil, err
	}
	return cron.NewStore(db, cron.StoreOptions{DefaultZone: jobZone(l.Config)})
}

// jobZone is the zone of jobs that name none: timezone, else the
// machine's.
func jobZone(c config.Config) string {
	if c.Timezone != "" {
		return c.Timezone
	}
	return machineZone()
}

// runJobNow runs a job by hand, recorded like a scheduled run.
func runJobNow(ctx context.Context, store *cron.Store, runner *jobRunner, name string) (cron.RunResult, error) {
	job, err := store.Get(ctx, name)
	if err != nil {
		return cron.RunResult{}, err
	}
	now := time.Now()
	id, err := store.StartRun(ctx, job.Name, now)
	if err != nil {
		return cron.RunResult{}, err
	}
	res := runner.Run(ctx, job, now)
	if err := store.FinishRun(ctx, id, res); err != nil {
		return res, err
	}
	return res, nil
}

// newJobRunner wires the engine jobs run in: nobody can approve a
// command, so approvals.cron_mode decides. Without a usable model the
// runner still runs no_agent jobs, and agent jobs fail with the reason,
// delivered like any failure. stop releases what it holds.
func newJobRunner(cmd *cobra.Command, a *app, l *config.Loaded, log *slog.Logger) (*jobRunner, error) {
	notifier := notify.New(notifyConfig(l, log))
	if _, _, err := (&turnFlags{}).resolve(cmd, a); err != nil {
		log.Warn("no model: only no_agent jobs can run", "error", err.Error())
		return &jobRunner{notifier: notifier, log: log, noModel: err}, nil
	}
	rt, err := newWiring(cmd, a, &turnFlags{}, false, nil)
	if err != nil {
		return nil, err
	}
	rt.policy.NonInteractive = string(l.Config.Approvals.CronMode)
	rt.jobs.log = log // job processes log as JSON, like hermes serve
	rt.jobs.notifier = notifier
	return rt.jobs, nil
}

func newCronCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "cron",
		Short: "See and run the scheduled jobs",
		Long: `Scheduled jobs are declared under schedules: in config.yaml (seed 003's
shape), or created with hermes cron create or by the agent's cronjob tool,
and fired by hermes serve. These commands show, change and run them.

  hermes cron status        is a scheduler running; how did each job's last run end
  hermes cron run NAME      run a job now, in the foreground, recorded and delivered
                            like a scheduled run (no hermes serve needed)
  hermes cron show NAME     one job whole, with its last runs

A run that fails (an error, no progress for scheduler.inactivity_timeout)
is delivered along the job's chain as a failure notice, so a broken job is
never silent.`,
	}
	list := &cobra.Command{
		Use:   "list",
		Short: "The jobs, their schedules and next fires, in their time zones",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return withJobs(cmd, a, func(ctx context.Context, store *cron.Store, zone string) error {
				return printJobs(ctx, cmd.OutOrStdout(), store, zone)
			})
		},
	}
	run := &cobra.Command{
		Use:   "run NAME",
		Short: "Run a job now, in the foreground: its agent turn and its delivery, recorded as a run",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			l, err := a.load(cmd)
			if err != nil {
				return err
			}
			log := a.logger(cmd)
			store, _, err := openJobs(cmd, a, l, log)
			if err != nil {
				return err
			}
			ctx := cmd.Context()
			if _, err := store.Get(ctx, args[0]); errors.Is(err, cron.ErrNotFound) {
				return fmt.Errorf("there is no job %q; hermes cron list shows them", args[0])
			} else if err != nil {
				return err
			}
			runner, err := newJobRunner(cmd, a, l, log)
			if err != nil {
				return err
			}
			defer runner.stop()
			res, err := runJobNow(ctx, store, runner, args[0])
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			if res.Output != "" {
				fmt.Fprintln(out, res.Output)
			}
			for _, d := range res.Deliveries {
				state := "ok"
				if !d.OK {
					state = "failed: " + d.Error
				}
				fmt.Fprintf(out, "  → %s %s\n", d.Target, state)
			}
			if res.Status == cron.StatusSilent {
				fmt.Fprintln(out, "  (the reply starts with [SILENT]: stored, not delivered)")
			}
			if res.Err != nil {
				return res.Err
			}
			return nil
		},
	}
	history := &cobra.Command{
		Use:   "history NAME",
		Short: "A job's last runs: when, how they ended, where the result went",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return withJobs(cmd, a, func(ctx context.Context, store *cron.Store, _ string) error {
				return printHistory(ctx, cmd.OutOrStdout(), store, args[0], 20)
			})
		},
	}
	byName := func(use, short string, do func(store *cron.Store, ctx context.Context, name string) error) *cobra.Command {
		return &cobra.Command{Use: use + " NAME", Short: short, Args: cobra.ExactArgs(1),
			RunE: func(cmd *cobra.Command, args []string) error {
				return withJobs(cmd, a, func(ctx context.Context, store *cron.Store, _ string) error {
					if err := do(store, ctx, args[0]); err != nil {
						return err
					}
					fmt.Fprintf(cmd.OutOrStdout(), "%s: %s\n", args[0], use+"d")
					return nil
				})
			}}
	}
	pause := byName("pause", "Stop a job firing until resume", (*cron.Store).Pause)
	resume := byName("resume", "Let a paused job fire again", (*cron.Store).Resume)
	remove := byName("remove", "Delete a job created at run time", (*cron.Store).Remove)
	cmd.AddCommand(list, newCronShowCmd(a), newCronCreateCmd(a), newCronEditCmd(a), pause, resume, run, remove, history, newCronStatusCmd(a), newCronExecCmd(a))
	return cmd
}

// withJobs opens the job store for a command and closes it after.
func withJobs(cmd *cobra.Command, a *app, fn func(ctx context.Context, store *cron.Store, zone string) error) error {
	l, err := a.load(cmd)
	if err != nil {
		return err
	}
	store, zone, err := openJobs(cmd, a, l, a.logger(cmd))
	if err != nil {
		return err
	}
	return fn(cmd.Context(), store, zone)
}

// printHistory writes a job's last n runs.
func printHistory(ctx context.Context, w io.Writer, store *cron.Store, name string, n int) error {
	runs, err := store.History(ctx, name, n)
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SCHEDULED\tSTATUS\tSESSION\tDELIVERED\tOUTPUT")
	for _, r := range runs {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", r.ScheduledFor.Format("2006-01-02 15:04"), r.Status, r.SessionID, deliveredTo(r), oneLine(r.Output+r.Error, 50))
	}
	return tw.Flush()
}
