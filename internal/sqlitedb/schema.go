package sqlitedb

import (
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"time"
)

// schemas is every schema of state.db, in the order Open migrates them:
// the session store's first, because it creates state_meta, where the
// others record their versions.
var schemas = []schema{sessionSchema, factSchema, cronSchema, gatewaySchema, teamSchema, kbSchema, auditSchema, replicasSchema, apiSchema}

// schema is the versioned tables one store keeps in state.db. Where its
// version is recorded is part of the file's format, kept as the stores
// have always written it, so files written by earlier releases open
// without migrating again:
//   - the session store's is the one row of its own table, schema_version
//     (versionTable), as in Hermes Agent's state.db;
//   - the others' are a row of state_meta, the session store's key-value
//     table, or of the store's own fallback table when state_meta did not
//     exist yet; the larger of the two counts, so a file where either was
//     written first opens alike.
type schema struct {
	// name names the schema in errors ("cron").
	name string
	// versionTable, when set, is a table of one row (version INTEGER)
	// holding the version; versionKey and fallback are then unused.
	versionTable string
	// versionKey is the version's key in state_meta ("cron_schema_version").
	versionKey string
	// fallback is the store's own key-value table ("cron_meta"), used
	// when state_meta does not exist: state_meta is never created here,
	// because the session schema creates it without IF NOT EXISTS.
	fallback string
	// migrations[i] brings the schema from version i to i+1. Entries are
	// append-only: a released migration is never edited, only followed.
	migrations []string
}

// migrate brings every schema of the file up to date.
func (db *DB) migrate(ctx context.Context) error {
	var id int64
	if err := db.write.QueryRowContext(ctx, `PRAGMA application_id`).Scan(&id); err != nil {
		return fmt.Errorf("read the application id: %w", err)
	}
	for _, s := range schemas {
		if err := s.migrate(ctx, db.write, db.log); err != nil {
			return err
		}
	}
	if id == AppID {
		return nil
	}
	// In a write transaction, retried while another process writes: the
	// stamp is a write of the file's header like any other.
	return writeTx(ctx, db.write, db.log, "stamp the application id", func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, fmt.Sprintf(`PRAGMA application_id = %d`, AppID))
		return err
	})
}

// checkOwn returns ErrForeign when the file at path is another
// program's: stamped with another application id, or unstamped with
// Hermes Agent's sessions table. It reads the file read-only, before
// Open's writer connection changes anything (its journal mode, say); a
// missing file is a new one, and hermes's.
func checkOwn(ctx context.Context, path string, busy time.Duration) error {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	var hdr [72]byte
	_, err = io.ReadFull(f, hdr[:])
	f.Close()
	if err == nil && binary.BigEndian.Uint32(hdr[68:]) == AppID {
		return nil // stamped: the usual case, without opening it twice
	}
	conn, err := sql.Open("sqlite", fmt.Sprintf("file:%s?mode=ro&_pragma=busy_timeout(%d)", escapePath(path), busy.Milliseconds()))
	if err != nil {
		return fmt.Errorf("open %s to read: %w", path, err)
	}
	defer conn.Close()
	var id int64
	if err := conn.QueryRowContext(ctx, `PRAGMA application_id`).Scan(&id); err != nil {
		return fmt.Errorf("read the application id of %s: %w", path, err)
	}
	switch id {
	case AppID:
		return nil
	case 0:
		var theirs int
		if err := conn.QueryRowContext(ctx,
			`SELECT count(*) FROM pragma_table_info('sessions') WHERE name IN ('origin_json', 'session_key')`).Scan(&theirs); err != nil {
			return fmt.Errorf("read the sessions table of %s: %w", path, err)
		}
		if theirs == 0 {
			return nil
		}
	}
	return ErrForeign
}

// AppID is the application id (PRAGMA application_id) hermes stamps on
// its state files, so it can tell them at a glance from another program's
// SQLite file of the same name: Hermes Agent's state.db, in the home the
// two share (see config's StateDB).
const AppID = 0x48524d53 // "HRMS"

// ErrForeign is Open's error for a file that is another program's: one
// stamped with another application id, or Hermes Agent's state.db. Open
// changes nothing in it.
var ErrForeign = errors.New("the file is another program's database (Hermes Agent's state.db?), not hermes's")

// migrate brings the schema up to date. It runs at every Open, so it
// first reads the version without the write lock: an up-to-date file
// costs reads only. The migration runs in a write transaction (BEGIN
// IMMEDIATE) that reads the version again, so when several processes
// open a new file at once one applies the migrations and the others find
// nothing left to do.
func (s schema) migrate(ctx context.Context, db *sql.DB, log *slog.Logger) error {
	if v, err := s.version(ctx, db); err == nil && v == len(s.migrations) {
		return nil
	}
	return writeTx(ctx, db, log, "migrate "+s.name+" schema", func(tx *sql.Tx) error {
		v, err := s.version(ctx, tx)
		if err != nil {
			return err
		}
		if v > len(s.migrations) {
			return fmt.Errorf("%s schema version %d is newer than this program knows (%d): upgrade hermes", s.name, v, len(s.migrations))
		}
		if v == len(s.migrations) {
			return nil
		}
		for ; v < len(s.migrations); v++ {
			if _, err := tx.ExecContext(ctx, s.migrations[v]); err != nil {
				return fmt.Errorf("migrate %s schema to version %d: %w", s.name, v+1, err)
			}
		}
		return s.writeVersion(ctx, tx, v)
	})
}

// querier is what version needs of a *sql.DB or *sql.Tx.
type querier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// version is the schema version recorded in the file; zero when none is.
func (s schema) version(ctx context.Context, q querier) (int, error) {
	if s.versionTable != "" {
		return s.tableVersion(ctx, q)
	}
	v := 0
	for _, table := range []string{"state_meta", s.fallback} {
		ok, err := tableExists(ctx, q, table)
		if err != nil {
			return 0, err
		}
		if !ok {
			continue
		}
		var n int
		err = q.QueryRowContext(ctx, `SELECT CAST(value AS INTEGER) FROM `+table+` WHERE key = ?`, s.versionKey).Scan(&n)
		switch {
		case errors.Is(err, sql.ErrNoRows):
		case err != nil:
			return 0, fmt.Errorf("read %s.%s: %w", table, s.versionKey, err)
		default:
			v = max(v, n)
		}
	}
	return v, nil
}

// tableVersion is the version in versionTable; zero when the table or
// its row does not exist.
func (s schema) tableVersion(ctx context.Context, q querier) (int, error) {
	ok, err := tableExists(ctx, q, s.versionTable)
	if err != nil || !ok {
		return 0, err
	}
	var v int
	switch err := q.QueryRowContext(ctx, `SELECT version FROM `+s.versionTable).Scan(&v); {
	case errors.Is(err, sql.ErrNoRows):
		return 0, nil
	case err != nil:
		return 0, fmt.Errorf("read %s: %w", s.versionTable, err)
	}
	return v, nil
}

// writeVersion records v: in versionTable when the schema has one, else
// in state_meta if it exists, else in the fallback table.
func (s schema) writeVersion(ctx context.Context, tx *sql.Tx, v int) error {
	if s.versionTable != "" {
		return s.writeTableVersion(ctx, tx, v)
	}
	table := "state_meta"
	ok, err := tableExists(ctx, tx, table)
	if err != nil {
		return err
	}
	if !ok {
		table = s.fallback
		if _, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS `+table+` (key TEXT PRIMARY KEY, value TEXT)`); err != nil {
			return fmt.Errorf("create %s: %w", table, err)
		}
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO `+table+` (key, value) VALUES (?, ?)
ON CONFLICT (key) DO UPDATE SET value = excluded.value`, s.versionKey, fmt.Sprint(v)); err != nil {
		return fmt.Errorf("write %s.%s: %w", table, s.versionKey, err)
	}
	return nil
}

// writeTableVersion sets the one row of versionTable to v, creating the
// table or the row when missing.
func (s schema) writeTableVersion(ctx context.Context, tx *sql.Tx, v int) error {
	if _, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS `+s.versionTable+` (version INTEGER NOT NULL)`); err != nil {
		return fmt.Errorf("create %s: %w", s.versionTable, err)
	}
	res, err := tx.ExecContext(ctx, `UPDATE `+s.versionTable+` SET version = ?`, v)
	if err != nil {
		return fmt.Errorf("set %s: %w", s.versionTable, err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return fmt.Errorf("set %s: %w", s.versionTable, err)
	} else if n > 0 {
		return nil
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO `+s.versionTable+` (version) VALUES (?)`, v); err != nil {
		return fmt.Errorf("set %s: %w", s.versionTable, err)
	}
	return nil
}

// tableExists reports whether the database has a table of that name.
func tableExists(ctx context.Context, q querier, name string) (bool, error) {
	var n int
	if err := q.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = ?`, name).Scan(&n); err != nil {
		return false, fmt.Errorf("look for table %s: %w", name, err)
	}
	return n > 0, nil
}
