package cron

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// The lease makes one scheduler per state.db the one that fires jobs, so
// a gateway and a CLI started on the same profile do not both run the
// 09:00 report. Its holder renews it at a third of its TTL; a holder that
// crashed stops renewing, and another takes over once it expires.

// acquireLease takes or renews the lease for holder at now. It reports
// whether holder has it and until when the lease is held (by whoever).
// taken is true when holder did not have it just before.
func (s *Store) acquireLease(ctx context.Context, holder string, now time.Time, ttl time.Duration) (held, taken bool, until time.Time, err error) {
	err = s.writeTx(ctx, "take cron lease", func(tx *sql.Tx) error {
		var cur string
		var exp int64
		err := tx.QueryRowContext(ctx, `SELECT holder, expires_at FROM cron_lease WHERE id = 1`).Scan(&cur, &exp)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		free := errors.Is(err, sql.ErrNoRows) || cur == holder || !fromMicros(exp).After(now)
		if !free {
			held, taken, until = false, false, fromMicros(exp)
			return nil
		}
		until = now.Add(ttl)
		held, taken = true, cur != holder
		_, err = tx.ExecContext(ctx, `INSERT INTO cron_lease (id, holder, expires_at) VALUES (1, ?, ?)
ON CONFLICT (id) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at`, holder, micros(until))
		return err
	})
	if err != nil {
		return false, false, time.Time{}, fmt.Errorf("cron: lease: %w", err)
	}
	return held, taken, until, nil
}

// releaseLease gives the lease up at shutdown so another scheduler need
// not wait for it to expire.
func (s *Store) releaseLease(ctx context.Context, holder string) error {
	return s.writeTx(ctx, "release cron lease", func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `DELETE FROM cron_lease WHERE id = 1 AND holder = ?`, holder)
		return err
	})
}

// interruptRuns closes the runs a previous holder left running (it
// stopped without finishing them), except those in keep, and clears
// their jobs' running marks, so history shows "interrupted" rather than a
// run that never ends.
func (s *Store) interruptRuns(ctx context.Context, now time.Time, keep map[int64]bool) error {
	return s.writeTx(ctx, "close interrupted cron runs", func(tx *sql.Tx) error {
		rows, err := tx.QueryContext(ctx, `SELECT id, job FROM cron_runs WHERE status = ?`, StatusRunning)
		if err != nil {
			return err
		}
		type open struct {
			id  int64
			job string
		}
		var stale []open
		for rows.Next() {
			var o open
			if err := rows.Scan(&o.id, &o.job); err != nil {
				rows.Close()
				return err
			}
			if !keep[o.id] {
				stale = append(stale, o)
			}
		}
		rows.Close()
		for _, o := range stale {
			if _, err := tx.ExecContext(ctx, `UPDATE cron_runs SET status = ?, ended_at = ?,
error = 'interrupted: the scheduler running it stopped before it finished' WHERE id = ?`,
				StatusError, micros(now), o.id); err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, `UPDATE cron_jobs SET running_since = 0 WHERE name = ?`, o.job); err != nil {
				return err
			}
		}
		return nil
	})
}

// record is a fire that will not run, with the reason shown in history.
type record struct {
	at     time.Time
	status string
	why    string
}

// plan is what the scheduler decided for one due job.
type plan struct {
	job     string
	expect  time.Time   // the next_run_at the plan was made from
	next    time.Time   // the new next_run_at; zero for none
	disable bool        // a spent one-shot
	records []record    // missed or skipped fires
	start   []time.Time // fires to run now, in order
}

// claim applies p in one write transaction if holder still holds the
// lease and the job's next fire is still p.expect, returning the ids of
// the started runs. Otherwise it returns errNotHolder and changes nothing:
// this compare-and-set is what makes each fire run once even if two
// schedulers both believe for a moment they hold the lease.
func (s *Store) claim(ctx context.Context, holder string, now time.Time, p plan) ([]int64, error) {
	var ids []int64
	err := s.writeTx(ctx, "claim cron fire", func(tx *sql.Tx) error {
		ids = nil
		var cur string
		var exp int64
		err := tx.QueryRowContext(ctx, `SELECT holder, expires_at FROM cron_lease WHERE id = 1`).Scan(&cur, &exp)
		if errors.Is(err, sql.ErrNoRows) || (err == nil && (cur != holder || !fromMicros(exp).After(now))) {
			return errNotHolder
		} else if err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, `UPDATE cron_jobs SET next_run_at = ?, enabled = CASE WHEN ? THEN 0 ELSE enabled END
WHERE name = ? AND enabled = 1 AND next_run_at = ?`, micros(p.next), p.disable, p.job, micros(p.expect))
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n == 0 {
			return errNotHolder
		}
		for _, r := range p.records {
			if err := recordRun(ctx, tx, p.job, r.at, now, r.status, r.why); err != nil {
				return err
			}
		}
		for _, at := range p.start {
			id, err := startRun(ctx, tx, p.job, at, now)
			if err != nil {
				return err
			}
			ids = append(ids, id)
		}
		return nil
	})
	return ids, err
}

// Holder is who holds the scheduler lease, for "hermes cron status": the
// holder's name and when its lease lapses unless renewed. ok is false
// when no scheduler holds it (none running, or the last one stopped).
func (s *Store) Holder(ctx context.Context) (holder string, until time.Time, ok bool, err error) {
	var exp int64
	err = s.db.QueryRowContext(ctx, `SELECT holder, expires_at FROM cron_lease WHERE id = 1`).Scan(&holder, &exp)
	if errors.Is(err, sql.ErrNoRows) {
		return "", time.Time{}, false, nil
	}
	if err != nil {
		return "", time.Time{}, false, fmt.Errorf("cron: lease: %w", err)
	}
	until = fromMicros(exp)
	return holder, until, until.After(s.now()), nil
}
