package cron

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// The lease makes one scheduler per database the one that fires jobs, so
// a gateway and a CLI started on the same profile, or several replicas
// sharing one PostgreSQL database, do not both run the 09:00 report. Its
// holder renews it at a third of its TTL; a holder that crashed stops
// renewing, and another takes over once it expires.

// AcquireLease takes or renews the lease for holder at now. It reports
// whether holder has it and until when the lease is held (by whoever).
// Taken is true when holder did not have it just before.
//
// The upsert takes the lease only if it is still free when it runs, so
// two replicas that both found it free (or found no row at all) cannot
// both come away holding it: on PostgreSQL the second waits for the
// first's row and then finds it taken.
func (s *Store) AcquireLease(ctx context.Context, holder string, now time.Time, ttl time.Duration) (Lease, error) {
	return s.acquireLease(ctx, holder, "", now, ttl)
}

// TakeLease takes the lease from a holder whose process is gone, as
// AcquireLease takes a lapsed one: a scheduler restarted after a crash
// fires at once rather than a TTL later.
func (s *Store) TakeLease(ctx context.Context, holder, from string, now time.Time, ttl time.Duration) (Lease, error) {
	if from == "" {
		return Lease{}, fmt.Errorf("cron: take lease: the holder to take it from is empty")
	}
	return s.acquireLease(ctx, holder, from, now, ttl)
}

// acquireLease takes or renews the lease for holder, taking it also from
// from when from is set and still holds it.
func (s *Store) acquireLease(ctx context.Context, holder, from string, now time.Time, ttl time.Duration) (Lease, error) {
	var l Lease
	err := s.writeTx(ctx, "take cron lease", func(tx *sql.Tx) error {
		var cur string
		err := tx.QueryRowContext(ctx, `SELECT holder FROM cron_lease WHERE id = 1`+s.locking("FOR UPDATE")).Scan(&cur)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		var exp int64
		err = tx.QueryRowContext(ctx, `INSERT INTO cron_lease (id, holder, expires_at) VALUES (1, ?, ?)
ON CONFLICT (id) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at
WHERE cron_lease.holder = excluded.holder OR cron_lease.expires_at <= ? OR (? != '' AND cron_lease.holder = ?)
RETURNING expires_at`, holder, micros(now.Add(ttl)), micros(now), from, from).Scan(&exp)
		if err == nil {
			l = Lease{Held: true, Taken: cur != holder, Until: fromMicros(exp), Holder: holder}
			return nil
		}
		if !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		// Another holder's lease is live.
		var other string
		if err := tx.QueryRowContext(ctx, `SELECT expires_at, holder FROM cron_lease WHERE id = 1`).Scan(&exp, &other); err != nil {
			return err
		}
		l = Lease{Until: fromMicros(exp), Holder: other}
		return nil
	})
	if err != nil {
		return Lease{}, fmt.Errorf("cron: lease: %w", err)
	}
	return l, nil
}

// ReleaseLease gives the lease up at shutdown so another scheduler need
// not wait for it to expire.
func (s *Store) ReleaseLease(ctx context.Context, holder string) error {
	return s.writeTx(ctx, "release cron lease", func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `DELETE FROM cron_lease WHERE id = 1 AND holder = ?`, holder)
		return err
	})
}

// InterruptRuns closes the runs a previous holder left running (it
// stopped without finishing them), except those in keep, and clears
// their jobs' running marks, so history shows "interrupted" rather than a
// run that never ends.
func (s *Store) InterruptRuns(ctx context.Context, now time.Time, keep map[int64]bool) error {
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
			// Only a run still running is closed: on PostgreSQL its
			// scheduler may have finished it since the read above.
			res, err := tx.ExecContext(ctx, `UPDATE cron_runs SET status = ?, ended_at = ?,
error = 'interrupted: the scheduler running it stopped before it finished' WHERE id = ? AND status = ?`,
				StatusError, micros(now), o.id, StatusRunning)
			if err != nil {
				return err
			}
			if n, err := res.RowsAffected(); err != nil {
				return err
			} else if n == 0 {
				continue
			}
			if _, err := tx.ExecContext(ctx, `UPDATE cron_jobs SET running_since = 0 WHERE name = ?`, o.job); err != nil {
				return err
			}
		}
		return nil
	})
}

// Claim applies p in one write transaction if holder still holds the
// lease and the job's next fire is still p.Expect, returning the ids of
// the started runs. Otherwise it returns ErrNotHolder and changes nothing:
// this compare-and-set is what makes each fire run once even if two
// schedulers both believe for a moment they hold the lease.
func (s *Store) Claim(ctx context.Context, holder string, now time.Time, p Plan) ([]int64, error) {
	var ids []int64
	err := s.writeTx(ctx, "claim cron fire", func(tx *sql.Tx) error {
		ids = nil
		var cur string
		var exp int64
		// FOR SHARE keeps the lease from changing hands until the claim
		// commits; the compare-and-set on next_run_at below is what makes
		// the fire run once.
		err := tx.QueryRowContext(ctx, `SELECT holder, expires_at FROM cron_lease WHERE id = 1`+s.locking("FOR SHARE")).Scan(&cur, &exp)
		if errors.Is(err, sql.ErrNoRows) || (err == nil && (cur != holder || !fromMicros(exp).After(now))) {
			return ErrNotHolder
		} else if err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, `UPDATE cron_jobs SET next_run_at = ?, enabled = CASE WHEN ? = 1 THEN 0 ELSE enabled END
WHERE name = ? AND enabled = 1 AND next_run_at = ?`, micros(p.Next), boolInt(p.Disable), p.Job, micros(p.Expect))
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n == 0 {
			return ErrNotHolder
		}
		for _, r := range p.Records {
			if err := recordRun(ctx, tx, p.Job, r.At, now, r.Status, r.Why); err != nil {
				return err
			}
		}
		for _, at := range p.Start {
			id, err := startRun(ctx, tx, p.Job, at, now)
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
	err = s.read.QueryRowContext(ctx, `SELECT holder, expires_at FROM cron_lease WHERE id = 1`).Scan(&holder, &exp)
	if errors.Is(err, sql.ErrNoRows) {
		return "", time.Time{}, false, nil
	}
	if err != nil {
		return "", time.Time{}, false, fmt.Errorf("cron: lease: %w", err)
	}
	until = fromMicros(exp)
	return holder, until, until.After(s.now()), nil
}
