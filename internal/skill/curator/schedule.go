package curator

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/hermes-go/hermes/internal/atomicfile"
	"github.com/hermes-go/hermes/internal/clock"
)

// State is what the schedule remembers across restarts, in
// skills/.curator/state.json.
type State struct {
	// LastRun is when the last run started (or, before the first, when
	// the schedule first saw this skills directory).
	LastRun time.Time `json:"last_run_at"`
	// Summary is that run's Report.Summary, or its error.
	Summary string `json:"last_summary,omitempty"`
}

// StatePath is the state file of the skills directory dir.
func StatePath(dir string) string { return filepath.Join(dir, ".curator", "state.json") }

// ReadState reads the state file; a missing one is the zero State.
func ReadState(path string) (State, error) {
	var st State
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return st, nil
	}
	if err != nil {
		return st, err
	}
	if err := json.Unmarshal(data, &st); err != nil {
		return st, fmt.Errorf("%s is not valid JSON: %w", path, err)
	}
	return st, nil
}

// WriteState records a run, atomically.
func WriteState(path string, st State) error {
	data, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.Write(path, append(data, '\n'), 0o600)
}

// Schedule runs the curator every Interval, once no turn has started for
// MinIdle, as Hermes Agent does: the curator never competes with a
// conversation for the model. The last run is kept in the state file, so
// a restart neither runs it again at once nor puts it off forever; the
// very first time, the schedule starts counting and runs after one
// interval (hermes skills curate runs it sooner).
type Schedule struct {
	// Interval is the time between runs; MinIdle the quiet a run waits
	// for.
	Interval, MinIdle time.Duration
	// StatePath is the state file (StatePath of the skills directory).
	StatePath string
	// Idle says since when no turn has started, and whether one is
	// running now.
	Idle func(ctx context.Context) (since time.Time, busy bool)
	// Run runs the curator and returns its summary.
	Run func(ctx context.Context) (summary string, err error)
	// Clock is the time; nil is the wall clock.
	Clock clock.Clock
	// Logger gets a line per run and per problem; nil discards them.
	Logger *slog.Logger
}

// busyRecheck is how soon a due run looks again when a turn is running.
const busyRecheck = 10 * time.Minute

// Loop runs the schedule until ctx ends.
func (s *Schedule) Loop(ctx context.Context) error {
	c := clock.OrReal(s.Clock)
	log := s.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if s.Interval <= 0 {
		return errors.New("curator: the schedule needs a positive interval")
	}
	for {
		// The state is read each time: hermes skills curate run by hand
		// in another process moves the next run too.
		st, err := ReadState(s.StatePath)
		if err != nil {
			log.Warn("curator state unreadable; counting from now", "error", err)
		}
		now := c.Now()
		if st.LastRun.IsZero() || st.LastRun.After(now) {
			st = State{LastRun: now, Summary: "first seen; the first run is one interval from now"}
			if err := WriteState(s.StatePath, st); err != nil {
				log.Warn("curator state not written", "error", err)
			}
		}
		wait := st.LastRun.Add(s.Interval).Sub(now)
		if wait <= 0 {
			since, busy := s.Idle(ctx)
			switch idle := now.Sub(since); {
			case busy:
				wait = busyRecheck
			case idle < s.MinIdle:
				wait = s.MinIdle - idle
			default:
				s.runOnce(ctx, c, log)
				continue
			}
		}
		if err := c.Sleep(ctx, wait); err != nil {
			return nil
		}
	}
}

// runOnce runs the curator and records the run, failed or not: a run
// that fails is tried again one interval later, not in a loop.
func (s *Schedule) runOnce(ctx context.Context, c clock.Clock, log *slog.Logger) {
	start := c.Now()
	summary, err := s.Run(ctx)
	if ctx.Err() != nil {
		return
	}
	if err != nil {
		summary = "failed: " + err.Error()
		log.Warn("curator run failed", "error", err)
	} else {
		log.Info("curator ran", "summary", summary, "duration_ms", c.Now().Sub(start).Milliseconds())
	}
	if err := WriteState(s.StatePath, State{LastRun: start, Summary: summary}); err != nil {
		log.Warn("curator state not written; the next run may come early", "error", err)
	}
}
