package sqlite

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/hermes-go/hermes/internal/sqlitedb"
)

// writeAttempts is how many tries a write gets (sqlitedb's policy).
const writeAttempts = sqlitedb.Attempts

// writeTx runs fn in a write transaction on the DB's writer connection
// (BEGIN IMMEDIATE) and commits it, retrying the whole transaction while
// the database is busy or locked by another connection, and counting it
// toward the DB's periodic checkpoints (sqlitedb.DB.WriteTx). fn may run
// several times, so it must not keep side effects outside tx until it
// returns nil for the last time: callers write results back only after
// writeTx succeeds. fn reaches the database only through tx: the writer
// connection is the one tx holds. what names the operation in errors.
func (s *Store) writeTx(ctx context.Context, what string, fn func(*sql.Tx) error) error {
	return s.db.WriteTx(ctx, what, fn)
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
