// Package pgdb is how hermes keeps its state in PostgreSQL, for several
// replicas sharing one database: one connection pool with every store's
// schema brought up to date, behind the same sqldb.DB handle the
// embedded SQLite file gives, so each store's code serves both.
//
// Statements come with ? placeholders and reach lib/pq as $1, $2, ...
// (rebind.go). Write transactions run at READ COMMITTED, PostgreSQL's
// default, and are run again when the server reports a serialization
// failure or a deadlock, which leave nothing written. Every store's
// migrations (schema.go) run under one advisory lock, so replicas
// starting together apply each once.
package pgdb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"time"

	"github.com/lib/pq"

	"github.com/hermes-go/hermes/internal/clock"
	"github.com/hermes-go/hermes/internal/sqldb"
)

var _ sqldb.DB = (*DB)(nil)

// Options tune Open. The zero value is ready to use.
type Options struct {
	// MaxConns bounds the pool; zero means 16. Every replica holds up
	// to this many connections, and PostgreSQL's default
	// max_connections is 100.
	MaxConns int
	// Logger receives retries; nil discards them.
	Logger *slog.Logger
}

// DB is a PostgreSQL database opened for hermes.
type DB struct {
	pool *sql.DB
	log  *slog.Logger
}

// Attempts bounds how many times WriteTx runs a transaction that keeps
// meeting conflicts.
const Attempts = 10

// Open connects to the database at dsn (a postgres:// URL or a
// key=value string, as lib/pq reads them) and brings every store's
// schema up to date.
func Open(ctx context.Context, dsn string, opt Options) (*DB, error) {
	if dsn == "" {
		return nil, errors.New("postgres: empty dsn; want a postgres:// URL such as postgres://hermes@db:5432/hermes")
	}
	inner, err := pq.NewConnector(dsn)
	if err != nil {
		return nil, fmt.Errorf("postgres: dsn: %w", err)
	}
	db := &DB{pool: sql.OpenDB(&connector{inner: inner, binds: &rebinder{}}), log: opt.Logger}
	if db.log == nil {
		db.log = slog.New(slog.DiscardHandler)
	}
	conns := opt.MaxConns
	if conns <= 0 {
		conns = 16
	}
	db.pool.SetMaxOpenConns(conns)
	db.pool.SetMaxIdleConns(conns)
	db.pool.SetConnMaxIdleTime(5 * time.Minute)
	if err := db.pool.PingContext(ctx); err != nil {
		db.pool.Close()
		return nil, fmt.Errorf("postgres: connect to %s: %w", Redact(dsn), err)
	}
	if err := migrate(ctx, db.pool); err != nil {
		db.pool.Close()
		return nil, fmt.Errorf("postgres: %w", err)
	}
	return db, nil
}

// Reader is the pool.
func (db *DB) Reader() *sql.DB { return db.pool }

// Writer is the pool: PostgreSQL has no single writer to queue behind.
func (db *DB) Writer() *sql.DB { return db.pool }

// Dialect is sqldb.Postgres.
func (db *DB) Dialect() sqldb.Dialect { return sqldb.Postgres }

// Close closes the pool.
func (db *DB) Close() error {
	if err := db.pool.Close(); err != nil {
		return fmt.Errorf("postgres: close: %w", err)
	}
	return nil
}

// WriteTx runs fn in a transaction and commits it, running it again,
// after a short random wait, when the server aborted it for a
// serialization failure or a deadlock.
func (db *DB) WriteTx(ctx context.Context, what string, fn func(*sql.Tx) error) error {
	var err error
	for attempt := 1; ; attempt++ {
		if err = sqldb.InTx(ctx, db.pool, fn); err == nil {
			return nil
		}
		if !Retryable(err) || attempt == Attempts {
			break
		}
		wait := time.Duration(attempt)*5*time.Millisecond + rand.N(20*time.Millisecond)
		db.log.Debug("postgres: transaction conflict, retrying", "op", what, "attempt", attempt, "wait", wait, "err", err)
		if werr := (clock.Real{}).Sleep(ctx, wait); werr != nil {
			return fmt.Errorf("%s: %w (while retrying after: %w)", what, werr, err)
		}
	}
	return fmt.Errorf("%s: %w", what, err)
}

// Code is the SQLSTATE of err, or "" when err is not a server error.
func Code(err error) string {
	var e *pq.Error
	if errors.As(err, &e) {
		return string(e.Code)
	}
	return ""
}

// SQLSTATE codes callers tell apart.
const (
	CodeUniqueViolation      = "23505"
	CodeForeignKeyViolation  = "23503"
	CodeSerializationFailure = "40001"
	CodeDeadlockDetected     = "40P01"
)

// Retryable reports whether err aborted a transaction that may simply
// be run again.
func Retryable(err error) bool {
	switch Code(err) {
	case CodeSerializationFailure, CodeDeadlockDetected:
		return true
	}
	return false
}
