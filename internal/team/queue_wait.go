package team

import (
	"context"
	"fmt"
	"time"
)

// Wait returns the tasks ids, all of run, once every one of them is
// finished (done, failed or cancelled), or ctx's error with the tasks as
// they were last read. A finish made through this Store wakes it at once;
// one made by another process is seen at the next poll. An id that is not
// a task of run is refused as unknown.
func (s *Store) Wait(ctx context.Context, run int64, ids []int64) ([]Task, error) {
	var last []Task
	for {
		ch := s.changes() // taken before reading, so no finish falls between
		ts, err := s.runTasks(ctx, run, ids)
		if err != nil && last != nil && ctx.Err() != nil {
			return last, ctx.Err() // ctx ended during the read
		}
		if err != nil {
			return nil, err
		}
		if allFinished(ts) {
			return ts, nil
		}
		last = ts
		if err := s.sleep(ctx, ch); err != nil {
			return ts, err
		}
	}
}

// ClaimWait claims a task for role of run (0: any run) as ClaimIn does,
// waiting while there is none until one is posted or freed, or ctx ends.
// A task posted or freed through this Store wakes it at once; one posted
// by another process or replica, or whose lease ran out, is seen at the
// next poll (the package doc says why polling rather than LISTEN/NOTIFY).
func (s *Store) ClaimWait(ctx context.Context, run int64, role, holder string, lease time.Duration) (Task, error) {
	for {
		ch := s.changes()
		t, ok, err := s.ClaimIn(ctx, run, role, holder, lease)
		if err != nil || ok {
			return t, err
		}
		if err := s.sleep(ctx, ch); err != nil {
			return Task{}, err
		}
	}
}

// sleep waits for a change signalled on ch, the poll interval, or ctx.
func (s *Store) sleep(ctx context.Context, ch <-chan struct{}) error {
	tm := s.clk.NewTimer(s.poll)
	defer tm.Stop()
	select {
	case <-ch:
		return nil
	case <-tm.C():
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// runTasks reads the tasks ids, refusing any that is not a task of run.
func (s *Store) runTasks(ctx context.Context, run int64, ids []int64) ([]Task, error) {
	out := make([]Task, 0, len(ids))
	for _, id := range ids {
		t, err := s.Task(ctx, id)
		if err == nil && t.Run != run {
			err = fmt.Errorf("team: task %d: %w", id, ErrNotFound)
		}
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}

func allFinished(ts []Task) bool {
	for _, t := range ts {
		if !t.State.Finished() {
			return false
		}
	}
	return true
}
