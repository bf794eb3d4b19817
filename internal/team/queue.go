package team

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
)

// DefaultMaxAttempts is how many claims a task gets when its poster names
// no limit: a worker that fails or crashes twice leaves one more try.
const DefaultMaxAttempts = 3

// maxAttemptsLimit bounds what a poster may ask for.
const maxAttemptsLimit = 20

// Post is a task to add to a run.
type Post struct {
	Role        string
	Description string
	// Inputs are ids of earlier tasks of the same run; the task becomes
	// ready when all of them are done.
	Inputs []int64
	// MaxAttempts is how many claims the task gets; zero means
	// DefaultMaxAttempts.
	MaxAttempts int
}

// Post adds a task to an active run. Its inputs must be tasks of that
// run, which also makes a cycle impossible: a task can only name tasks
// that existed before it. The task starts ready when every input is done
// (or it has none) and waiting otherwise. Failure travels down: a task
// posted on a failed input is failed at once, on a cancelled one
// cancelled, so nothing waits for ever on work that will not come.
func (s *Store) Post(ctx context.Context, run int64, p Post) (Task, error) {
	t, _, err := s.post(ctx, run, p, false)
	return t, err
}

// PostOnce is Post unless the run already has the task: one of the same
// role, description and inputs that has not failed or been cancelled.
// Then that task is returned, and true. A coordinator resumed after a
// crash posts its plan again; the work done before is not done twice.
func (s *Store) PostOnce(ctx context.Context, run int64, p Post) (Task, bool, error) {
	return s.post(ctx, run, p, true)
}

func (s *Store) post(ctx context.Context, run int64, p Post, once bool) (Task, bool, error) {
	p.Role, p.Description = s.text(p.Role), s.text(p.Description)
	if strings.TrimSpace(p.Role) == "" {
		return Task{}, false, errors.New("team: post task: role is empty; name the role whose workers should do it")
	}
	if strings.TrimSpace(p.Description) == "" {
		return Task{}, false, errors.New("team: post task: description is empty; say what the task is")
	}
	if p.MaxAttempts == 0 {
		p.MaxAttempts = DefaultMaxAttempts
	}
	if p.MaxAttempts < 1 || p.MaxAttempts > maxAttemptsLimit {
		return Task{}, false, fmt.Errorf("team: post task: max_attempts %d is not accepted; use 1 to %d", p.MaxAttempts, maxAttemptsLimit)
	}
	inputs := slices.Clone(p.Inputs)
	slices.Sort(inputs)
	inputs = slices.Compact(inputs)
	enc, _ := json.Marshal(append([]int64{}, inputs...))
	var t Task
	var found bool
	err := s.db.WriteTx(ctx, "post team task", func(tx *sql.Tx) error {
		if err := s.activeRun(ctx, tx, run); err != nil {
			return err
		}
		if once {
			var id int64
			err := tx.QueryRowContext(ctx, `SELECT id FROM team_tasks WHERE run = ? AND role = ? AND description = ? AND inputs = ?
AND state NOT IN ('failed', 'cancelled') ORDER BY id LIMIT 1`, run, p.Role, p.Description, string(enc)).Scan(&id)
			if err == nil {
				found = true
				t, err = getTask(ctx, tx, id, "")
				return err
			}
			if !errors.Is(err, sql.ErrNoRows) {
				return err
			}
		}
		state, why, err := s.inputState(ctx, tx, run, inputs)
		if err != nil {
			return err
		}
		now := s.now()
		var ready, finished int64
		switch state {
		case StateReady:
			ready = now
		case StateFailed, StateCancelled:
			finished = now
		}
		var id int64
		if err := tx.QueryRowContext(ctx, `INSERT INTO team_tasks (run, role, description, inputs, state, max_attempts, error, created_at, ready_at, finished_at)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`, run, p.Role, p.Description, string(enc), string(state), p.MaxAttempts, why, now, ready, finished).Scan(&id); err != nil {
			return err
		}
		for _, in := range inputs {
			if _, err := tx.ExecContext(ctx, `INSERT INTO team_task_inputs (task, input) VALUES (?, ?)`, id, in); err != nil {
				return err
			}
		}
		t, err = getTask(ctx, tx, id, "")
		return err
	})
	if err != nil {
		return Task{}, false, fmt.Errorf("team: post task: %w", err)
	}
	if t.State == StateReady && !found {
		s.signal()
	}
	return t, found, nil
}

// activeRun checks that run exists and is active, and locks it until tx
// ends: a run cancelled meanwhile would leave the new task unclaimable
// for ever, and a second PostOnce of the same task must see the first.
func (s *Store) activeRun(ctx context.Context, tx *sql.Tx, run int64) error {
	var state string
	err := tx.QueryRowContext(ctx, `SELECT state FROM team_runs WHERE id = ?`+s.lock.update, run).Scan(&state)
	if errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("run %d: %w", run, ErrNotFound)
	}
	if err != nil {
		return err
	}
	if RunState(state) != RunActive {
		return fmt.Errorf("run %d is %s; tasks are posted only to an active run", run, state)
	}
	return nil
}

// inputState is the state a task with these inputs starts in, and why
// when that is failed or cancelled. Inputs that are not tasks of run are
// refused, all of them named. The inputs stay as read until tx ends: one
// finishing meanwhile would not see the new task, which would then wait
// for ever.
func (s *Store) inputState(ctx context.Context, tx *sql.Tx, run int64, inputs []int64) (State, string, error) {
	state, why := StateReady, ""
	var unknown []string
	for _, in := range inputs {
		var r int64
		var st string
		err := tx.QueryRowContext(ctx, `SELECT run, state FROM team_tasks WHERE id = ?`+s.lock.share, in).Scan(&r, &st)
		if errors.Is(err, sql.ErrNoRows) || (err == nil && r != run) {
			unknown = append(unknown, fmt.Sprint(in))
			continue
		}
		if err != nil {
			return "", "", err
		}
		switch State(st) {
		case StateDone:
		case StateFailed:
			state, why = StateFailed, fmt.Sprintf("input task %d failed", in)
		case StateCancelled:
			if state != StateFailed {
				state, why = StateCancelled, fmt.Sprintf("input task %d was cancelled", in)
			}
		default:
			if state == StateReady {
				state = StateWaiting
			}
		}
	}
	if len(unknown) > 0 {
		return "", "", fmt.Errorf("inputs %s are not tasks of run %d; name only ids of tasks already posted to this run: %w",
			strings.Join(unknown, ", "), run, ErrNotFound)
	}
	return state, why, nil
}

// Claim takes the oldest ready task for role, for holder, leased until
// lease from now; false when there is none. It first returns to ready
// every claimed task whose lease has run out (its worker crashed or
// hung, or its replica died), or fails it when its attempts are used up.
// All of it is one write transaction, so two claimers, in this process or
// another, never get the same task. On PostgreSQL each task it reads is
// locked with SKIP LOCKED: claimers of several replicas never wait for
// each other, each passing over the tasks another is taking.
func (s *Store) Claim(ctx context.Context, role, holder string, lease time.Duration) (Task, bool, error) {
	return s.ClaimIn(ctx, 0, role, holder, lease)
}

// ClaimIn is Claim limited to the tasks of run; run 0 takes any active
// run's. A team runner's workers serve their own run, so a second run of
// the same roles elsewhere keeps its tasks to its own process.
func (s *Store) ClaimIn(ctx context.Context, run int64, role, holder string, lease time.Duration) (Task, bool, error) {
	if role == "" || holder == "" {
		return Task{}, false, fmt.Errorf("team: claim: role %q and holder %q must both be set", role, holder)
	}
	role, holder = s.text(role), s.text(holder)
	if lease <= 0 {
		return Task{}, false, fmt.Errorf("team: claim: lease %v is not accepted; use a positive duration", lease)
	}
	var t Task
	var found, expired bool
	err := s.db.WriteTx(ctx, "claim team task", func(tx *sql.Tx) error {
		found = false
		now := s.now()
		var err error
		if expired, err = s.expireLeases(ctx, tx, now); err != nil {
			return err
		}
		var id int64
		err = tx.QueryRowContext(ctx, `SELECT id FROM team_tasks WHERE state = 'ready' AND role = ?
AND run IN (SELECT id FROM team_runs WHERE state = 'active' AND (? = 0 OR id = ?)) ORDER BY ready_at, id LIMIT 1`+s.lock.skip, role, run, run).Scan(&id)
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		}
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE team_tasks SET state = 'claimed', attempts = attempts + 1, holder = ?, lease_until = ?, claimed_at = ?
WHERE id = ?`, holder, now+lease.Microseconds(), now, id); err != nil {
			return err
		}
		found = true
		t, err = getTask(ctx, tx, id, "")
		return err
	})
	if err != nil {
		return Task{}, false, fmt.Errorf("team: claim for role %s: %w", role, err)
	}
	if expired {
		s.signal()
	}
	return t, found, nil
}

// expireLeases returns to ready, or fails, the claimed tasks whose lease
// ended before now; true when it changed any. A task another transaction
// holds (its worker renewing or finishing it, another claimer expiring
// it) is passed over, and one renewed meanwhile is not read as lapsed.
func (s *Store) expireLeases(ctx context.Context, tx *sql.Tx, now int64) (bool, error) {
	rows, err := tx.QueryContext(ctx, `SELECT id, attempts, max_attempts FROM team_tasks WHERE state = 'claimed' AND lease_until < ? ORDER BY id`+s.lock.skip, now)
	if err != nil {
		return false, err
	}
	type lapsed struct {
		id            int64
		attempts, max int
	}
	var ls []lapsed
	for rows.Next() {
		var l lapsed
		if err := rows.Scan(&l.id, &l.attempts, &l.max); err != nil {
			rows.Close()
			return false, err
		}
		ls = append(ls, l)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return false, err
	}
	for _, l := range ls {
		why := fmt.Sprintf("attempt %d of %d: its worker stopped renewing the lease", l.attempts, l.max)
		if err := retryOrFail(ctx, tx, l.id, l.attempts, l.max, why, now); err != nil {
			return false, err
		}
	}
	return len(ls) > 0, nil
}

// retryOrFail ends a claim that did not complete: the task is ready
// again while it has attempts left, failed (with its dependants) after.
func retryOrFail(ctx context.Context, tx *sql.Tx, id int64, attempts, max int, why string, now int64) error {
	if attempts < max {
		_, err := tx.ExecContext(ctx, `UPDATE team_tasks SET state = 'ready', holder = '', lease_until = 0, error = ?, ready_at = ? WHERE id = ?`, why, now, id)
		return err
	}
	if _, err := tx.ExecContext(ctx, `UPDATE team_tasks SET state = 'failed', holder = '', lease_until = 0, error = ?, finished_at = ? WHERE id = ?`, why, now, id); err != nil {
		return err
	}
	return endDependants(ctx, tx, id, StateFailed, now)
}

// endDependants fails (or cancels) every task waiting, directly or
// through others, on task id, which ended in state: they can never run.
func endDependants(ctx context.Context, tx *sql.Tx, id int64, state State, now int64) error {
	verb := "failed"
	if state == StateCancelled {
		verb = "was cancelled"
	}
	queue := []int64{id}
	for len(queue) > 0 {
		in := queue[0]
		queue = queue[1:]
		rows, err := tx.QueryContext(ctx, `UPDATE team_tasks SET state = ?, error = ?, finished_at = ?
WHERE state = 'waiting' AND id IN (SELECT task FROM team_task_inputs WHERE input = ?) RETURNING id`,
			string(state), fmt.Sprintf("input task %d %s", in, verb), now, in)
		if err != nil {
			return err
		}
		for rows.Next() {
			var d int64
			if err := rows.Scan(&d); err != nil {
				rows.Close()
				return err
			}
			queue = append(queue, d)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
	}
	return nil
}

// readyDependants makes ready the tasks waiting on task id whose inputs
// are now all done. On PostgreSQL it first locks them: two inputs of one
// task finishing at once in two transactions would each read the other
// as not done yet and leave the task waiting for ever; with the lock the
// second waits for the first and reads it done.
func (s *Store) readyDependants(ctx context.Context, tx *sql.Tx, id, now int64) error {
	if s.lock.update != "" {
		if _, err := tx.ExecContext(ctx, `SELECT id FROM team_tasks WHERE state = 'waiting'
AND id IN (SELECT task FROM team_task_inputs WHERE input = ?) ORDER BY id`+s.lock.update, id); err != nil {
			return err
		}
	}
	_, err := tx.ExecContext(ctx, `UPDATE team_tasks SET state = 'ready', ready_at = ?
WHERE state = 'waiting' AND id IN (SELECT task FROM team_task_inputs WHERE input = ?)
AND NOT EXISTS (SELECT 1 FROM team_task_inputs d JOIN team_tasks i ON i.id = d.input WHERE d.task = team_tasks.id AND i.state != 'done')`, now, id)
	return err
}
