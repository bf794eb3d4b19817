// Package sqlitedb is how hermes opens and writes state.db, the SQLite
// file several of its processes share: one connection configuration, one
// write-contention policy, so a gateway, cron runs and CLIs writing the
// file at once wait for each other instead of failing, and every schema
// migration of the file (the session store's, the long-term facts', the
// cron jobs'), so one package knows the whole file.
//
// A process opens the file once (Open) and hands the *DB to every store
// that keeps tables in it; the stores share its one writer connection
// and its read pool.
package sqlitedb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net/url"
	"time"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/hermes-go/hermes/internal/clock"
	"github.com/hermes-go/hermes/internal/sqldb"
)

// Write contention policy, as Hermes Agent tuned it for one state.db
// shared by a gateway, cron runs and several CLIs: a short SQLite busy
// timeout, then up to Attempts tries in all, each after a random wait, so
// competing writers do not retry in step.
const (
	Attempts     = 15
	retryMinWait = 20 * time.Millisecond
	retryMaxWait = 150 * time.Millisecond
)

// writerDSN configures the connection that writes: WAL so readers never
// block it, synchronous NORMAL (modernc defaults WAL to FULL, an fsync per
// commit; NORMAL loses at most the last commits on power loss, never
// consistency), and BEGIN IMMEDIATE for every transaction so lock
// contention shows up at BEGIN, where a retry is safe, rather than at the
// first write of a read-then-write transaction, where it is not.
func writerDSN(path string, busy time.Duration) string {
	q := url.Values{}
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", busy.Milliseconds()))
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "synchronous(NORMAL)")
	q.Add("_pragma", "foreign_keys(1)")
	q.Add("_txlock", "immediate")
	return "file:" + escapePath(path) + "?" + q.Encode()
}

// readerDSN configures the read pool: query_only guards against a write
// slipping onto a connection whose transactions do not take the write
// lock, and a larger page cache keeps the FTS indexes' hot pages.
func readerDSN(path string, busy time.Duration) string {
	q := url.Values{}
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", busy.Milliseconds()))
	q.Add("_pragma", "query_only(1)")
	q.Add("_pragma", "cache_size(-16384)")
	return "file:" + escapePath(path) + "?" + q.Encode()
}

// memoryDSN configures a connection to the database in memory named
// path (memdb VFS, shared by every connection of the process that names
// it); readers are query_only as on a file.
func memoryDSN(path string, busy time.Duration, reader bool) string {
	q := url.Values{}
	q.Add("vfs", "memdb")
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", busy.Milliseconds()))
	q.Add("_pragma", "foreign_keys(1)")
	if reader {
		q.Add("_pragma", "query_only(1)")
	} else {
		q.Add("_txlock", "immediate")
	}
	return "file:" + path + "?" + q.Encode()
}

// escapePath keeps characters that mean something in a URI ("?", "#",
// "%") in a file name from being read as its query or fragment.
func escapePath(path string) string {
	u := url.URL{Path: path}
	return u.EscapedPath()
}

// IsBusy reports whether err is SQLite's busy or locked error: the only
// failure worth retrying, because the transaction never took effect.
func IsBusy(err error) bool {
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

// writeTx runs fn in a write transaction on db and commits it, retrying
// the whole transaction while the database is busy or locked by another
// connection. fn may run several times, so it must not keep side effects
// outside tx until it returns nil for the last time. what names the
// operation in errors and in the debug line logged per retry.
func writeTx(ctx context.Context, db *sql.DB, log *slog.Logger, what string, fn func(*sql.Tx) error) error {
	var err error
	for attempt := 1; ; attempt++ {
		if err = sqldb.InTx(ctx, db, fn); err == nil {
			return nil
		}
		if !IsBusy(err) || attempt == Attempts {
			break
		}
		wait := retryMinWait + rand.N(retryMaxWait-retryMinWait)
		log.Debug("database busy, retrying", "op", what, "attempt", attempt, "wait", wait, "err", err)
		if werr := (clock.Real{}).Sleep(ctx, wait); werr != nil {
			return fmt.Errorf("%s: %w (gave up waiting for the write lock: %w)", what, werr, err)
		}
	}
	return fmt.Errorf("%s: %w", what, err)
}

// Dialect is sqldb.SQLite.
func (db *DB) Dialect() sqldb.Dialect { return sqldb.SQLite }
