package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/hermes-go/hermes/internal/clock"
	"github.com/hermes-go/hermes/internal/session"
	"github.com/hermes-go/hermes/internal/sqlitedb"
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
	// BusyTimeout and Logger configure the database Open opens for the
	// store (sqlitedb.Options); a store made by New uses its DB's.
	BusyTimeout time.Duration
	Logger      *slog.Logger
}

// Store is a session.Store over the session tables of state.db. Writes go
// through the DB's one writer connection and reads through its pool of
// read-only connections, which WAL lets run while a write is in progress.
type Store struct {
	db    *sqlitedb.DB
	owned bool // Open made db, so Close closes it
	read  *sql.DB
	now   func() time.Time
	newID func() string
	stmts *statements

	mu sync.Mutex
	// unindexed counts the messages this store appended that are not yet
	// in the full-text indexes (see indexBatch).
	unindexed int

	// scanShortTerms lets trigram.go scan for a 1–2 character CJK term
	// when that is cheaper than the index; tests turn it off to send
	// every such term through the index.
	scanShortTerms bool
}

// New returns the session store over db, whose Open has brought the
// session tables up to date. Close releases the store's prepared
// statements; db stays open for the other stores sharing it.
func New(db *sqlitedb.DB, opt Options) (*Store, error) {
	s := &Store{db: db, read: db.Reader(), now: clock.OrReal(opt.Clock).Now, newID: opt.NewID, scanShortTerms: true}
	if s.newID == nil {
		s.newID = func() string { return session.NewID(s.now()) }
	}
	var err error
	// Statements live on the writer connection, where Append runs them.
	if s.stmts, err = prepare(context.Background(), db.Writer()); err != nil {
		return nil, fmt.Errorf("sqlite: %w", err)
	}
	return s, nil
}

// Open opens (creating if needed) the database at path, brings its
// schema up to date and returns a store that owns it: Close closes the
// database too. It is for tests and benchmarks that need a session store
// on a file of its own; a process running hermes opens state.db once
// (sqlitedb.Open) and builds every store on it with New. Several
// processes may open the same file at once.
func Open(path string, opt Options) (*Store, error) {
	if path == "" {
		return nil, errors.New("sqlite: open: empty path")
	}
	db, err := sqlitedb.Open(context.Background(), path, sqlitedb.Options{BusyTimeout: opt.BusyTimeout, Logger: opt.Logger})
	if err != nil {
		return nil, fmt.Errorf("sqlite: %w", err)
	}
	s, err := New(db, opt)
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("sqlite: open %s: %w", path, err)
	}
	s.owned = true
	return s, nil
}

// Close releases the store's prepared statements and, for a store made
// by Open, closes its database (sqlitedb.DB.Close).
func (s *Store) Close() error {
	var errs []error
	s.mu.Lock()
	pending := s.unindexed > 0
	s.mu.Unlock()
	if pending {
		errs = append(errs, s.indexPending(context.Background()))
	}
	errs = append(errs, s.stmts.close())
	if s.owned {
		errs = append(errs, s.db.Close())
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("sqlite: close: %w", err)
	}
	return nil
}
