// Package sqldb is the handle every store of hermes writes through, so
// one store's code serves both backends: the embedded SQLite file
// (internal/sqlitedb, the default) and a PostgreSQL database shared by
// several replicas (internal/pgdb).
//
// Stores write their SQL once, with ? placeholders, in the subset both
// databases share: INSERT ... ON CONFLICT for upserts, RETURNING for new
// ids (never LastInsertId, which PostgreSQL's driver does not give),
// integers for times and flags. Where the two differ (full-text search,
// JSON) a store asks Dialect and writes each form.
package sqldb

import (
	"context"
	"database/sql"
	"fmt"
)

// Dialect says which database a DB is.
type Dialect int

// The dialects hermes speaks.
const (
	SQLite Dialect = iota
	Postgres
)

// String is the dialect's name as config.yaml's storage.driver spells it.
func (d Dialect) String() string {
	if d == Postgres {
		return "postgres"
	}
	return "sqlite"
}

// DB is an open database with every store's schema brought up to date.
type DB interface {
	// Reader is the pool reads go through.
	Reader() *sql.DB
	// Writer is the pool write transactions run on, for preparing the
	// statements a store runs in them (tx.StmtContext). With SQLite it
	// is one connection, so code inside WriteTx must reach the database
	// only through its *sql.Tx.
	Writer() *sql.DB
	// WriteTx runs fn in a write transaction and commits it, running it
	// again while the database reports a conflict that left nothing
	// written (SQLite busy, PostgreSQL serialization failure or
	// deadlock). fn may run several times, so it must keep no side
	// effects outside tx until WriteTx returns. what names the operation
	// in errors.
	WriteTx(ctx context.Context, what string, fn func(*sql.Tx) error) error
	// Dialect says which database this is.
	Dialect() Dialect
	// Close closes the database.
	Close() error
}

// InTx runs fn in one transaction on db and commits it; an error from
// fn, or from the commit, rolls it back. It is one attempt: WriteTx
// implementations retry it on the conflicts their database reports.
func InTx(ctx context.Context, db *sql.DB, fn func(*sql.Tx) error) error {
	tx, err := db.BeginTx(ctx, nil)
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
