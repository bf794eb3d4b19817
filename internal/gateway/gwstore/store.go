// Package gwstore keeps the gateway's state in the database every store
// shares (state.db, or PostgreSQL for several replicas): the inbound
// events already taken (so a redelivered event is answered once, across
// processes, replicas and restarts), pairing codes and approved
// pairings, and which hermes session each chat's session key is bound
// to.
//
// It is a package of its own, beside gateway rather than inside it,
// because every platform adapter imports gateway for the Platform
// interface and none of them should pull in SQLite; the gateway core
// reaches the store through small interfaces (gateway.Pairings) and the
// app wires the two together.
package gwstore

import (
	"context"
	"database/sql"
	"time"

	"github.com/hermes-go/hermes/internal/clock"
	"github.com/hermes-go/hermes/internal/sqldb"
)

// Options tune a Store. The zero value is ready to use.
type Options struct {
	// Clock is the clock for every time the store records and compares:
	// code expiry, rate limits, locks and session activity. nil means the
	// real clock.
	Clock clock.Clock
	// Rand is the source of pairing codes' randomness; nil means
	// crypto/rand. Tests set it to produce known codes.
	Rand func([]byte) error
	// Holder names this process ("host/pid") on the messages it holds,
	// so that replicas sharing the database tell theirs apart (Adopt).
	Holder string
}

// Store is the gateway's tables in one database. It is safe for
// concurrent use, and several processes or replicas may share the
// database: every decision (is this event new, may this user have a
// code, is this code right) is taken inside one write transaction that
// holds the rows it read until it commits, as PostgreSQL's READ
// COMMITTED needs and SQLite's one writer gives anyway.
type Store struct {
	db     sqldb.DB
	read   *sql.DB
	now    func() time.Time
	rand   func([]byte) error
	holder string
}

// New returns the store over db, whose Open has brought the gateway
// tables up to date. The store holds nothing of its own to release; db is
// closed by whoever opened it.
func New(db sqldb.DB, opt Options) *Store {
	s := &Store{db: db, read: db.Reader(), now: clock.OrReal(opt.Clock).Now, rand: opt.Rand, holder: opt.Holder}
	if s.rand == nil {
		s.rand = cryptoRand
	}
	return s
}

// writeTx runs fn in a retried write transaction (sqldb.DB.WriteTx);
// fn reaches the database only through tx.
func (s *Store) writeTx(ctx context.Context, what string, fn func(*sql.Tx) error) error {
	return s.db.WriteTx(ctx, "gateway: "+what, fn)
}

// micros is t as the tables store times: microseconds since the epoch.
func micros(t time.Time) int64 { return t.UnixMicro() }

// fromMicros is the time a table stored as micros, in UTC.
func fromMicros(us int64) time.Time { return time.UnixMicro(us).UTC() }
