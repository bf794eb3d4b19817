package cron

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/hermes-go/hermes/internal/sqldb"
)

// SyncResult names what Sync changed, for the start-up log.
type SyncResult struct {
	Added, Updated, Removed []string
}

// Create stores a new job (source tool unless set) and schedules its first
// fire. New jobs are enabled whatever j.Enabled says; pause them after.
func (s *Store) Create(ctx context.Context, j Job) (Job, error) {
	now := s.now()
	j.Enabled = true
	sched, err := j.normalize(s.zone, now)
	if err != nil {
		return Job{}, fmt.Errorf("cron: create: %w", err)
	}
	if !firstFire(&j, sched, now) {
		return Job{}, fmt.Errorf("cron: create: job %q: %q is already past; give a future time or \"+30m\"", j.Name, j.Schedule)
	}
	err = s.writeTx(ctx, "create cron job", func(tx *sql.Tx) error {
		return insertJob(ctx, tx, j, "", now)
	})
	if err != nil {
		return Job{}, fmt.Errorf("cron: create job %q: %w", j.Name, err)
	}
	s.changed()
	return s.Get(ctx, j.Name)
}

// Update replaces the spec of a job created at run time and reschedules
// it from now. Config jobs are changed by editing the config file.
func (s *Store) Update(ctx context.Context, name string, spec Spec) (Job, error) {
	now := s.now()
	err := s.writeTx(ctx, "update cron job", func(tx *sql.Tx) error {
		j, err := scanJob(tx.QueryRowContext(ctx, `SELECT `+jobColumns+` FROM cron_jobs WHERE name = ?`+s.locking("FOR UPDATE"), name))
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("job %q: %w", name, ErrNotFound)
		} else if err != nil {
			return err
		}
		if j.Source == SourceConfig {
			return fmt.Errorf("job %q is declared in the config file; edit it there", name)
		}
		j.Spec = spec
		sched, err := j.normalize(s.zone, now)
		if err != nil {
			return err
		}
		if j.Enabled && !firstFire(&j, sched, now) {
			return fmt.Errorf("job %q: %q is already past", name, j.Schedule)
		}
		return writeSpec(ctx, tx, j, "", now)
	})
	if err != nil {
		return Job{}, fmt.Errorf("cron: update: %w", err)
	}
	s.changed()
	return s.Get(ctx, name)
}

// Pause stops a job from firing until Resume.
func (s *Store) Pause(ctx context.Context, name string) error {
	return s.setEnabled(ctx, name, false)
}

// Resume re-enables a job from its next fire after now; fires missed while
// paused are not caught up.
func (s *Store) Resume(ctx context.Context, name string) error {
	return s.setEnabled(ctx, name, true)
}

func (s *Store) setEnabled(ctx context.Context, name string, on bool) error {
	now := s.now()
	err := s.writeTx(ctx, "pause or resume cron job", func(tx *sql.Tx) error {
		j, err := scanJob(tx.QueryRowContext(ctx, `SELECT `+jobColumns+` FROM cron_jobs WHERE name = ?`+s.locking("FOR UPDATE"), name))
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("job %q: %w", name, ErrNotFound)
		} else if err != nil {
			return err
		}
		var next time.Time
		if on {
			sched, err := j.schedule(now)
			if err != nil {
				return err
			}
			n, ok := sched.Next(now)
			if !ok {
				return fmt.Errorf("job %q: %q is already past; update its schedule", name, j.Schedule)
			}
			next = n
		}
		_, err = tx.ExecContext(ctx, `UPDATE cron_jobs SET enabled = ?, next_run_at = ?, updated_at = ? WHERE name = ?`,
			boolInt(on), micros(next), micros(now), name)
		return err
	})
	if err != nil {
		return fmt.Errorf("cron: %w", err)
	}
	s.changed()
	return nil
}

// Remove deletes a job created at run time; its run history stays.
func (s *Store) Remove(ctx context.Context, name string) error {
	err := s.writeTx(ctx, "remove cron job", func(tx *sql.Tx) error {
		var source string
		err := tx.QueryRowContext(ctx, `SELECT source FROM cron_jobs WHERE name = ?`+s.locking("FOR UPDATE"), name).Scan(&source)
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("job %q: %w", name, ErrNotFound)
		} else if err != nil {
			return err
		}
		if source == SourceConfig {
			return fmt.Errorf("job %q is declared in the config file; remove it there (or pause it)", name)
		}
		_, err = tx.ExecContext(ctx, `DELETE FROM cron_jobs WHERE name = ?`, name)
		return err
	})
	if err != nil {
		return fmt.Errorf("cron: remove: %w", err)
	}
	s.changed()
	return nil
}

// Sync makes the stored config jobs match jobs, the config file's list:
// new ones are added, changed ones replaced and rescheduled, and config
// jobs no longer declared removed. A declaration that did not change
// since the last Sync leaves its job alone, so a restart keeps its next
// fire (and with it the missed-run check) and its pause state. Jobs
// created at run time are never touched; a config job with the same name
// as one is an error. Invalid declarations are reported and skipped, the
// rest applied. j.Enabled is honoured.
func (s *Store) Sync(ctx context.Context, jobs []Job) (SyncResult, error) {
	now := s.now()
	var res SyncResult
	var problems []error
	err := s.writeTx(ctx, "sync cron jobs", func(tx *sql.Tx) error {
		res, problems = SyncResult{}, nil
		if err := s.lockSync(ctx, tx); err != nil {
			return err
		}
		declared := map[string]bool{}
		for _, j := range jobs {
			declared[j.Name] = true
			key, err := json.Marshal(struct {
				Spec
				Enabled bool `json:"enabled"`
			}{j.Spec, j.Enabled})
			if err != nil {
				return err
			}
			var source, stored string
			err = tx.QueryRowContext(ctx, `SELECT source, declared FROM cron_jobs WHERE name = ?`, j.Name).Scan(&source, &stored)
			exists := err == nil
			if err != nil && !errors.Is(err, sql.ErrNoRows) {
				return err
			}
			if exists && source != SourceConfig {
				problems = append(problems, fmt.Errorf("job %q: a job of that name was created at run time; rename one of them", j.Name))
				continue
			}
			if exists && stored == string(key) {
				continue
			}
			j.Source = SourceConfig
			sched, err := j.normalize(s.zone, now)
			if err != nil {
				problems = append(problems, err)
				continue
			}
			if j.Enabled && !firstFire(&j, sched, now) {
				j.Enabled = false // a one-shot whose time has passed: keep it visible, disabled
			}
			if exists {
				err = writeSpec(ctx, tx, j, string(key), now)
				res.Updated = append(res.Updated, j.Name)
			} else {
				err = insertJob(ctx, tx, j, string(key), now)
				res.Added = append(res.Added, j.Name)
			}
			if err != nil {
				return err
			}
		}
		rows, err := tx.QueryContext(ctx, `SELECT name FROM cron_jobs WHERE source = ?`, SourceConfig)
		if err != nil {
			return err
		}
		var gone []string
		for rows.Next() {
			var n string
			if err := rows.Scan(&n); err != nil {
				rows.Close()
				return err
			}
			if !declared[n] {
				gone = append(gone, n)
			}
		}
		rows.Close()
		for _, n := range gone {
			if _, err := tx.ExecContext(ctx, `DELETE FROM cron_jobs WHERE name = ?`, n); err != nil {
				return err
			}
		}
		res.Removed = gone
		return nil
	})
	if err != nil {
		return SyncResult{}, fmt.Errorf("cron: sync: %w", err)
	}
	s.changed()
	if len(problems) > 0 {
		return res, fmt.Errorf("cron: sync: %w", errors.Join(problems...))
	}
	return res, nil
}

// firstFire sets j.NextRunAt to the first fire after now (zero when
// disabled) and reports false for a one-shot already past.
func firstFire(j *Job, sched Schedule, now time.Time) bool {
	j.NextRunAt = time.Time{}
	if !j.Enabled {
		return true
	}
	next, ok := sched.Next(now)
	if ok {
		j.NextRunAt = next
	}
	return ok
}

// syncLock is the key of the PostgreSQL advisory lock Sync takes, so
// replicas starting together with one config file apply it one after
// the other instead of both adding the same job ("cronsync" in ASCII).
const syncLock = 0x63726f6e73796e63

// lockSync makes the Sync in tx the only one running until tx ends. On
// SQLite the write transaction already is.
func (s *Store) lockSync(ctx context.Context, tx *sql.Tx) error {
	if s.db.Dialect() != sqldb.Postgres {
		return nil
	}
	_, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(?)`, int64(syncLock))
	return err
}

// insertJob adds j; a name already taken is an error saying so on both
// databases, rather than each one's constraint message.
func insertJob(ctx context.Context, tx *sql.Tx, j Job, declared string, now time.Time) error {
	spec, err := json.Marshal(j.Spec)
	if err != nil {
		return err
	}
	res, err := tx.ExecContext(ctx, `INSERT INTO cron_jobs
(name, spec, declared, source, enabled, next_run_at, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
ON CONFLICT (name) DO NOTHING`,
		j.Name, string(spec), declared, j.Source, boolInt(j.Enabled), micros(j.NextRunAt), micros(now), micros(now))
	if err != nil {
		return fmt.Errorf("job %q: %w", j.Name, err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return fmt.Errorf("job %q: %w", j.Name, err)
	} else if n == 0 {
		return fmt.Errorf("job %q: %w", j.Name, ErrExists)
	}
	return nil
}

func writeSpec(ctx context.Context, tx *sql.Tx, j Job, declared string, now time.Time) error {
	spec, err := json.Marshal(j.Spec)
	if err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, `UPDATE cron_jobs SET spec = ?, declared = ?, enabled = ?, next_run_at = ?, updated_at = ?
WHERE name = ?`, string(spec), declared, boolInt(j.Enabled), micros(j.NextRunAt), micros(now), j.Name)
	return err
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
