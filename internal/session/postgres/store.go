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
	"fmt"
	"time"

	"github.com/hermes-go/hermes/internal/clock"
	"github.com/hermes-go/hermes/internal/pgdb"
	"github.com/hermes-go/hermes/internal/session"
	"github.com/hermes-go/hermes/internal/sqldb"
	"github.com/hermes-go/hermes/internal/sqltext"
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
	h     sqldb.DB
	owned sqldb.DB // closed by Close when Open made it
	db    *sql.DB
	now   func() time.Time
	newID func() string
}

// Open connects to the database at dsn (a postgres:// URL or key=value
// string, as lib/pq reads it), brings every schema up to date
// (internal/pgdb) and returns the store, which closes the connections
// when it is closed. Several processes may open the same database at
// once.
func Open(ctx context.Context, dsn string, opt Options) (*Store, error) {
	db, err := pgdb.Open(ctx, dsn, pgdb.Options{})
	if err != nil {
		return nil, err
	}
	s, err := New(db, opt)
	if err != nil {
		db.Close()
		return nil, err
	}
	s.owned = db
	return s, nil
}

// New returns the store over db, a PostgreSQL database whose Open has
// brought the session tables up to date; db stays open when the store
// is closed.
func New(db sqldb.DB, opt Options) (*Store, error) {
	if db.Dialect() != sqldb.Postgres {
		return nil, fmt.Errorf("postgres: session store over a %s database", db.Dialect())
	}
	s := &Store{h: db, db: db.Reader(), now: clock.OrReal(opt.Clock).Now, newID: opt.NewID}
	if s.newID == nil {
		s.newID = func() string { return session.NewID(s.now()) }
	}
	return s, nil
}

// Close closes the connections when Open made them.
func (s *Store) Close() error {
	if s.owned == nil {
		return nil
	}
	return s.owned.Close()
}

// tx runs fn in a transaction, committing when it returns nil and
// running it again after a serialization failure or deadlock
// (sqldb.DB.WriteTx). what names the operation in errors;
// session.ErrNotFound from fn stays matchable.
func (s *Store) tx(ctx context.Context, what string, fn func(tx *sql.Tx) error) error {
	if err := s.h.WriteTx(ctx, what, fn); err != nil {
		return fmt.Errorf("postgres: %w", err)
	}
	return nil
}

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
func text(s string) string { return sqltext.Clean(sqldb.Postgres, s) }
