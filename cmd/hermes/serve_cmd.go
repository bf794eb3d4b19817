package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"runtime/debug"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/hermes-go/hermes/internal/app"
	"github.com/hermes-go/hermes/internal/cron"
	"github.com/hermes-go/hermes/internal/notify"
	"github.com/hermes-go/hermes/internal/resident"
)

// startupSettle is how long after start serve gives back what start-up
// alone used.
const startupSettle = 2 * time.Second

func newServeCmd(a *cli) *cobra.Command {
	var check bool
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Run hermes as a long-running service: scheduled jobs, their delivery, and the chat gateway",
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

With a chat platform configured under gateway: (telegram, slack, discord,
wecom, feishu, dingtalk, matrix, email), serve also answers there (see
hermes pairing for letting people in, and hermes gateway status for
whether each platform connects); mail is answered only from the addresses
allowed. With gateway.webhook.routes it takes webhooks on
gateway.webhook.listen; turns then run in serve itself. A message taken
but not yet answered is kept in state.db, so a restart answers it.
With api.enabled it answers OpenAI clients on api.listen (127.0.0.1:8642),
and Prometheus at /metrics there, behind the API's keys;
observability.metrics_listen serves /metrics on a listener of its own.

Every curator.interval_hours (a week), once no turn has started for
curator.min_idle_hours, serve runs the skills curator (see hermes skills
curate --help); curator.enabled: false turns it off.

  hermes serve --check     validate the configuration and the jobs, then exit`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			// The configuration first: it may set the log's level.
			if _, err := a.load(cmd); err != nil {
				return err
			}
			a.log = a.jsonLogger(cmd.ErrOrStderr())
			h, err := a.openStores(cmd)
			if err != nil {
				return err
			}
			if (app.GatewayConfigured(h.Config.Config) || h.Config.Config.API.Enabled) && !check {
				// The gateway and the API server run turns in this
				// process, so they need the whole runtime, not only the
				// stores.
				h.Close()
				if h, err = a.open(cmd, app.Options{}); err != nil {
					return err
				}
				h.StartMCP(cmd.Context())
			}
			defer h.Close()
			ctx := cmd.Context()
			if err := h.SyncJobs(ctx); err != nil {
				return err
			}
			zone := app.JobZone(h.Config.Config)
			// The schedules are in the store now; serve reads them there.
			h.Config.Config.Schedules = nil
			warnings, err := h.CheckJobs(ctx, check)
			for _, w := range warnings {
				fmt.Fprintln(cmd.ErrOrStderr(), "warning:", w)
			}
			if err != nil {
				return err
			}
			if err := printJobs(ctx, cmd.OutOrStdout(), h.Jobs, zone); err != nil || check {
				return err
			}
			exe, err := selfExe()
			if err != nil {
				return err
			}
			h.StartKBReindex(ctx)
			h.StartFactsBackfill(ctx)
			h.ResumeExtractions(ctx)
			h.StartAuditPrune(ctx)
			h.StartRoll(ctx)
			h.StartCurator(ctx)
			runner := &app.ProcRunner{Exe: exe, Profile: a.profile, Stderr: cmd.ErrOrStderr(), Log: h.Log, Notifier: h.Notifier, Metrics: h.Metrics}
			// Start-up (config, schema, job list) leaves garbage that an
			// idle serve would hold for hours before the next collection.
			debug.FreeOSMemory()
			// The gateway stops with the scheduler, also when the
			// scheduler stops on an error of its own.
			gctx, stopGateway := context.WithCancel(ctx)
			defer stopGateway()
			gw, err := startGateway(gctx, h, cmd.OutOrStdout())
			if err != nil {
				return err
			}
			apiWait, err := startAPI(gctx, h, cmd.OutOrStdout())
			if err != nil {
				stopGateway()
				gw()
				return err
			}
			metricsWait, err := startMetrics(gctx, h, cmd.OutOrStdout())
			if err != nil {
				stopGateway()
				return errors.Join(err, gw(), apiWait())
			}
			h.Log.Info("hermes serve started", "zone", zone)
			// A moment after start, when the platforms have made their first
			// connections, the garbage and the pages of the binary only
			// start-up touched are given back (see package resident).
			settled := time.AfterFunc(startupSettle, func() {
				debug.FreeOSMemory()
				n, err := resident.Trim()
				h.Log.Debug("serve: start-up pages given back", "bytes", n, "err", err)
			})
			defer settled.Stop()
			err = h.RunScheduler(ctx, runner, a.loadOptions())
			stopGateway()
			gwErr := errors.Join(gw(), apiWait(), metricsWait())
			h.Log.Info("hermes serve stopped")
			if ctx.Err() != nil {
				return nil
			}
			return errors.Join(err, gwErr)
		},
	}
	cmd.Flags().BoolVar(&check, "check", false, "validate the configuration and the jobs, print the next fires, and exit")
	return cmd
}

// startGateway starts the gateway's platforms and webhook routes when
// the configuration has any, and returns a function that waits for them
// to stop (after ctx ends).
func startGateway(ctx context.Context, h *app.App, out io.Writer) (wait func() error, err error) {
	var waits []func() error
	wait = func() error {
		var errs []error
		for _, w := range waits {
			errs = append(errs, w())
		}
		return errors.Join(errs...)
	}
	if !app.GatewayConfigured(h.Config.Config) {
		return wait, nil
	}
	platforms, err := h.GatewayPlatforms()
	if err != nil {
		return nil, err
	}
	if len(platforms) > 0 {
		runner, err := h.GatewayRunner(platforms)
		if err != nil {
			return nil, err
		}
		h.AnnounceCommands(ctx, platforms)
		names := make([]string, len(platforms))
		for i, p := range platforms {
			names[i] = p.Name()
		}
		fmt.Fprintf(out, "gateway: listening on %s\n", strings.Join(names, ", "))
		done := make(chan error, 1)
		go func() { done <- runner.Run(ctx) }()
		waits = append(waits, func() error { return <-done })
	}
	hooks, hooksWait, err := h.GatewayHTTP(ctx, platforms)
	if err != nil || hooks == nil {
		return wait, err
	}
	addr := h.Config.Config.Gateway.Webhook.Listen
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("gateway.webhook.listen %q: %w", addr, err)
	}
	fmt.Fprintf(out, "gateway: webhooks on http://%s\n", ln.Addr())
	served := serveHTTP(ctx, ln, hooks)
	waits = append(waits, func() error { err := served(); hooksWait(); return err })
	return wait, nil
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
	fmt.Fprintln(tw, "JOB\tSCHEDULE\tNEXT FIRE\tRUNS\tDELIVER")
	for _, j := range jobs {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", j.Name, j.Schedule, nextFire(j, zone), jobKind(j), chain(j.Deliver))
	}
	return tw.Flush()
}

// jobKind says what a job runs: a team, a role agent's turn, a script alone,
// or a turn of hermes's own.
func jobKind(j cron.Job) string {
	switch {
	case j.Team != "":
		return "team " + j.Team
	case j.Agent != "":
		return "agent " + j.Agent
	case j.NoAgent:
		return "script"
	}
	return "hermes"
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
	return cron.FireTime(j.NextRunAt, cmp.Or(j.Timezone, zone))
}

// chain shows a job's delivery chain with the keys in its targets masked,
// "local" when it names none.
func chain(targets []string) string {
	if len(targets) == 0 {
		return "local"
	}
	out := make([]string, len(targets))
	for i, t := range targets {
		out[i] = notify.Mask(t)
	}
	return strings.Join(out, " → ")
}

func loadZone(name string) *time.Location {
	if loc, err := time.LoadLocation(name); err == nil {
		return loc
	}
	return time.Local
}
