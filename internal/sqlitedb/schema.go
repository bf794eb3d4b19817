package sqlitedb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"time"
)

// Schema is the versioned tables one package keeps in a shared database
// file (state.db holds the session store's, the long-term facts', the
// cron jobs'). Its version is a row of state_meta, the session store's
// key-value table, or of the package's own fallback table when the
// session store has not created state_meta yet; the larger of the two
// counts, so opening the file in either order works.
type Schema struct {
	// Name names the schema in errors ("cron").
	Name string
	// VersionKey is the version's key ("cron_schema_version").
	VersionKey string
	// Fallback is the package's own key-value table ("cron_meta"), used
	// when state_meta does not exist: it is never created here, because
	// its owner creates it without IF NOT EXISTS.
	Fallback string
	// Migrations[i] brings the schema from version i to i+1.
	Migrations []string
}

// Migrate brings the schema up to date. The version is read first without
// the write lock, so an up-to-date file costs one read; the migration runs
// in a write transaction that reads it again, so concurrent openers
// migrate once.
func (s Schema) Migrate(ctx context.Context, db *sql.DB, log *slog.Logger) error {
	if v, err := s.Version(ctx, db); err == nil && v == len(s.Migrations) {
		return nil
	}
	return WriteTx(ctx, db, log, "migrate "+s.Name+" schema", func(tx *sql.Tx) error {
		v, err := s.Version(ctx, tx)
		if err != nil {
			return err
		}
		if v > len(s.Migrations) {
			return fmt.Errorf("%s schema version %d is newer than this program knows (%d): upgrade hermes", s.Name, v, len(s.Migrations))
		}
		if v == len(s.Migrations) {
			return nil
		}
		for ; v < len(s.Migrations); v++ {
			if _, err := tx.ExecContext(ctx, s.Migrations[v]); err != nil {
				return fmt.Errorf("migrate %s schema to version %d: %w", s.Name, v+1, err)
			}
		}
		return s.writeVersion(ctx, tx, v)
	})
}

// Querier is what Version needs of a *sql.DB or *sql.Tx.
type Querier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// Version is the schema version recorded in state_meta or the fallback
// table, whichever is larger; zero when neither records one.
func (s Schema) Version(ctx context.Context, q Querier) (int, error) {
	v := 0
	for _, table := range []string{"state_meta", s.Fallback} {
		ok, err := tableExists(ctx, q, table)
		if err != nil {
			return 0, err
		}
		if !ok {
			continue
		}
		var n int
		err = q.QueryRowContext(ctx, `SELECT CAST(value AS INTEGER) FROM `+table+` WHERE key = ?`, s.VersionKey).Scan(&n)
		switch {
		case errors.Is(err, sql.ErrNoRows):
		case err != nil:
			return 0, fmt.Errorf("read %s.%s: %w", table, s.VersionKey, err)
		default:
			v = max(v, n)
		}
	}
	return v, nil
}

// writeVersion records v in state_meta if it exists, else in the
// fallback table.
func (s Schema) writeVersion(ctx context.Context, tx *sql.Tx, v int) error {
	table := "state_meta"
	ok, err := tableExists(ctx, tx, table)
	if err != nil {
		return err
	}
	if !ok {
		table = s.Fallback
		if _, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS `+table+` (key TEXT PRIMARY KEY, value TEXT)`); err != nil {
			return fmt.Errorf("create %s: %w", table, err)
		}
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO `+table+` (key, value) VALUES (?, ?)
ON CONFLICT (key) DO UPDATE SET value = excluded.value`, s.VersionKey, fmt.Sprint(v)); err != nil {
		return fmt.Errorf("write %s.%s: %w", table, s.VersionKey, err)
	}
	return nil
}

// tableExists reports whether the database has a table of that name.
func tableExists(ctx context.Context, q Querier, name string) (bool, error) {
	var n int
	if err := q.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = ?`, name).Scan(&n); err != nil {
		return false, fmt.Errorf("look for table %s: %w", name, err)
	}
	return n > 0, nil
}

// Open opens path for a package that keeps a small table set in a shared
// file (long-term facts, cron jobs): one small pool for reads and writes
// (their traffic is far below what would justify the session store's split
// pools; every transaction is BEGIN IMMEDIATE and reads run outside
// transactions, so readers never take the write lock), with the schema
// migrated. busy is SQLite's own wait for a lock; zero means one second.
func Open(ctx context.Context, path string, busy time.Duration, schema Schema, log *slog.Logger) (*sql.DB, error) {
	if busy <= 0 {
		busy = time.Second
	}
	db, err := sql.Open("sqlite", WriterDSN(path, busy))
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(4)
	db.SetMaxIdleConns(2)
	db.SetConnMaxIdleTime(5 * time.Minute)
	if err := schema.Migrate(ctx, db, log); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}
