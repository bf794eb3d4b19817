package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/hermes-go/hermes/internal/sqlitedb"
)

// checkpointEvery is how many writes pass between passive WAL
// checkpoints.
const checkpointEvery = 50

// writeAttempts is how many tries a write gets (sqlitedb's policy).
const writeAttempts = sqlitedb.Attempts

// writeTx runs fn in a write transaction (BEGIN IMMEDIATE, from the DSN's
// _txlock) and commits it, retrying the whole transaction while the
// database is busy or locked by another connection (sqlitedb.WriteTx). fn
// may run several times, so it must not keep side effects outside tx
// until it returns nil for the last time: callers write results back only
// after writeTx succeeds. what names the operation in errors.
func (s *Store) writeTx(ctx context.Context, what string, fn func(*sql.Tx) error) error {
	if err := sqlitedb.WriteTx(ctx, s.write, s.log, what, fn); err != nil {
		return err
	}
	s.afterWrite()
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

// isBusy reports whether err is SQLite's busy or locked error: the only
// failure worth retrying, because the transaction never took effect.
func isBusy(err error) bool { return sqlitedb.IsBusy(err) }

// rowsAffected is the number of rows a statement changed, or an error.
func rowsAffected(res sql.Result) (int64, error) {
	n, err := res.RowsAffected()
	if err != nil {
		return 0, fmt.Errorf("rows affected: %w", err)
	}
	return n, nil
}
