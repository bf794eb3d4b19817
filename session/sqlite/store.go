package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"runtime"
	"sync/atomic"
	"time"

	"github.com/hermes-go/hermes/internal/clock"
	"github.com/hermes-go/hermes/internal/sqlitedb"
	"github.com/hermes-go/hermes/session"

	// The pure-Go SQLite driver, registered as "sqlite".
	_ "modernc.org/sqlite"
)

var _ session.Store = (*Store)(nil)

// Options tune a Store. The zero value is ready to use.
type Options struct {
	// Clock is the clock for timestamps the store fills in; nil means
	// the real clock. Tests pass a fake.
	Clock clock.Clock
	// NewID makes ids for sessions created without one; nil means
	// session.NewID at the current time.
	NewID func() string
	// BusyTimeout is how long SQLite itself waits for another writer's
	// lock before the store's own jittered retries take over; zero means
	// one second. It is short on purpose: SQLite's internal backoff is
	// deterministic, so writers that all wait in it retry in lockstep,
	// while the store's random waits spread them out.
	BusyTimeout time.Duration
	// Logger receives retries and checkpoint failures; nil discards them.
	Logger *slog.Logger
}

// Store is a session.Store over one SQLite file. Writes go through one
// connection (so goroutines of this process queue in Go rather than spin
// on SQLite's lock) and reads through a pool of read-only connections,
// which WAL lets run while a write is in progress.
type Store struct {
	write  *sql.DB
	read   *sql.DB
	now    func() time.Time
	newID  func() string
	log    *slog.Logger
	writes atomic.Int64 // successful write transactions, for checkpoints
	stmts  *statements

	// scanShortTerms lets trigram.go scan for a 1–2 character CJK term
	// when that is cheaper than the index; tests turn it off to send
	// every such term through the index.
	scanShortTerms bool
}

// Open opens (creating if needed) the database at path and brings its
// schema up to date. Several processes may open the same file at once.
func Open(path string, opt Options) (*Store, error) {
	if path == "" {
		return nil, errors.New("sqlite: open: empty path")
	}
	s := &Store{now: clock.OrReal(opt.Clock).Now, newID: opt.NewID, log: opt.Logger, scanShortTerms: true}
	if s.newID == nil {
		s.newID = func() string { return session.NewID(s.now()) }
	}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	busy := opt.BusyTimeout
	if busy <= 0 {
		busy = time.Second
	}

	var err error
	s.write, err = sql.Open("sqlite", writeDSN(path, busy))
	if err != nil {
		return nil, fmt.Errorf("sqlite: open %s for writing: %w", path, err)
	}
	// One writer connection: SQLite admits one writer at a time, and four
	// writer connections gave four appending goroutines no more
	// throughput (310 against 317 µs an append, BenchmarkAppendParallel).
	// With one, writers of this process wait in Go rather than in
	// SQLite's sleeping busy handler, and prepared statements live on a
	// single connection.
	s.write.SetMaxOpenConns(1)
	s.write.SetMaxIdleConns(1)
	s.write.SetConnMaxIdleTime(0)
	s.write.SetConnMaxLifetime(0)

	ctx := context.Background()
	if err := s.migrate(ctx); err != nil {
		s.write.Close()
		return nil, fmt.Errorf("sqlite: open %s: %w", path, err)
	}
	if s.stmts, err = prepare(ctx, s.write); err != nil {
		s.write.Close()
		return nil, fmt.Errorf("sqlite: open %s: %w", path, err)
	}

	s.read, err = sql.Open("sqlite", readDSN(path, busy))
	if err != nil {
		s.Close()
		return nil, fmt.Errorf("sqlite: open %s for reading: %w", path, err)
	}
	// Reads have a pool of their own: searching through the writer
	// connection instead cut a concurrent appender from 1,600 to 530
	// appends/s (BenchmarkSearchWhileAppending).
	readers := max(4, runtime.GOMAXPROCS(0))
	s.read.SetMaxOpenConns(readers)
	s.read.SetMaxIdleConns(readers)
	s.read.SetConnMaxIdleTime(5 * time.Minute)
	if err := s.read.PingContext(ctx); err != nil {
		s.Close()
		return nil, fmt.Errorf("sqlite: open %s for reading: %w", path, err)
	}
	return s, nil
}

// Close closes both connection pools, first letting SQLite refresh the
// query planner's statistics where they are stale (PRAGMA optimize, as
// SQLite advises for connections that live long).
func (s *Store) Close() error {
	var errs []error
	if s.stmts != nil {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		if _, err := s.write.ExecContext(ctx, "PRAGMA optimize"); err != nil {
			s.log.Warn("sqlite: PRAGMA optimize at close failed", "err", err)
		}
		cancel()
		errs = append(errs, s.stmts.close())
	}
	if s.read != nil {
		errs = append(errs, s.read.Close())
	}
	if s.write != nil {
		errs = append(errs, s.write.Close())
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("sqlite: close: %w", err)
	}
	return nil
}

// writeDSN configures the writer (sqlitedb.WriterDSN).
func writeDSN(path string, busy time.Duration) string { return sqlitedb.WriterDSN(path, busy) }

// readDSN configures the read pool: query_only guards against a write
// slipping onto a connection whose transactions do not take the write
// lock, and a larger page cache keeps the FTS indexes' hot pages.
func readDSN(path string, busy time.Duration) string {
	q := url.Values{}
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", busy.Milliseconds()))
	q.Add("_pragma", "query_only(1)")
	q.Add("_pragma", "cache_size(-16384)")
	return "file:" + escapePath(path) + "?" + q.Encode()
}

// escapePath keeps URI characters in a file name from being read as a
// query or fragment (sqlitedb.EscapePath).
func escapePath(path string) string { return sqlitedb.EscapePath(path) }
