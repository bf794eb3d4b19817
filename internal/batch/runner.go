package batch

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/hermes-go/hermes/internal/agent"
	"github.com/hermes-go/hermes/internal/clock"
	"github.com/hermes-go/hermes/internal/engine"
	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/safety"
	"github.com/hermes-go/hermes/internal/session"
)

// Source is the source of a batch turn's session.
const Source = "batch"

// Turner runs turns: the engine.
type Turner interface {
	Turn(ctx context.Context, sessionID string, in engine.Input, sink agent.Sink) (*engine.TurnResult, error)
}

// Sessions reads back a finished turn's session.
type Sessions interface {
	Messages(ctx context.Context, sessionID string) ([]session.Message, error)
	SystemPrompt(ctx context.Context, sessionID string) (string, error)
}

// Options configure a Run.
type Options struct {
	// Run names the run; Dir is where its files go.
	Run, Dir string
	// Workers is how many turns run at once (at least 1).
	Workers int
	// Toolsets are offered to prompts that name none; empty is the
	// engine's default selection.
	Toolsets []string
	// MaxTurns, when positive, is each turn's iteration budget.
	MaxTurns int
	// Model names the model of the entries' metadata.
	Model string
	// Resume goes on with the run's output; without it existing output
	// is an error.
	Resume bool
	// Approval is who decides dangerous commands: nobody watches a
	// batch, so it is approvals.cron_mode's answer.
	Approval safety.Asker
	// Specs, when set, lists the tools a selection of toolsets offers,
	// for the system value of the trajectories.
	Specs func(toolsets []string) ([]llm.ToolSpec, error)
	// Progress, when set, is told after each prompt ends.
	Progress func(Progress)
	Clock    clock.Clock
}

// Progress is the state of a run after a prompt ended.
type Progress struct {
	// Total prompts, Done before this run started plus in it, Failed in
	// this run (they are tried again on resume).
	Total, Done, Skipped, Failed int
	// Elapsed since this run started, and the estimate of what is left.
	Elapsed, ETA time.Duration
	// Rate is prompts finished per second in this run.
	Rate float64
	// Err is the last prompt's failure, if it failed.
	Err error
}

// Summary is what a Run did.
type Summary struct {
	Total, Done, Skipped, Failed int
	Duration                     time.Duration
}

// Run runs lines with t, Workers at a time, each in a new session, and
// appends each finished turn's entry to Dir's trajectories.jsonl.
// Prompts whose entry is there already are skipped. When ctx ends, no
// new prompt starts, the turns running are stopped and left out (they
// run again on resume), and what finished stays. A prompt whose turn
// fails before the model answers, or whose model call fails, is counted
// as failed and left out too.
func Run(ctx context.Context, t Turner, s Sessions, lines []Line, opt Options) (Summary, error) {
	clk := clock.OrReal(opt.Clock)
	out, err := openOutput(opt.Dir, opt.Run, opt.Resume)
	if err != nil {
		return Summary{}, err
	}
	defer out.close()
	if err := checkInput(opt.Dir, lines, opt.Resume); err != nil {
		return Summary{}, err
	}
	start := clk.Now()
	var todo []Line
	for _, l := range lines {
		if !out.isDone(l.Index) {
			todo = append(todo, l)
		}
	}
	sum := Summary{Total: len(lines), Skipped: len(lines) - len(todo)}
	stats := &statistics{run: opt.Run, model: opt.Model, tools: map[string]ToolStat{}}
	var mu sync.Mutex
	var writeErr error
	finish := func(e *Entry, err error) {
		mu.Lock()
		defer mu.Unlock()
		if e != nil && err == nil {
			if err = out.write(*e); err != nil {
				writeErr = err
			}
		}
		if e != nil && err == nil {
			sum.Done++
			stats.add(*e)
		} else {
			sum.Failed++
		}
		if opt.Progress != nil {
			p := Progress{Total: sum.Total, Done: sum.Skipped + sum.Done, Skipped: sum.Skipped, Failed: sum.Failed,
				Elapsed: clk.Now().Sub(start), Err: err}
			if secs := p.Elapsed.Seconds(); secs > 0 && sum.Done > 0 {
				p.Rate = float64(sum.Done) / secs
				left := len(todo) - sum.Done - sum.Failed
				p.ETA = time.Duration(float64(left) / p.Rate * float64(time.Second))
			}
			opt.Progress(p)
		}
	}
	work := make(chan Line)
	var wg sync.WaitGroup
	for range max(opt.Workers, 1) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for l := range work {
				e, err := runOne(ctx, t, s, l, opt, clk)
				if err != nil && ctx.Err() != nil {
					return // stopped: it runs again on resume
				}
				finish(e, err)
			}
		}()
	}
feed:
	for _, l := range todo {
		select {
		case work <- l:
		case <-ctx.Done():
			break feed
		}
	}
	close(work)
	wg.Wait()
	sum.Duration = clk.Now().Sub(start)
	if err := out.checkpoint(clk.Now()); err != nil && writeErr == nil {
		writeErr = err
	}
	if err := stats.write(opt.Dir, out, sum, clk.Now()); err != nil && writeErr == nil {
		writeErr = err
	}
	if writeErr != nil {
		return sum, fmt.Errorf("writing the run's output in %s: %w", opt.Dir, writeErr)
	}
	return sum, ctx.Err()
}

// runOne runs one prompt's turn and builds its entry.
func runOne(ctx context.Context, t Turner, s Sessions, l Line, opt Options, clk clock.Clock) (*Entry, error) {
	toolsets := l.Toolsets
	if len(toolsets) == 0 {
		toolsets = opt.Toolsets
	}
	res, err := t.Turn(ctx, "", engine.Input{Text: l.Prompt, Source: Source, Workdir: l.Cwd,
		Toolsets: toolsets, MaxTurns: opt.MaxTurns, Approval: opt.Approval}, nil)
	if err != nil {
		return nil, fmt.Errorf("prompt %d: %w", l.Index, err)
	}
	if res.Stopped == agent.StopError || res.Stopped == agent.StopInterrupted {
		return nil, fmt.Errorf("prompt %d: the turn stopped (%s): %v", l.Index, res.Stopped, res.Err)
	}
	// The session is read after the turn with a context of its own: the
	// turn's entry is written even when the run is being stopped.
	rctx := context.WithoutCancel(ctx)
	msgs, err := s.Messages(rctx, res.SessionID)
	if err != nil {
		return nil, fmt.Errorf("prompt %d: reading session %s: %w", l.Index, res.SessionID, err)
	}
	system, err := s.SystemPrompt(rctx, res.SessionID)
	if err != nil {
		return nil, fmt.Errorf("prompt %d: reading session %s: %w", l.Index, res.SessionID, err)
	}
	var specs []llm.ToolSpec
	if opt.Specs != nil {
		if specs, err = opt.Specs(toolsets); err != nil {
			return nil, fmt.Errorf("prompt %d: toolsets: %w", l.Index, err)
		}
	}
	plain := make([]llm.Message, len(msgs))
	for i, m := range msgs {
		plain[i] = m.Message
	}
	e := newEntry(l, opt.Run, res.SessionID, opt.Model, toolsets, conversation(system, specs, plain), res.Result, clk.Now())
	return &e, nil
}
