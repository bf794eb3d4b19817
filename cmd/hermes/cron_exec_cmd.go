package main

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/hermes-go/hermes/internal/app"
	"github.com/hermes-go/hermes/internal/cron"
)

// newCronExecCmd is the child side of app.ProcRunner: it reads a job as JSON
// on stdin, runs it once (script, turn, delivery) and prints the result
// as one JSON line. It records nothing in the job's history; the
// scheduler that started it does.
func newCronExecCmd(a *cli) *cobra.Command {
	var scheduled string
	cmd := &cobra.Command{
		Use:    "exec --scheduled TIME < job.json",
		Short:  "Run one job given on stdin and print its result as JSON (used by hermes serve)",
		Hidden: true,
		Args:   cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			at, err := time.Parse(time.RFC3339Nano, scheduled)
			if err != nil {
				return fmt.Errorf("--scheduled %q: want an RFC 3339 time such as 2026-12-07T09:00:00+08:00", scheduled)
			}
			var job cron.Job
			if err := json.NewDecoder(a.stdin).Decode(&job); err != nil {
				return fmt.Errorf("reading the job on stdin: %w", err)
			}
			h, err := openChild(cmd, a)
			if err != nil {
				return err
			}
			defer h.Close()
			res := h.Engine.RunJob(cmd.Context(), job, at)
			out := app.NewExecResult(res)
			out.Usage = h.Metrics.UsageTotals()
			return json.NewEncoder(cmd.OutOrStdout()).Encode(out)
		},
	}
	cmd.Flags().StringVar(&scheduled, "scheduled", "", "the fire this run is for (RFC 3339)")
	return cmd
}

// openChild opens hermes in a process hermes serve started, for a job's
// run or a team run it took over. serve printed the configuration's
// warnings at start; here stderr carries JSON log lines only, like
// serve's.
func openChild(cmd *cobra.Command, a *cli) (*app.App, error) {
	stderr := cmd.ErrOrStderr()
	cmd.SetErr(io.Discard)
	_, err := a.load(cmd)
	cmd.SetErr(stderr)
	if err != nil {
		return nil, err
	}
	a.log = a.jsonLogger(stderr)
	return openJobRunner(cmd, a)
}

// jsonLogger is the log of hermes serve and its job processes: JSON lines
// at info level (or logging.level), secrets redacted.
func (a *cli) jsonLogger(w io.Writer) *slog.Logger {
	return newLogger(slog.NewJSONHandler(w, &slog.HandlerOptions{Level: a.logLevel(slog.LevelInfo)}))
}

// selfExe is this binary's path, for starting job processes.
func selfExe() (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("finding the hermes binary to run jobs with: %w", err)
	}
	return strings.TrimSuffix(exe, " (deleted)"), nil
}
