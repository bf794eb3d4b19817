package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/hermes-go/hermes/internal/batch"
	"github.com/hermes-go/hermes/internal/config"
	"github.com/hermes-go/hermes/internal/lazy"
	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/safety"
)

func newBatchCmd(a *cli) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "batch",
		Short: "Run a file of prompts and write their trajectories",
	}
	cmd.AddCommand(newBatchRunCmd(a))
	return cmd
}

// runName is what --run accepts: it names a directory.
var runName = lazy.Regexp{Expr: `^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$`}

func newBatchRunCmd(a *cli) *cobra.Command {
	var f turnFlags
	var run, out string
	var workers int
	var resume bool
	cmd := &cobra.Command{
		Use:   "run PROMPTS.jsonl --run NAME",
		Short: "Run one turn per line of a JSONL file, several at a time, into trajectories.jsonl",
		Long: `Run one turn per line of PROMPTS.jsonl, each in a new session (source
"batch"), --workers at a time. A line is {"prompt": "…"} with optional
"cwd" (where its tools start) and "toolsets" (instead of --toolsets).

Each finished turn is appended to trajectories.jsonl in Hermes's
trajectory format (ShareGPT conversations with <tool_call> and
<tool_response> blocks, api_calls, toolsets_used, tool_stats); samples
whose model called a tool that does not exist are marked partial.
statistics.json sums the tool calls. The files go to
$HERMES_HOME/batch/NAME, or --out.

A run killed or stopped with Ctrl-C keeps what finished; --resume runs
only the prompts that have no entry yet. Nobody watches a batch:
dangerous commands are decided by approvals.cron_mode (deny unless set
to allow).`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if !runName.Get().MatchString(run) {
				return fmt.Errorf("--run %q: want a name of letters, digits, '.', '_' and '-', such as eval-2026-12", run)
			}
			if workers < 1 || workers > 256 {
				return fmt.Errorf("--workers %d: want 1 to 256", workers)
			}
			if f.maxTurns < 0 {
				return fmt.Errorf("--max-turns %d: want a positive number, or 0 for agent.max_turns", f.maxTurns)
			}
			lines, err := batch.ReadFile(args[0])
			if err != nil {
				return err
			}
			l, err := a.load(cmd)
			if err != nil {
				return err
			}
			// A batch's samples must not depend on the user's long-term
			// memory, nor write its prompts into it: no facts are recalled
			// into the prompts, and none extracted from the sessions.
			l.Config.Memory.LongTerm.Enabled = config.FlagFalse
			h, err := a.openTurns(cmd, &f, f.options())
			if err != nil {
				return err
			}
			defer h.Close()
			r, _ := h.Models.Main()
			dir := out
			if dir == "" {
				dir = filepath.Join(h.Config.Paths.Home, "batch", run)
			}
			toolsets := splitList(f.toolsets)
			if len(toolsets) == 0 {
				toolsets = h.Config.Config.Toolsets
			}
			for _, l := range lines {
				if _, err := h.Engine.Toolbox(l.Toolsets); err != nil {
					return fmt.Errorf("%s: line %d: toolsets: %w", args[0], l.LineNo, err)
				}
			}
			bar := newBatchBar(cmd.ErrOrStderr())
			sum, err := batch.Run(cmd.Context(), h.Engine, h.Sessions, lines, batch.Options{
				Run: run, Dir: dir, Workers: workers, Toolsets: toolsets, MaxTurns: f.maxTurns,
				Model: r.Model, Resume: resume,
				Approval: safety.Asker{NonInteractive: string(h.Config.Config.Approvals.CronMode)},
				Specs: func(ts []string) ([]llm.ToolSpec, error) {
					b, err := h.Engine.Toolbox(ts)
					if err != nil {
						return nil, err
					}
					return b.Specs(), nil
				},
				Progress: bar.update,
			})
			bar.end()
			w := cmd.ErrOrStderr()
			if errors.Is(err, batch.ErrExists) {
				return err
			}
			fmt.Fprintf(w, "%d of %d prompts done (%d this run, %d skipped as done before, %d failed) in %s; output in %s\n",
				sum.Skipped+sum.Done, sum.Total, sum.Done, sum.Skipped, sum.Failed, sum.Duration.Round(time.Millisecond), dir)
			if err != nil {
				if cmd.Context().Err() != nil {
					return fmt.Errorf("stopped; what finished is kept: run again with --resume to do the rest")
				}
				return err
			}
			if sum.Failed > 0 {
				return fmt.Errorf("%d prompts failed; run again with --resume to try them again", sum.Failed)
			}
			return nil
		},
	}
	f.modelFlags.register(cmd)
	fl := cmd.Flags()
	fl.StringVar(&run, "run", "", "the run's `NAME`: its output directory, and what --resume goes on with (required)")
	fl.StringVar(&out, "out", "", "write the run's files to `DIR` instead of $HERMES_HOME/batch/NAME")
	fl.IntVar(&workers, "workers", 4, "how many turns run at once")
	fl.BoolVar(&resume, "resume", false, "go on with the run's output, skipping the prompts done")
	fl.StringVar(&f.toolsets, "toolsets", "", "comma-separated toolsets for prompts that name none (default: config toolsets, else all)")
	fl.IntVar(&f.maxTurns, "max-turns", 0, "iteration budget of each turn (default: agent.max_turns)")
	_ = cmd.MarkFlagRequired("run")
	return cmd
}

// batchBar shows a run's progress on stderr: a bar redrawn in place when
// stderr is a terminal, else a plain line at every tenth of the run and
// for each failure.
type batchBar struct {
	w        io.Writer
	tty      bool
	lastTick int
	drawn    bool
}

func newBatchBar(w io.Writer) *batchBar {
	f, ok := w.(*os.File)
	return &batchBar{w: w, tty: ok && term.IsTerminal(int(f.Fd())), lastTick: -1}
}

func (b *batchBar) update(p batch.Progress) {
	if p.Err != nil {
		b.clear()
		fmt.Fprintf(b.w, "failed: %v\n", p.Err)
	}
	pct := 0
	if p.Total > 0 {
		pct = 100 * p.Done / p.Total
	}
	figures := fmt.Sprintf("%d/%d %3d%% %.1f/s ETA %s failed %d", p.Done, p.Total, pct, p.Rate, p.ETA.Round(time.Second), p.Failed)
	if b.tty {
		const width = 30
		fill := width * pct / 100
		fmt.Fprintf(b.w, "\r[%s%s] %s\x1b[K", strings.Repeat("=", fill), strings.Repeat(" ", width-fill), figures)
		b.drawn = true
		return
	}
	if tick := pct / 10; tick != b.lastTick || p.Done == p.Total {
		b.lastTick = tick
		fmt.Fprintln(b.w, "progress:", figures)
	}
}

func (b *batchBar) clear() {
	if b.drawn {
		fmt.Fprint(b.w, "\r\x1b[K")
	}
}

func (b *batchBar) end() {
	if b.drawn {
		fmt.Fprintln(b.w)
	}
}
