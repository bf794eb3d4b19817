package sqlitedb

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"sync/atomic"
	"time"

	// The pure-Go SQLite driver, registered as "sqlite".
	_ "modernc.org/sqlite"
)

// checkpointEvery is how many writes pass between passive WAL
// checkpoints.
const checkpointEvery = 50

// Options tune Open. The zero value is ready to use.
type Options struct {
	// BusyTimeout is how long SQLite itself waits for another process's
	// lock before WriteTx's own jittered retries take over; zero means
	// one second. It is short on purpose: SQLite's internal backoff is
	// deterministic, so writers that all wait in it retry in lockstep,
	// while random waits spread them out.
	BusyTimeout time.Duration
	// Logger receives retries and checkpoint failures; nil discards them.
	Logger *slog.Logger
}

// DB is state.db opened once for a process: one writer connection and a
// pool of read-only connections, shared by every store that keeps tables
// in the file. Writes go through the one writer (so goroutines of this
// process queue in Go rather than spin on SQLite's lock), reads through
// the pool, which WAL lets run while a write is in progress.
//
// With a single writer connection, code inside a WriteTx must reach the
// database only through its *sql.Tx: a query on Writer() would wait for
// the connection the transaction holds, for ever.
type DB struct {
	write  *sql.DB
	read   *sql.DB
	log    *slog.Logger
	writes atomic.Int64 // successful write transactions, for checkpoints
	ckpt   *checkpointer
}

// Open opens (creating if needed) the database at path and brings every
// schema of the file up to date. Several processes may open the same file
// at once; a process running hermes opens it once and shares the *DB.
func Open(ctx context.Context, path string, opt Options) (*DB, error) {
	if path == "" {
		return nil, errors.New("open database: empty path")
	}
	busy := busyTimeout(opt)
	if err := checkOwn(ctx, path, busy); err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	db := newDB(opt)
	db.ckpt = &checkpointer{path: path, busy: busy, log: db.log}
	return db.open(ctx, path, writerDSN(path, busy), readerDSN(path, busy))
}

// OpenMemory opens a database that lives in this process's memory only,
// with every schema, for a hermes embedded in a program that keeps no
// files: nothing is written to disk and everything is gone at Close. Its
// connections share it through SQLite's memdb VFS, which has no WAL, so
// a read waits for a commit in progress (up to the busy timeout) where a
// file's would not.
func OpenMemory(ctx context.Context, opt Options) (*DB, error) {
	var name [8]byte
	if _, err := rand.Read(name[:]); err != nil {
		return nil, fmt.Errorf("open database in memory: %w", err)
	}
	path := "/hermes-" + hex.EncodeToString(name[:])
	busy := max(busyTimeout(opt), 5*time.Second)
	db := newDB(opt)
	return db.open(ctx, "a database in memory", memoryDSN(path, busy, false), memoryDSN(path, busy, true))
}

func busyTimeout(opt Options) time.Duration {
	if opt.BusyTimeout <= 0 {
		return time.Second
	}
	return opt.BusyTimeout
}

func newDB(opt Options) *DB {
	db := &DB{log: opt.Logger}
	if db.log == nil {
		db.log = slog.New(slog.DiscardHandler)
	}
	return db
}

// open opens the writer connection, migrates, and opens the read pool;
// what names the database in errors.
func (db *DB) open(ctx context.Context, what, writer, reader string) (*DB, error) {
	var err error
	if db.write, err = sql.Open("sqlite", writer); err != nil {
		return nil, fmt.Errorf("open %s for writing: %w", what, err)
	}
	// One writer connection: SQLite admits one writer at a time, and four
	// writer connections gave four appending goroutines no more
	// throughput (310 against 317 µs an append, session/sqlite's
	// BenchmarkAppendParallel). With one, writers of this process wait in
	// Go rather than in SQLite's sleeping busy handler, and prepared
	// statements live on a single connection. (It also keeps a database
	// in memory alive until Close.)
	db.write.SetMaxOpenConns(1)
	db.write.SetMaxIdleConns(1)
	db.write.SetConnMaxIdleTime(0)
	db.write.SetConnMaxLifetime(0)
	if err := db.migrate(ctx); err != nil {
		db.write.Close()
		return nil, fmt.Errorf("open %s: %w", what, err)
	}

	if db.read, err = sql.Open("sqlite", reader); err != nil {
		db.write.Close()
		return nil, fmt.Errorf("open %s for reading: %w", what, err)
	}
	// Reads have a pool of their own: searching through the writer
	// connection instead cut a concurrent appender from 1,600 to 530
	// appends/s (session/sqlite's BenchmarkSearchWhileAppending).
	readers := max(4, runtime.GOMAXPROCS(0))
	db.read.SetMaxOpenConns(readers)
	db.read.SetMaxIdleConns(readers)
	db.read.SetConnMaxIdleTime(5 * time.Minute)
	if err := db.read.PingContext(ctx); err != nil {
		db.read.Close()
		db.write.Close()
		return nil, fmt.Errorf("open %s for reading: %w", what, err)
	}
	return db, nil
}

// Writer is the one writer connection, for preparing the statements a
// store runs in its write transactions (tx.StmtContext). Writes go
// through WriteTx.
func (db *DB) Writer() *sql.DB { return db.write }

// Reader is the read-only pool every read goes through.
func (db *DB) Reader() *sql.DB { return db.read }

// Close closes both connection pools, first letting SQLite refresh the
// query planner's statistics where they are stale (PRAGMA optimize, as
// SQLite advises for connections that live long). The stores built on
// db close their own statements before.
func (db *DB) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	if _, err := db.write.ExecContext(ctx, "PRAGMA optimize"); err != nil {
		db.log.Warn("sqlite: PRAGMA optimize at close failed", "err", err)
	}
	cancel()
	db.ckpt.close()
	if err := errors.Join(db.read.Close(), db.write.Close()); err != nil {
		return fmt.Errorf("close database: %w", err)
	}
	return nil
}

// WriteTx runs fn in a write transaction on the writer connection (BEGIN
// IMMEDIATE) and commits it, retrying the whole transaction while the
// database is busy or locked by another process, up to Attempts tries
// with random waits between them. fn may run several times, so it must
// not keep side effects outside tx until it returns nil for the last
// time: callers write results back only after WriteTx succeeds. fn must
// reach the database only through tx (see DB). what names the operation
// in errors.
func (db *DB) WriteTx(ctx context.Context, what string, fn func(*sql.Tx) error) error {
	if err := writeTx(ctx, db.write, db.log, what, fn); err != nil {
		return err
	}
	db.afterWrite()
	return nil
}

// afterWrite counts successful writes, of every store sharing db, and
// asks for a passive checkpoint every checkpointEvery of them, which runs
// beside the writers (checkpointer). SQLite's own auto-checkpoint runs on
// commit and gives up while readers hold old snapshots, so with
// long-lived readers in other processes the WAL could grow without
// bound; a passive checkpoint copies what it can without waiting on
// anyone.
func (db *DB) afterWrite() {
	if db.writes.Add(1)%checkpointEvery != 0 {
		return
	}
	db.ckpt.request()
}
