package facts

import (
	"context"
	"database/sql"
	"log/slog"
	"time"

	"github.com/hermes-go/hermes/internal/clock"
	"github.com/hermes-go/hermes/internal/sqldb"
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
	// EmbedModel names the model Embed calls ("openai/text-embedding-3-small"):
	// each vector is kept with it, a vector of another model is left out
	// of search, and Backfill makes it again.
	EmbedModel string
	// Recall says which signals recall and search go by: words, vectors
	// or both (the default). Without Embed, vectors mean words.
	Recall RecallMode
	// MinMargin is how far a fact's cosine must beat the query's
	// background (anchors.go) for Recall to return it by meaning alone;
	// zero means DefaultMinMargin.
	MinMargin float64
	// Logger receives failed embeddings; nil discards them. Retries of
	// busy writes go to the DB's logger.
	Logger *slog.Logger
}

// RecallMode is which signals recall and search go by.
type RecallMode string

// The recall modes; "" is RecallHybrid.
const (
	RecallHybrid  RecallMode = "hybrid"
	RecallWords   RecallMode = "words"
	RecallVectors RecallMode = "vectors"
)

// Store is the fact table of one state.db. Its methods are safe for
// concurrent use, and several processes may use the same file at once.
// Writes go through the DB's writer connection, reads through its read
// pool.
type Store struct {
	db    sqldb.DB
	read  *sql.DB
	now   func() time.Time
	embed EmbedFunc
	model string
	mode  RecallMode
	// minMargin is Options.MinMargin, defaulted.
	minMargin float64
	vecs      *vectorCache
	log       *slog.Logger
	// owner is whose facts this view adds, finds and forgets: "" for the
	// shared ones (see For).
	owner string
}

// New returns the fact store over db, whose Open has brought the fact
// tables up to date. The store holds nothing of its own to release; db
// is closed by whoever opened it.
func New(db sqldb.DB, opt Options) *Store {
	s := &Store{db: db, read: db.Reader(), now: clock.OrReal(opt.Clock).Now, embed: opt.Embed, model: opt.EmbedModel,
		mode: opt.Recall, minMargin: opt.MinMargin, vecs: &vectorCache{}, log: opt.Logger}
	if s.minMargin == 0 {
		s.minMargin = DefaultMinMargin
	}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	return s
}

// For returns the view of the facts of user owner ("" is the shared
// facts): every method of it adds, finds, lists and forgets that user's
// facts alone.
func (s *Store) For(owner string) *Store {
	v := *s
	v.owner = owner
	return &v
}

// WithMinMargin returns a view of s whose Recall holds vectors to margin
// m instead of the store's own (Options.MinMargin): for measuring a
// model at several margins over one set of stored facts.
func (s *Store) WithMinMargin(m float64) *Store {
	v := *s
	v.minMargin = m
	return &v
}

// writeTx runs fn in a write transaction, retrying while another process
// holds the lock (sqlitedb.DB.WriteTx). fn may run several times, so it
// must keep no side effects outside tx, and it must reach the database
// only through tx: the DB's one writer connection is the one tx holds.
func (s *Store) writeTx(ctx context.Context, what string, fn func(*sql.Tx) error) error {
	return s.db.WriteTx(ctx, what, fn)
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
