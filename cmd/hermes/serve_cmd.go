package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/hermes-go/hermes/config"
	"github.com/hermes-go/hermes/cron"
	"github.com/hermes-go/hermes/notify"
)

func newServeCmd(a *app) *cobra.Command {
	var check bool
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Run hermes as a long-running service: scheduled jobs and their delivery",
		Long: `Run the scheduler: the jobs under schedules: in config.yaml fire on time,
in their time zones, each in a fresh session (or their own with
session_type: continue), and their results are delivered along their
deliver: chain, ending in $HERMES_HOME/deliveries/ so nothing is lost.
Fires missed while hermes was down run once when it comes back (catch_up).
Only one process fires jobs, even with several hermes serve on one home.
Editing schedules: in config.yaml takes effect without a restart.
Each run happens in a child hermes process of its own, so serve itself
stays small however long it runs, and each run sees the tools, skills
and configuration as they are on disk at that moment.

At start it prints the time zone and each job's next fire. Logs are JSON
lines on stderr. SIGTERM or Ctrl-C stops it: no new run starts, runs in
progress get scheduler.shutdown_timeout (20s) to finish and are then
cancelled; every message is stored as it is produced, so their sessions
stay consistent. A run with no progress for scheduler.inactivity_timeout
(10m) is stopped and reported as failed.

  hermes serve --check     validate the configuration and the jobs, then exit`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			l, err := a.load(cmd)
			if err != nil {
				return err
			}
			log := jsonLogger(cmd.ErrOrStderr())
			store, zone, err := openJobs(cmd, a, l, log)
			if err != nil {
				return err
			}
			// The schedules are in the store now; serve reads them there.
			l.Config.Schedules = nil
			ctx := cmd.Context()
			notifier := notify.New(notifyConfig(l, log))
			if err := checkJobs(ctx, cmd.ErrOrStderr(), store, l, notifier, check); err != nil {
				return err
			}
			if check {
				return printJobs(ctx, cmd.OutOrStdout(), store, zone)
			}
			exe, err := selfExe()
			if err != nil {
				return err
			}
			host, _ := os.Hostname()
			sched, err := cron.New(cron.Options{
				Store: store, Clock: cron.RealClock{}, Logger: log,
				Runner:        &procRunner{exe: exe, profile: a.profile, stderr: cmd.ErrOrStderr(), log: log, notifier: notifier},
				Holder:        fmt.Sprintf("%s/%d", host, os.Getpid()),
				MaxConcurrent: l.Config.Scheduler.MaxConcurrent,
				ShutdownGrace: l.Config.Scheduler.ShutdownTimeout,
			})
			if err != nil {
				return err
			}
			if err := printJobs(ctx, cmd.OutOrStdout(), store, zone); err != nil {
				return err
			}
			// Start-up (config, schema, job list) leaves garbage that an
			// idle serve would hold for hours before the next collection.
			debug.FreeOSMemory()
			watchCtx, stopWatch := context.WithCancel(ctx)
			reloads := make(chan struct{})
			go func() {
				defer close(reloads)
				watchSchedules(watchCtx, a.loadOptions(), l.Paths.ConfigFile, store, log)
			}()
			defer func() { stopWatch(); <-reloads }()
			log.Info("hermes serve started", "zone", zone)
			err = sched.Run(ctx)
			log.Info("hermes serve stopped")
			if ctx.Err() != nil {
				return nil
			}
			return err
		},
	}
	cmd.Flags().BoolVar(&check, "check", false, "validate the configuration and the jobs, print the next fires, and exit")
	return cmd
}

// checkJobs parses every job's deliver: chain, so a mistyped target is
// an error at start rather than a lost result at 09:00, and warns when
// agent jobs have no model to call; under --check (strict) that is an
// error too.
func checkJobs(ctx context.Context, w io.Writer, store *cron.Store, l *config.Loaded, n *notify.Notifier, strict bool) error {
	jobs, err := store.List(ctx)
	if err != nil {
		return err
	}
	_, modelErr := l.ResolveModel(config.ModelOverride{})
	var errs []error
	for _, j := range jobs {
		if _, err := n.ParseChain(j.Deliver); err != nil {
			errs = append(errs, fmt.Errorf("job %q: %w", j.Name, err))
		}
		if modelErr != nil && !j.NoAgent && j.Enabled {
			if !strict {
				fmt.Fprintf(w, "warning: job %q will fail: it needs a model: %v\n", j.Name, modelErr)
				continue
			}
			errs = append(errs, fmt.Errorf("job %q needs a model: %w", j.Name, modelErr))
		}
	}
	return errors.Join(errs...)
}

// printJobs prints the time zone and each job's next fire (seed 003: a
// zone mistake shows at start, not at 09:00).
func printJobs(ctx context.Context, w io.Writer, store *cron.Store, zone string) error {
	jobs, err := store.List(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "time zone: %s (now %s)\n", zone, time.Now().In(loadZone(zone)).Format("2006-01-02 15:04 MST"))
	if len(jobs) == 0 {
		fmt.Fprintln(w, "no jobs: add schedules: to config.yaml, or hermes cron create")
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "JOB\tSCHEDULE\tNEXT FIRE\tDELIVER")
	for _, j := range jobs {
		deliver := strings.Join(j.Deliver, " → ")
		if deliver == "" {
			deliver = "local"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", j.Name, j.Schedule, nextFire(j, zone), maskTargets(deliver))
	}
	return tw.Flush()
}

// nextFire says when a job fires next, in its zone (zone when it names
// none), or why it does not.
func nextFire(j cron.Job, zone string) string {
	switch {
	case !j.Enabled:
		return "paused"
	case j.NextRunAt.IsZero():
		return "none (a one-shot that has run)"
	}
	return fireTime(j.NextRunAt, firstNonEmpty(j.Timezone, zone))
}

// maskTargets hides the keys in delivery targets (wecom:KEY, URLs with
// tokens) when they are printed.
func maskTargets(s string) string {
	var out []string
	for _, t := range strings.Split(s, " → ") {
		kind, rest, ok := strings.Cut(t, ":")
		if ok && len(rest) > 8 && (kind == "wecom" || kind == "feishu" || kind == "dingtalk" || kind == "slack") {
			t = kind + ":…" + rest[len(rest)-4:]
		}
		out = append(out, t)
	}
	return strings.Join(out, " → ")
}

func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func loadZone(name string) *time.Location {
	if loc, err := time.LoadLocation(name); err == nil {
		return loc
	}
	return time.Local
}

// machineZone is the IANA name of the machine's time zone: $TZ, else the
// target of /etc/localtime, else UTC.
func machineZone() string {
	if tz := os.Getenv("TZ"); tz != "" {
		return strings.TrimPrefix(tz, ":")
	}
	if target, err := filepath.EvalSymlinks("/etc/localtime"); err == nil {
		if _, name, ok := strings.Cut(target, "zoneinfo/"); ok {
			return name
		}
	}
	return "UTC"
}
