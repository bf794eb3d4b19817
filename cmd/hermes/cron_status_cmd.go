package main

import (
	"context"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/hermes-go/hermes/internal/cron"
	"github.com/hermes-go/hermes/internal/notify"
)

func newCronStatusCmd(a *cli) *cobra.Command {
	return &cobra.Command{
		Use:   "status",
		Short: "Whether a scheduler is firing the jobs, and how each job's last run ended",
		Long: `Say whether a hermes serve holds the scheduler lease of this home (jobs
fire only while one does), and for each job its next fire and how its last
run ended, so a job that stopped working shows here rather than by its
silence.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return withJobs(cmd, a, func(ctx context.Context, store *cron.Store, zone string) error {
				return printStatus(ctx, cmd.OutOrStdout(), store, zone)
			})
		},
	}
}

// printStatus writes the scheduler's state and each job's last run.
func printStatus(ctx context.Context, w io.Writer, store *cron.Store, zone string) error {
	holder, until, ok, err := store.Holder(ctx)
	if err != nil {
		return err
	}
	if ok {
		fmt.Fprintf(w, "scheduler: running (%s, lease renewed until %s)\n", holder, until.In(loadZone(zone)).Format("15:04:05 MST"))
	} else {
		fmt.Fprintln(w, "scheduler: not running; jobs fire only while hermes serve runs (start it, or hermes service install)")
	}
	fmt.Fprintf(w, "time zone: %s\n", zone)
	jobs, err := store.List(ctx)
	if err != nil {
		return err
	}
	if len(jobs) == 0 {
		fmt.Fprintln(w, "no jobs")
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "JOB\tNEXT FIRE\tLAST RUN\tSTATUS\tDELIVERED TO\tERROR")
	for _, j := range jobs {
		runs, err := store.History(ctx, j.Name, 1)
		if err != nil {
			return err
		}
		last, status, delivered, why := "never", "-", "", ""
		if len(runs) > 0 {
			r := runs[0]
			last, status, why = cron.FireTime(r.ScheduledFor, j.Timezone), r.Status, oneLine(r.Error, 60)
			delivered = deliveredTo(r)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", j.Name, nextFire(j, zone), last, status, delivered, why)
	}
	return tw.Flush()
}

// deliveredTo is the target that finally took a run's result.
func deliveredTo(r cron.Run) string {
	for i := len(r.Deliveries) - 1; i >= 0; i-- {
		if r.Deliveries[i].OK {
			return notify.Mask(r.Deliveries[i].Target)
		}
	}
	return ""
}
