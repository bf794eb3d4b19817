package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/hermes-go/hermes/cron"
	"github.com/hermes-go/hermes/notify"
)

// jobKillDelay is how long a job's process has, once told to stop, to
// record its session and report before it is killed.
const jobKillDelay = 10 * time.Second

// procRunner runs each job in a child hermes process ("hermes cron
// exec"), so the long-running hermes serve never builds the engine: the
// model chain, the tools and their connections, MCP servers and memory
// live only as long as one run. Idle, serve holds only the scheduler; a
// job that leaks or crashes takes only its own process with it; and each
// run reads the tools and skills as they are on disk at that moment.
type procRunner struct {
	exe     string    // this binary
	profile string    // --profile to pass on, if any
	stderr  io.Writer // where the children's JSON logs go: serve's own
	log     *slog.Logger
	// notifier delivers the failure notice of a job process that died
	// without reporting (killed, out of memory), which could not send
	// its own.
	notifier *notify.Notifier
}

// execResult is what "hermes cron exec" prints: a cron.RunResult.
type execResult struct {
	Status     string          `json:"status,omitempty"`
	SessionID  string          `json:"session_id,omitempty"`
	Output     string          `json:"output,omitempty"`
	Error      string          `json:"error,omitempty"`
	Deliveries []cron.Delivery `json:"deliveries,omitempty"`
}

func (p *procRunner) Run(ctx context.Context, job cron.Job, scheduled time.Time) cron.RunResult {
	in, err := json.Marshal(job)
	if err != nil {
		return cron.RunResult{Err: fmt.Errorf("encoding the job: %w", err)}
	}
	args := []string{"cron", "exec", "--scheduled", scheduled.Format(time.RFC3339Nano)}
	if p.profile != "" {
		args = append([]string{"--profile", p.profile}, args...)
	}
	cmd := exec.CommandContext(ctx, p.exe, args...)
	cmd.Stdin = bytes.NewReader(in)
	cmd.Stderr = p.stderr
	detach(cmd)
	// Stopping serve stops the run the way SIGTERM stops hermes: the
	// turn ends, its session is recorded, the result is reported.
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = jobKillDelay
	out, err := cmd.Output()
	var r execResult
	line := out[bytes.LastIndexByte(bytes.TrimRight(out, "\n"), '\n')+1:]
	if jerr := json.Unmarshal(line, &r); jerr != nil {
		if err == nil {
			err = jerr
		}
		p.log.Error("job process ended without a result", "job", job.Name, "error", err.Error())
		res := cron.RunResult{Err: fmt.Errorf("the job's process ended without a result: %w", err)}
		if ctx.Err() == nil && p.notifier != nil {
			deliverRun(ctx, p.notifier, job, scheduled, &res)
		}
		return res
	}
	res := cron.RunResult{Status: r.Status, SessionID: r.SessionID, Output: r.Output, Deliveries: r.Deliveries}
	if r.Error != "" {
		res.Err = errors.New(r.Error)
	}
	return res
}

// newCronExecCmd is the child side of procRunner: it reads a job as JSON
// on stdin, runs it once (script, turn, delivery) and prints the result
// as one JSON line. It records nothing in the job's history; the
// scheduler that started it does.
func newCronExecCmd(a *app) *cobra.Command {
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
			// hermes serve printed the configuration's warnings at start;
			// here stderr carries JSON log lines only.
			stderr := cmd.ErrOrStderr()
			cmd.SetErr(io.Discard)
			l, err := a.load(cmd)
			cmd.SetErr(stderr)
			if err != nil {
				return err
			}
			log := jsonLogger(stderr)
			a.log = log
			runner, err := newJobRunner(cmd, a, l, log)
			if err != nil {
				return err
			}
			defer runner.stop()
			res := runner.Run(cmd.Context(), job, at)
			r := execResult{Status: res.Status, SessionID: res.SessionID, Output: res.Output, Deliveries: res.Deliveries}
			if res.Err != nil {
				r.Error = res.Err.Error()
			}
			return json.NewEncoder(cmd.OutOrStdout()).Encode(r)
		},
	}
	cmd.Flags().StringVar(&scheduled, "scheduled", "", "the fire this run is for (RFC 3339)")
	return cmd
}

// jsonLogger is the log of hermes serve and its job processes: JSON lines
// at info level, secrets redacted.
func jsonLogger(w io.Writer) *slog.Logger {
	return slog.New(redactingHandler{slog.NewJSONHandler(w, &slog.HandlerOptions{Level: slog.LevelInfo})})
}

// selfExe is this binary's path, for starting job processes.
func selfExe() (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("finding the hermes binary to run jobs with: %w", err)
	}
	return strings.TrimSuffix(exe, " (deleted)"), nil
}
