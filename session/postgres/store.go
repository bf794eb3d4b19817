// Package postgres is a session.Store on PostgreSQL, for several hermes
// processes on several machines sharing one history. It keeps the same
// behaviour as session/sqlite (the session/storetest suite holds both to
// it): ids made by session.NewID, times stored as microseconds since the
// Unix epoch and read back in UTC, counts kept by Append in the
// transaction that adds the rows, usage added to usage_daily per user,
// tenant and model, and per-session turn leases (session.Leaser).
//
// Search finds words through a tsvector column with the 'simple'
// configuration (no stemming: what was typed is what is found), and CJK
// text and substrings through ILIKE served by a pg_trgm index (search.go).
// One- and two-character terms (most Chinese words) have no trigram, so
// they are found by strpos over the rows the other conditions leave.
//
// pg_trgm makes trigrams of letters and digits only, as the database's
// LC_CTYPE classifies them: under LC_CTYPE C, CJK characters are not
// letters, CJK text has no trigrams, and CJK searches, while still
// correct, read every message. Create the database with a UTF-8
// character type (LC_CTYPE 'C.UTF-8', or any xx_XX.UTF-8) so the index
// serves them; the tests run the suite under both.
package postgres

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/lib/pq" // registers the "postgres" database/sql driver

	"github.com/hermes-go/hermes/internal/clock"
	"github.com/hermes-go/hermes/session"
)

var (
	_ session.Store  = (*Store)(nil)
	_ session.Leaser = (*Store)(nil)
)

// Options tune a Store. The zero value is ready to use.
type Options struct {
	// Clock is the clock for timestamps the store fills in; nil means
	// the real clock. Tests pass a fake.
	Clock clock.Clock
	// NewID makes ids for sessions created without one; nil means
	// session.NewID at the current time.
	NewID func() string
}

// Store is a session.Store over a PostgreSQL database.
type Store struct {
	db    *sql.DB
	now   func() time.Time
	newID func() string
}

// Open connects to the database at dsn (a postgres:// URL or key=value
// string, as lib/pq reads it), brings the session tables up to date and
// returns the store. Several processes may open the same database at
// once: migrations run one at a time under an advisory lock.
func Open(ctx context.Context, dsn string, opt Options) (*Store, error) {
	if dsn == "" {
		return nil, errors.New("postgres: open: empty dsn; want a postgres:// URL")
	}
	db, err := sql.Open("postgres", dsn)
	if err != nil {
		return nil, fmt.Errorf("postgres: open: %w", err)
	}
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("postgres: connect: %w", err)
	}
	if err := migrate(ctx, db); err != nil {
		db.Close()
		return nil, fmt.Errorf("postgres: %w", err)
	}
	s := &Store{db: db, now: clock.OrReal(opt.Clock).Now, newID: opt.NewID}
	if s.newID == nil {
		s.newID = func() string { return session.NewID(s.now()) }
	}
	return s, nil
}

// Close closes the store's connections.
func (s *Store) Close() error {
	if err := s.db.Close(); err != nil {
		return fmt.Errorf("postgres: close: %w", err)
	}
	return nil
}

// tx runs fn in a transaction, committing when it returns nil. what
// names the operation in errors; session.ErrNotFound from fn stays
// matchable.
func (s *Store) tx(ctx context.Context, what string, fn func(tx *sql.Tx) error) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("postgres: %s: begin: %w", what, err)
	}
	if err := fn(tx); err != nil {
		tx.Rollback()
		return fmt.Errorf("postgres: %s: %w", what, err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("postgres: %s: commit: %w", what, err)
	}
	return nil
}

// pgCode is the SQLSTATE of err, or "" when it is not a server error.
func pgCode(err error) string {
	var e *pq.Error
	if errors.As(err, &e) {
		return string(e.Code)
	}
	return ""
}

// SQLSTATE codes the store tells apart.
const (
	codeForeignKey = "23503"
	codeUnique     = "23505"
)

// toMicros is t as stored: microseconds since the Unix epoch.
func toMicros(t time.Time) int64 { return t.UnixMicro() }

// fromMicros is a stored time, in UTC.
func fromMicros(us int64) time.Time { return time.UnixMicro(us).UTC() }

// stamp is t as the store keeps it: UTC, to the microsecond.
func stamp(t time.Time) time.Time { return fromMicros(toMicros(t)) }

// text is s as PostgreSQL's text can hold it: NUL bytes and invalid
// UTF-8, which tool output (a binary file read) and models produce and
// the server refuses, become U+FFFD, as encoding/json does in the JSON
// columns. Without it a turn whose tool read a binary file would fail to
// be stored.
func text(s string) string {
	return strings.ReplaceAll(strings.ToValidUTF8(s, "\uFFFD"), "\x00", "\uFFFD")
}
