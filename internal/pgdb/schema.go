package pgdb

import (
	"context"
	"database/sql"
	"fmt"
)

// migrationLock is the key of the advisory lock every migration takes
// first, so replicas opening a new database at once apply each migration
// once, one after the other ("hermes" in ASCII).
const migrationLock = 0x6865726d6573

// schema is the versioned tables one store keeps.
type schema struct {
	// name names the schema in errors and in schema_versions ("cron").
	name string
	// migrations[i] brings the schema from version i to i+1. Entries are
	// append-only: a released migration is never edited, only followed.
	migrations []string
}

// schemas is every store's schema, in the order Open migrates them.
func schemas() []schema {
	return []schema{sessionsSchema(), factsSchema(), cronSchema(), gatewaySchema(), teamSchema(), kbSchema(), auditSchema(), replicasSchema(), apiSchema()}
}

// Versions is each schema's newest version, by name: what a database
// brought up to date by this program holds.
func Versions() map[string]int {
	v := map[string]int{}
	for _, s := range schemas() {
		v[s.name] = len(s.migrations)
	}
	return v
}

// migrate brings every schema up to date.
func migrate(ctx context.Context, db *sql.DB) error {
	for _, s := range schemas() {
		for i, m := range s.migrations {
			if err := apply(ctx, db, s.name, i+1, m); err != nil {
				return fmt.Errorf("migrate %s schema to version %d: %w", s.name, i+1, err)
			}
		}
	}
	return nil
}

// apply runs migration m as version of schema name unless the database
// has it, in one transaction with the version it records, so a crash
// leaves each schema at a version, never between two.
func apply(ctx context.Context, db *sql.DB, name string, version int, m string) error {
	var have bool
	err := db.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM schema_versions WHERE name = $1 AND version = $2)`,
		name, version).Scan(&have)
	if err == nil && have {
		return nil // up to date, without taking the lock
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock($1)`, int64(migrationLock)); err != nil {
		return fmt.Errorf("take the migration lock: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_versions (
	name       text NOT NULL,
	version    integer NOT NULL,
	applied_at timestamptz NOT NULL DEFAULT now(),
	PRIMARY KEY (name, version)
)`); err != nil {
		return fmt.Errorf("create the versions table: %w", err)
	}
	if err := tx.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM schema_versions WHERE name = $1 AND version = $2)`,
		name, version).Scan(&have); err != nil {
		return fmt.Errorf("read the schema version: %w", err)
	}
	if have {
		return nil
	}
	if _, err := tx.ExecContext(ctx, m); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO schema_versions (name, version) VALUES ($1, $2)`, name, version); err != nil {
		return fmt.Errorf("record the version: %w", err)
	}
	return tx.Commit()
}
