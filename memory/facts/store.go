package facts

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/hermes-go/hermes/internal/clock"
	"github.com/hermes-go/hermes/internal/sqlitedb"
)

// EmbedFunc turns texts into vectors, one per text, in order. Vectors
// from one function must all have the same length.
type EmbedFunc func(ctx context.Context, texts []string) ([][]float32, error)

// Options tune a Store. The zero value is ready to use.
type Options struct {
	// Clock is the clock for created and used times; nil means the real
	// clock.
	Clock clock.Clock
	// Embed, when set, gives every added fact a vector and blends cosine
	// similarity into search (embed.go); nil searches by words alone.
	Embed EmbedFunc
	// BusyTimeout is how long SQLite waits for another writer's lock
	// before the store's own jittered retries take over; zero means one
	// second, as the session store uses.
	BusyTimeout time.Duration
	// Logger receives retries and failed embeddings; nil discards them.
	Logger *slog.Logger
}

// Store is the fact table of one state.db. Its methods are safe for
// concurrent use, and several processes may use the same file at once.
type Store struct {
	db    *sql.DB
	now   func() time.Time
	embed EmbedFunc
	log   *slog.Logger
}

// Open opens (creating if needed) the database at path with default
// options and brings the fact tables up to date.
func Open(path string) (*Store, error) {
	return OpenWith(path, Options{})
}

// OpenWith is Open with options.
func OpenWith(path string, opt Options) (*Store, error) {
	if path == "" {
		return nil, errors.New("facts: open: empty path")
	}
	s := &Store{now: clock.OrReal(opt.Clock).Now, embed: opt.Embed, log: opt.Logger}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	var err error
	if s.db, err = sqlitedb.Open(context.Background(), path, opt.BusyTimeout, schema, s.log); err != nil {
		return nil, fmt.Errorf("facts: open %s: %w", path, err)
	}
	return s, nil
}

// Close closes the database handle.
func (s *Store) Close() error {
	if err := s.db.Close(); err != nil {
		return fmt.Errorf("facts: close: %w", err)
	}
	return nil
}

// writeTx runs fn in a write transaction, retrying while another process
// holds the lock (sqlitedb.WriteTx). fn may run several times, so it must
// keep no side effects outside tx.
func (s *Store) writeTx(ctx context.Context, what string, fn func(*sql.Tx) error) error {
	return sqlitedb.WriteTx(ctx, s.db, s.log, what, fn)
}

// micros is t as the integer microseconds the tables store.
func micros(t time.Time) int64 { return t.UnixMicro() }

// fromMicros is the inverse of micros; zero stays the zero time.
func fromMicros(us int64) time.Time {
	if us == 0 {
		return time.Time{}
	}
	return time.UnixMicro(us).UTC()
}
