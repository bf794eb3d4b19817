package kb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/hermes-go/hermes/internal/clock"
	"github.com/hermes-go/hermes/internal/config"
	"github.com/hermes-go/hermes/internal/safety/netguard"
	"github.com/hermes-go/hermes/internal/sqldb"
)

// DefaultKB is the knowledge base a source goes to when none is named.
const DefaultKB = "default"

// Options configure a KB. The zero value of each field has a default.
type Options struct {
	// Clock stamps ingested_at; nil is the wall clock.
	Clock clock.Clock
	// Guard admits the URLs ingest fetches; nil refuses private and
	// local addresses, as web_extract does.
	Guard *netguard.Guard
	// FetchTimeout bounds one URL's fetch (30 s).
	FetchTimeout time.Duration
	// MaxBytes is the largest source read, file or URL (50 MB); a larger
	// one is reported, not cut, since a half document would cite lines
	// that do not exist.
	MaxBytes int64
	// Chunk sizes the chunks.
	Chunk ChunkOptions
	// Rankers are ranked lists Search fuses with its BM25 ones (see
	// Ranker).
	Rankers []Ranker
	// Embedder, when set, embeds the chunks ingested and the queries
	// searched, and Search fuses vector similarity with BM25.
	Embedder Embedder
	// EmbedModel names the embedder's model ("openai/text-embedding-3-small"):
	// it is recorded with the vectors, so vectors of another model are
	// never compared with its.
	EmbedModel string
	// Logger hears of searches left without their vectors; nil discards.
	Logger *slog.Logger
}

// KB is the knowledge bases stored in state.db. It is safe for
// concurrent use; writes go through the database's one writer.
type KB struct {
	db     sqldb.DB
	clock  clock.Clock
	client *http.Client
	opts   Options
}

// New returns the knowledge bases of db.
func New(db sqldb.DB, opts Options) *KB {
	if opts.FetchTimeout <= 0 {
		opts.FetchTimeout = 30 * time.Second
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.MaxBytes <= 0 {
		opts.MaxBytes = 50 << 20
	}
	guard := opts.Guard
	if guard == nil {
		guard = &netguard.Guard{}
	}
	k := &KB{db: db, clock: clock.OrReal(opts.Clock), client: guard.Client(opts.FetchTimeout), opts: opts}
	if opts.Embedder != nil {
		k.opts.Rankers = append([]Ranker{vectorRanker{k: k}}, opts.Rankers...)
	}
	return k
}

// CheckName reports whether name can name a knowledge base, with an
// error that says what is accepted.
func CheckName(name string) error {
	if !config.KBName(name) {
		return fmt.Errorf("knowledge base name %q: want 1–64 letters, digits, '_', '.' or '-', starting with a letter or digit", name)
	}
	return nil
}

// CheckTag reports whether tag can tag a source.
func CheckTag(tag string) error {
	if !config.KBName(tag) {
		return fmt.Errorf("tag %q: want 1–64 letters, digits, '_', '.' or '-', starting with a letter or digit", tag)
	}
	return nil
}

// Exists reports whether some knowledge base has a source, so the
// kb_search tool is worth offering; with names, whether one of those
// does, so an agent limited to them is not offered a search of nothing.
func (k *KB) Exists(ctx context.Context, names ...string) (bool, error) {
	var n int
	query, args := `SELECT count(*) FROM (SELECT 1 FROM kb_sources LIMIT 1) AS one`, []any(nil)
	if len(names) > 0 {
		query = `SELECT count(*) FROM (SELECT 1 FROM kb_sources s JOIN kb_bases b ON b.id = s.kb
WHERE b.name IN (?` + strings.Repeat(",?", len(names)-1) + `) LIMIT 1) AS one`
		for _, name := range names {
			args = append(args, name)
		}
	}
	err := k.db.Reader().QueryRowContext(ctx, query, args...).Scan(&n)
	if err != nil {
		return false, fmt.Errorf("look for knowledge bases: %w", err)
	}
	return n > 0, nil
}

// baseID is the id of the knowledge base name, creating it if asked.
// It runs inside a write transaction when create is set.
func baseID(ctx context.Context, tx *sql.Tx, name string, now time.Time) (int64, error) {
	var id int64
	err := tx.QueryRowContext(ctx, `SELECT id FROM kb_bases WHERE name = ?`, name).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		err = tx.QueryRowContext(ctx, `INSERT INTO kb_bases (name, created_at) VALUES (?, ?) RETURNING id`, name, now.UnixMicro()).Scan(&id)
	}
	if err != nil {
		return 0, fmt.Errorf("knowledge base %s: %w", name, err)
	}
	return id, nil
}

// writeTx runs fn in a write transaction (sqldb.DB.WriteTx) that is
// the only one writing the knowledge bases until it ends. SQLite's one
// writer does so already. On PostgreSQL, READ COMMITTED would let two
// replicas interleave what SQLite runs one after the other: two ingests
// creating the same knowledge base (a unique violation), two trainings
// of the index replacing each other's cells halfway. A transaction-scoped
// advisory lock queues them instead; every statement after it sees what
// the one before committed, as with SQLite.
func (k *KB) writeTx(ctx context.Context, what string, fn func(*sql.Tx) error) error {
	return k.db.WriteTx(ctx, what, func(tx *sql.Tx) error {
		if k.db.Dialect() == sqldb.Postgres {
			if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(?)`, int64(writeLock)); err != nil {
				return fmt.Errorf("%s: lock the knowledge bases: %w", what, err)
			}
		}
		return fn(tx)
	})
}

// writeLock is the key of the knowledge bases' advisory lock ("hermeskb"
// in ASCII).
const writeLock = 0x6865726d65736b62

// joinTags stores tags as ",a,b," so a LIKE of ",tag," finds one whole.
func joinTags(tags []string) string {
	if len(tags) == 0 {
		return ""
	}
	return "," + strings.Join(tags, ",") + ","
}

// splitTags undoes joinTags.
func splitTags(s string) []string {
	s = strings.Trim(s, ",")
	if s == "" {
		return nil
	}
	return strings.Split(s, ",")
}
