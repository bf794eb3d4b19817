package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// Write contention policy, as Hermes Agent tuned it for one state.db
// shared by a gateway, cron runs and several CLIs: a short SQLite busy
// timeout, then up to writeAttempts tries in all, each after a random
// wait, so competing writers do not retry in step.
const (
	writeAttempts   = 15
	retryMinWait    = 20 * time.Millisecond
	retryMaxWait    = 150 * time.Millisecond
	checkpointEvery = 50
)

// writeTx runs fn in a write transaction (BEGIN IMMEDIATE, from the DSN's
// _txlock) and commits it, retrying the whole transaction while the
// database is busy or locked by another connection. fn may run several
// times, so it must not keep side effects outside tx until it returns nil
// for the last time: callers write results back only after writeTx
// succeeds. what names the operation in errors.
func (s *Store) writeTx(ctx context.Context, what string, fn func(*sql.Tx) error) error {
	var err error
	for attempt := 1; ; attempt++ {
		err = s.tryWrite(ctx, fn)
		if err == nil {
			s.afterWrite()
			return nil
		}
		if !isBusy(err) || attempt == writeAttempts {
			break
		}
		wait := retryMinWait + rand.N(retryMaxWait-retryMinWait)
		s.log.Debug("sqlite: database busy, retrying", "op", what, "attempt", attempt, "wait", wait, "err", err)
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("%s: %w (gave up waiting for the write lock: %w)", what, ctx.Err(), err)
		case <-t.C:
		}
	}
	return fmt.Errorf("%s: %w", what, err)
}

// tryWrite is one attempt of writeTx.
func (s *Store) tryWrite(ctx context.Context, fn func(*sql.Tx) error) error {
	tx, err := s.write.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	if err := fn(tx); err != nil {
		_ = tx.Rollback()
		return err
	}
	if err := tx.Commit(); err != nil {
		_ = tx.Rollback()
		return fmt.Errorf("commit: %w", err)
	}
	return nil
}

// afterWrite counts successful writes and runs a passive checkpoint every
// checkpointEvery of them. SQLite's own auto-checkpoint runs on commit
// and gives up while readers hold old snapshots, so with long-lived
// readers in other processes the WAL could grow without bound; a passive
// checkpoint copies what it can without waiting on anyone.
func (s *Store) afterWrite() {
	if s.writes.Add(1)%checkpointEvery != 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := s.write.ExecContext(ctx, "PRAGMA wal_checkpoint(PASSIVE)"); err != nil {
		s.log.Warn("sqlite: passive WAL checkpoint failed", "err", err)
	}
}

// isBusy reports whether err is SQLite saying another connection holds
// the lock (SQLITE_BUSY, SQLITE_LOCKED or one of their extended codes):
// the only failures worth retrying, because the transaction never took
// effect.
func isBusy(err error) bool {
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return false
	}
	switch se.Code() & 0xff {
	case sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED:
		return true
	}
	return false
}

// rowsAffected is the number of rows a statement changed, or an error.
func rowsAffected(res sql.Result) (int64, error) {
	n, err := res.RowsAffected()
	if err != nil {
		return 0, fmt.Errorf("rows affected: %w", err)
	}
	return n, nil
}
