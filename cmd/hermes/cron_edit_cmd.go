package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/hermes-go/hermes/internal/config"
	"github.com/hermes-go/hermes/internal/cron"
)

// specFlags are the flags that set a job's spec, shared by cron create
// and cron edit; edit changes only the fields whose flags are given.
type specFlags struct {
	spec cron.Spec
}

func (f *specFlags) register(fl *pflag.FlagSet) {
	s := &f.spec
	fl.StringVar(&s.Schedule, "schedule", "", `cron expression, @daily, "every 30m", 2026-12-24T09:00 or "in 2h"`)
	fl.StringVar(&s.Prompt, "prompt", "", "the instruction the job runs with")
	fl.StringVar(&s.Timezone, "timezone", "", "IANA zone of the schedule (default: timezone in config.yaml, else the machine's)")
	fl.StringSliceVar(&s.Deliver, "deliver", nil, "delivery targets in order (wecom:KEY, email:ADDRESS, webhook:URL, local, ...)")
	fl.StringSliceVar(&s.Skills, "skills", nil, "skills loaded before the prompt")
	fl.StringSliceVar(&s.Toolsets, "toolsets", nil, "toolsets the job may use (default: the configured ones)")
	fl.StringVar(&s.Model, "model", "", "model the job calls on the configured provider (default: the configured one)")
	fl.StringVar(&s.Script, "script", "", "shell command run first; its output goes into the prompt")
	fl.BoolVar(&s.NoAgent, "no-agent", false, "deliver the script's output without asking the model")
	fl.StringVar(&s.SessionType, "session-type", "", "new (a fresh session per run, the default) or continue (the job's own)")
	fl.StringVar(&s.CatchUp, "catch-up", "", "fires missed while hermes was down: once (default), skip or all")
	fl.StringVar(&s.Team, "team", "", "the team (teams: in config.yaml) the job runs; --prompt is the run's goal (default: the team's goal)")
	fl.StringVar(&s.Memory, "memory", "", "extract: each run's lasting facts go into long-term memory; off (default) leaves them out")
}

// checkJobTeam checks a job that runs a team against config.yaml's teams,
// as a schedule's are checked when config.yaml loads: the team exists and
// the run has a goal.
func checkJobTeam(cmd *cobra.Command, a *cli, name string, spec cron.Spec) error {
	if spec.Team == "" {
		return nil
	}
	l, err := a.load(cmd)
	if err != nil {
		return err
	}
	s := config.Schedule{Team: spec.Team, Prompt: spec.Prompt, Agent: spec.Agent, NoAgent: spec.NoAgent}
	if err := l.Config.CheckTeamJob(s); err != nil {
		return fmt.Errorf("job %q: %w", name, err)
	}
	return nil
}

// apply copies the flags of a job's fields that were given onto spec;
// the flags of hermes itself (--profile) are no field.
func (f *specFlags) apply(fl *pflag.FlagSet, spec cron.Spec) (cron.Spec, error) {
	var fields []string
	fl.Visit(func(p *pflag.Flag) {
		if name := strings.ReplaceAll(p.Name, "-", "_"); slices.Contains(cron.SpecFields, name) {
			fields = append(fields, name)
		}
	})
	return spec.Patch(f.spec, fields)
}

func newCronCreateCmd(a *cli) *cobra.Command {
	var f specFlags
	cmd := &cobra.Command{
		Use:   "create NAME --schedule WHEN (--prompt TEXT | --team NAME)",
		Short: "Create a job (kept in state.db; jobs in config.yaml are edited there)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return withJobs(cmd, a, func(ctx context.Context, store *cron.Store, _ string) error {
				if err := checkJobTeam(cmd, a, args[0], f.spec); err != nil {
					return err
				}
				job, err := store.Create(ctx, cron.Job{Name: args[0], Source: cron.SourceTool, Spec: f.spec})
				if err != nil {
					return err
				}
				fmt.Fprintf(cmd.OutOrStdout(), "created %s; next fire %s\n", job.Name, nextFire(job, ""))
				return nil
			})
		},
	}
	f.register(cmd.Flags())
	return cmd
}

func newCronEditCmd(a *cli) *cobra.Command {
	var f specFlags
	cmd := &cobra.Command{
		Use:   "edit NAME [--schedule WHEN] [--prompt TEXT] ...",
		Short: "Change a job created at run time; only the fields given change",
		Long: `Change a job created with hermes cron create or by the agent's cronjob
tool. Only the fields whose flags are given change; the job is
rescheduled from now. Jobs declared under schedules: in config.yaml are
edited in config.yaml.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if cmd.Flags().NFlag() == 0 {
				return fmt.Errorf("nothing to change: give at least one of --schedule, --prompt, --timezone, --deliver, ... (hermes cron edit --help)")
			}
			return withJobs(cmd, a, func(ctx context.Context, store *cron.Store, _ string) error {
				job, err := store.Get(ctx, args[0])
				if err != nil {
					return err
				}
				spec, err := f.apply(cmd.Flags(), job.Spec)
				if err != nil {
					return err
				}
				if err := checkJobTeam(cmd, a, job.Name, spec); err != nil {
					return err
				}
				job, err = store.Update(ctx, job.Name, spec)
				if err != nil {
					return err
				}
				fmt.Fprintf(cmd.OutOrStdout(), "changed %s; next fire %s\n", job.Name, nextFire(job, ""))
				return nil
			})
		},
	}
	f.register(cmd.Flags())
	return cmd
}

func newCronShowCmd(a *cli) *cobra.Command {
	return &cobra.Command{
		Use:   "show NAME",
		Short: "One job whole: its schedule, what it does, where it delivers, its last runs",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return withJobs(cmd, a, func(ctx context.Context, store *cron.Store, _ string) error {
				job, err := store.Get(ctx, args[0])
				if err != nil {
					return err
				}
				out := cmd.OutOrStdout()
				printJob(out, job)
				fmt.Fprintln(out)
				if err := printHistory(ctx, out, store, job.Name, 5); err != nil {
					return err
				}
				runs, err := store.History(ctx, job.Name, 1)
				if err != nil || len(runs) == 0 {
					return err
				}
				r := runs[0]
				fmt.Fprintf(out, "\nlast run (%s, %s):\n%s\n", cron.FireTime(r.ScheduledFor, job.Timezone), r.Status, strings.TrimSpace(r.Output+"\n"+r.Error))
				return nil
			})
		},
	}
}

// printJob writes a job's fields, one per line.
func printJob(w io.Writer, j cron.Job) {
	when := func(t time.Time) string { return cron.FireTime(t, j.Timezone) }
	state := "enabled"
	if !j.Enabled {
		state = "paused"
	}
	from := "config.yaml"
	if j.Source != cron.SourceConfig {
		from = "state.db (hermes cron create or the cronjob tool)"
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	rows := [][2]string{
		{"job", j.Name}, {"declared in", from}, {"state", state},
		{"schedule", j.Schedule}, {"time zone", j.Timezone},
		{"next fire", when(j.NextRunAt)}, {"last run", when(j.LastRunAt)},
		{"session", j.SessionType + sessionNote(j)}, {"catch up", j.CatchUp},
		{"agent", j.Agent}, {"team", jobTeamNote(j)},
		{"model", j.Model}, {"toolsets", strings.Join(j.Toolsets, ", ")}, {"skills", strings.Join(j.Skills, ", ")},
		{"script", j.Script}, {"deliver", chain(j.Deliver)},
	}
	if j.NoAgent {
		rows = append(rows, [2]string{"no_agent", "true (the script's output is delivered)"})
	}
	for _, r := range rows {
		if r[1] != "" {
			fmt.Fprintf(tw, "%s:\t%s\n", r[0], r[1])
		}
	}
	tw.Flush()
	if j.Prompt != "" {
		fmt.Fprintf(w, "prompt:\n  %s\n", strings.ReplaceAll(strings.TrimSpace(j.Prompt), "\n", "\n  "))
	}
}

// jobTeamNote shows the team a job runs and where its run's goal comes
// from; "" for a job without a team.
func jobTeamNote(j cron.Job) string {
	switch {
	case j.Team == "":
		return ""
	case j.Prompt == "":
		return j.Team + " (the run's goal is the team's goal:)"
	}
	return j.Team + " (the prompt is the run's goal)"
}

func sessionNote(j cron.Job) string {
	if j.SessionType == cron.SessionContinue && j.SessionID != "" {
		return " (" + j.SessionID + ")"
	}
	return ""
}
