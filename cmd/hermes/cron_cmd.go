package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/hermes-go/hermes/internal/app"
	"github.com/hermes-go/hermes/internal/cron"
)

// openJobRunner assembles hermes to run jobs (nobody can approve a
// command in them, so approvals.cron_mode decides). Without a usable model
// no_agent jobs still run, and agent jobs fail with the reason, delivered
// like any failure. The caller closes it.
func openJobRunner(cmd *cobra.Command, a *cli) (*app.App, error) {
	h, err := a.open(cmd, app.Options{})
	if err != nil {
		return nil, err
	}
	if _, err := h.Models.Main(); err != nil {
		h.Log.Warn("no model: only no_agent jobs can run", "error", err.Error())
	} else {
		h.StartMCP(cmd.Context())
	}
	return h, nil
}

func newCronCmd(a *cli) *cobra.Command {
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
			h, err := openJobRunner(cmd, a)
			if err != nil {
				return err
			}
			defer h.Close()
			ctx := cmd.Context()
			if err := h.SyncJobs(ctx); err != nil {
				return err
			}
			if _, err := h.Jobs.Get(ctx, args[0]); errors.Is(err, cron.ErrNotFound) {
				return fmt.Errorf("there is no job %q; hermes cron list shows them", args[0])
			} else if err != nil {
				return err
			}
			res, err := h.Engine.RunJobNow(ctx, args[0])
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

// withJobs opens the job store, with config.yaml's schedules synced into
// it, for a command and closes it after. zone is the zone of jobs that
// name none.
func withJobs(cmd *cobra.Command, a *cli, fn func(ctx context.Context, store *cron.Store, zone string) error) error {
	h, err := a.openStores(cmd)
	if err != nil {
		return err
	}
	defer h.Close()
	if err := h.SyncJobs(cmd.Context()); err != nil {
		return err
	}
	return fn(cmd.Context(), h.Jobs, app.JobZone(h.Config.Config))
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
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", localTime(r.ScheduledFor), r.Status, r.SessionID, deliveredTo(r), oneLine(r.Output+r.Error, 50))
	}
	return tw.Flush()
}
