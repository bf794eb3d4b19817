package app

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os/exec"
	"strconv"
	"syscall"
	"time"

	"github.com/hermes-go/hermes/internal/cron"
	"github.com/hermes-go/hermes/internal/engine"
	"github.com/hermes-go/hermes/internal/metrics"
	"github.com/hermes-go/hermes/internal/notify"
	"github.com/hermes-go/hermes/internal/procgroup"
)

// jobKillDelay is how long a job's process has, once told to stop, to
// record its session and report before it is killed.
const jobKillDelay = 10 * time.Second

// ProcRunner runs each job in a child hermes process ("hermes cron
// exec"), so the long-running hermes serve never builds the engine: the
// model chain, the tools and their connections, MCP servers and memory
// live only as long as one run. Idle, serve holds only the scheduler; a
// job that leaks or crashes takes only its own process with it; and each
// run reads the tools and skills as they are on disk at that moment.
type ProcRunner struct {
	// Exe is the hermes binary; Profile the --profile to pass on, if any.
	Exe, Profile string
	// Stderr is where the children's JSON logs go: serve's own.
	Stderr io.Writer
	Log    *slog.Logger
	// Notifier delivers the failure notice of a job process that died
	// without reporting (killed, out of memory), which could not send its
	// own.
	Notifier *notify.Notifier
	// Metrics, when set, counts the tokens and cost the job processes
	// report, so serve's /metrics has the jobs' too.
	Metrics *metrics.Set
}

// ExecResult is what "hermes cron exec" prints: a cron.RunResult as one
// JSON line.
type ExecResult struct {
	Status     string          `json:"status,omitempty"`
	SessionID  string          `json:"session_id,omitempty"`
	Output     string          `json:"output,omitempty"`
	Error      string          `json:"error,omitempty"`
	Deliveries []cron.Delivery `json:"deliveries,omitempty"`
	// Usage is what the job's turns used, by model and user.
	Usage []metrics.UsageTotal `json:"usage,omitempty"`
}

// NewExecResult is the line a job process prints for res.
func NewExecResult(res cron.RunResult) ExecResult {
	r := ExecResult{Status: res.Status, SessionID: res.SessionID, Output: res.Output, Deliveries: res.Deliveries}
	if res.Err != nil {
		r.Error = res.Err.Error()
	}
	return r
}

// exec runs hermes with args in a process of its own, as a job's run is
// run, and waits for it.
func (p *ProcRunner) exec(ctx context.Context, args []string, stdin io.Reader, stdout io.Writer) error {
	if p.Profile != "" {
		args = append([]string{"--profile", p.Profile}, args...)
	}
	cmd := exec.CommandContext(ctx, p.Exe, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, stdout, p.Stderr
	// The process leads a process group of its own, so Ctrl-C in the
	// terminal running hermes serve reaches serve alone, and serve gives
	// it its shutdown grace before passing the stop on. If serve dies,
	// the kernel sends it SIGTERM.
	procgroup.NewGroupTerm(cmd)
	// Stopping serve stops the run the way SIGTERM stops hermes: the
	// turn ends, its session is recorded, the result is reported.
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = jobKillDelay
	done, err := procgroup.Start(cmd)
	if err == nil {
		err = <-done
	}
	return err
}

// ResumeTeam goes on with an orphaned team run in a process of its own
// ("hermes team adopt"), which delivers its answer when it ends. It has
// the shape app's team adoption wants.
func (p *ProcRunner) ResumeTeam(ctx context.Context, run int64) error {
	var stdout bytes.Buffer
	err := p.exec(ctx, []string{"team", "adopt", strconv.FormatInt(run, 10)}, nil, &stdout)
	var res TeamAdoptResult
	if jerr := json.Unmarshal(lastLine(stdout.Bytes()), &res); jerr != nil {
		return fmt.Errorf("hermes team adopt %d ended without a result: %w", run, cmp.Or(err, jerr))
	}
	switch {
	case res.Error != "":
		return fmt.Errorf("team run %d: %s", run, res.Error)
	case res.Skipped != "":
		p.Log.Info("team: run left alone: another process holds it", "run", run, "reason", res.Skipped)
	default:
		p.Log.Info("team: run taken over ended", "run", run, "state", res.State)
	}
	return nil
}

// Run starts the job's process and reads its result. It has the shape of
// cron.Runner.
func (p *ProcRunner) Run(ctx context.Context, job cron.Job, scheduled time.Time) cron.RunResult {
	in, err := json.Marshal(job)
	if err != nil {
		return cron.RunResult{Err: fmt.Errorf("encoding the job: %w", err)}
	}
	var stdout bytes.Buffer
	err = p.exec(ctx, []string{"cron", "exec", "--scheduled", scheduled.Format(time.RFC3339Nano)}, bytes.NewReader(in), &stdout)
	var r ExecResult
	if jerr := json.Unmarshal(lastLine(stdout.Bytes()), &r); jerr != nil {
		if err == nil {
			err = jerr
		}
		p.Log.Error("job process ended without a result", "job", job.Name, "error", err.Error())
		res := cron.RunResult{Err: fmt.Errorf("the job's process ended without a result: %w", err)}
		if ctx.Err() == nil && p.Notifier != nil {
			engine.DeliverRun(ctx, p.Notifier, job, scheduled, &res)
		}
		return res
	}
	p.Metrics.AddUsage(r.Usage)
	res := cron.RunResult{Status: r.Status, SessionID: r.SessionID, Output: r.Output, Deliveries: r.Deliveries}
	if r.Error != "" {
		res.Err = errors.New(r.Error)
	}
	return res
}

// lastLine is the last line a child hermes printed on stdout: its result,
// as one JSON line, after anything a script or tool let through.
func lastLine(out []byte) []byte {
	out = bytes.TrimRight(out, "\n")
	return out[bytes.LastIndexByte(out, '\n')+1:]
}
