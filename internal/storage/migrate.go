package storage

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/hermes-go/hermes/internal/pgdb"
	"github.com/hermes-go/hermes/internal/sqlitedb"
)

// Migrate copies every table of state.db (src) into the PostgreSQL
// database dst, then verifies the copy (Compare).
//
// Each batch of rows is one transaction that also records, in the table
// storage_migration, the key of the last row it copied: a migration
// stopped half-way (killed, cancelled, the network gone) and run again
// resumes after the last committed batch, and never copies a row twice.
// A table the database already holds rows of, that no migration put
// there, is refused: Migrate fills a new database, it does not merge.
// A finished table is not copied again, so a second run only verifies.
//
// Text PostgreSQL refuses (NUL bytes, invalid UTF-8) is stored with
// U+FFFD in its place, as the PostgreSQL stores store it, and counted in
// the report. At the end every identity and serial column's sequence is
// set past the copied ids, so rows added later never collide with them.
func Migrate(ctx context.Context, src *sqlitedb.DB, dst *pgdb.DB, opts Options) (Report, error) {
	batch := opts.Batch
	if batch <= 0 {
		batch = DefaultBatch
	}
	progress := opts.Progress
	if progress == nil {
		progress = func(Progress) {}
	}
	var r Report
	if err := createProgressTable(ctx, dst); err != nil {
		return r, err
	}
	p, err := makePlan(ctx, src.Reader(), dst.Reader(), opts.Skip)
	if err != nil {
		return r, err
	}
	for _, t := range p.tables {
		tr, err := copyTable(ctx, src.Reader(), dst, t, batch, progress)
		r.Tables = append(r.Tables, tr)
		if err != nil {
			return r, err
		}
	}
	for _, t := range p.tables {
		if err := setSequences(ctx, dst.Writer(), t); err != nil {
			return r, err
		}
	}
	if err := compare(ctx, src.Reader(), dst.Reader(), p, r.Tables); err != nil {
		return r, err
	}
	r.Tables = append(r.Tables, p.skipped...)
	return r, mismatch(r)
}

// progressLock is the key of the advisory lock under which Migrate
// creates storage_migration: two migrations starting at once would
// otherwise both create it, and one fail ("hermstor" in ASCII).
const progressLock = 0x6865726d73746f72

// createProgressTable creates storage_migration unless it exists.
func createProgressTable(ctx context.Context, dst *pgdb.DB) error {
	err := dst.WriteTx(ctx, "create storage_migration", func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(?)`, int64(progressLock)); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS storage_migration (
	tbl       text PRIMARY KEY,
	last_key  text,
	rows      bigint NOT NULL DEFAULT 0,
	sanitized bigint NOT NULL DEFAULT 0,
	done      boolean NOT NULL DEFAULT false
)`)
		return err
	})
	if err != nil {
		return fmt.Errorf("storage: %w", err)
	}
	return nil
}

// copyState is a table's row of storage_migration.
type copyState struct {
	lastKey   sql.NullString
	rows      int64
	sanitized int64
	done      bool
}

// copyTable copies what is left of table t, batch rows per transaction.
func copyTable(ctx context.Context, src *sql.DB, dst *pgdb.DB, t *tablePlan, batch int, progress func(Progress)) (Table, error) {
	out := Table{Name: t.name, Dropped: t.dropped}
	total, err := countRows(ctx, src, t.name)
	if err != nil {
		return out, err
	}
	st, err := startTable(ctx, dst.Writer(), t.name)
	if err != nil {
		return out, err
	}
	out.Sanitized = st.sanitized
	if st.done {
		progress(Progress{Table: t.name, Copied: st.rows, Total: total, Done: true})
		return out, nil
	}
	after, err := decodeKey(st.lastKey.String)
	if err != nil {
		return out, fmt.Errorf("storage: storage_migration.last_key of %s: %w", t.name, err)
	}
	stmt := newInserter(t)
	for {
		rows, last, err := readBatch(ctx, src, t, after, batch)
		if err != nil {
			return out, err
		}
		if len(rows) == 0 {
			break
		}
		sanitized := int64(0)
		for _, r := range rows {
			if r.sanitized {
				sanitized++
			}
			for _, i := range t.selfRefs {
				r.vals[i] = nil // set by the second pass
			}
		}
		from, to := st.lastKey.String, encodeKey(last)
		err = dst.WriteTx(ctx, "copy a batch of "+t.name, func(tx *sql.Tx) error {
			var have sql.NullString
			if err := tx.QueryRowContext(ctx, `SELECT last_key FROM storage_migration WHERE tbl = ? FOR UPDATE`, t.name).Scan(&have); err != nil {
				return err
			}
			if have.String != from {
				return fmt.Errorf("another migration is copying %s at the same time; run one at a time", t.name)
			}
			if err := stmt.insert(ctx, tx, rows); err != nil {
				return err
			}
			_, err := tx.ExecContext(ctx, `UPDATE storage_migration SET last_key = ?, rows = rows + ?, sanitized = sanitized + ? WHERE tbl = ?`,
				to, len(rows), sanitized, t.name)
			return err
		})
		if err != nil {
			return out, fmt.Errorf("storage: copy %s after row %d: %w", t.name, st.rows, err)
		}
		st.lastKey = sql.NullString{String: to, Valid: true}
		st.rows += int64(len(rows))
		out.Copied += int64(len(rows))
		out.Sanitized += sanitized
		after = last
		progress(Progress{Table: t.name, Copied: st.rows, Total: total})
		if len(rows) < batch {
			break
		}
	}
	if len(t.selfRefs) > 0 {
		if err := setSelfRefs(ctx, src, dst, t, batch); err != nil {
			return out, err
		}
	}
	if _, err := dst.Writer().ExecContext(ctx, `UPDATE storage_migration SET done = true WHERE tbl = ?`, t.name); err != nil {
		return out, fmt.Errorf("storage: finish %s: %w", t.name, err)
	}
	progress(Progress{Table: t.name, Copied: st.rows, Total: total, Done: true})
	return out, nil
}

// startTable is the table's progress, recording a new row for a table
// not begun, after making sure it is empty.
func startTable(ctx context.Context, db *sql.DB, table string) (copyState, error) {
	var st copyState
	err := db.QueryRowContext(ctx, `SELECT last_key, rows, sanitized, done FROM storage_migration WHERE tbl = ?`, table).
		Scan(&st.lastKey, &st.rows, &st.sanitized, &st.done)
	if err == nil {
		return st, nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return st, fmt.Errorf("storage: progress of %s: %w", table, err)
	}
	var n int64
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM (SELECT 1 FROM `+quote(table)+` LIMIT 1) x`).Scan(&n); err != nil {
		return st, fmt.Errorf("storage: look into postgres table %s: %w", table, err)
	}
	if n > 0 {
		return st, fmt.Errorf("storage: postgres table %s already holds rows that no migration copied; "+
			"migrate into a new, empty database", table)
	}
	if _, err := db.ExecContext(ctx, `INSERT INTO storage_migration (tbl) VALUES (?) ON CONFLICT (tbl) DO NOTHING`, table); err != nil {
		return st, fmt.Errorf("storage: record progress of %s: %w", table, err)
	}
	return st, nil
}

// setSelfRefs is the second pass of a table that references itself: it
// sets the columns the first pass left NULL, now that every row they
// may point to is in. It only writes values, so running it again after
// a stop does no harm.
func setSelfRefs(ctx context.Context, src *sql.DB, dst *pgdb.DB, t *tablePlan, batch int) error {
	var after []any
	for {
		rows, last, err := readBatch(ctx, src, t, after, batch)
		if err != nil || len(rows) == 0 {
			return err
		}
		err = dst.WriteTx(ctx, "link rows of "+t.name, func(tx *sql.Tx) error {
			for _, r := range rows {
				for _, i := range t.selfRefs {
					if r.vals[i] == nil {
						continue
					}
					q, args := "UPDATE "+quote(t.name)+" SET "+quote(t.cols[i].name)+" = ? WHERE ", []any{r.vals[i]}
					for j, k := range t.dstKey {
						if j > 0 {
							q += " AND "
						}
						q += quote(t.cols[k].name) + " = ?"
						args = append(args, r.vals[k])
					}
					if _, err := tx.ExecContext(ctx, q, args...); err != nil {
						return err
					}
				}
			}
			return nil
		})
		if err != nil {
			return fmt.Errorf("storage: set %s's references to itself: %w", t.name, err)
		}
		after = last
	}
}

// setSequences moves every sequence behind a column of t past the
// largest copied value.
func setSequences(ctx context.Context, db *sql.DB, t *tablePlan) error {
	for _, c := range t.cols {
		var seq sql.NullString
		if err := db.QueryRowContext(ctx, `SELECT pg_get_serial_sequence(?, ?)`, quote(t.name), c.name).Scan(&seq); err != nil {
			return fmt.Errorf("storage: sequence of %s.%s: %w", t.name, c.name, err)
		}
		if !seq.Valid {
			continue
		}
		if _, err := db.ExecContext(ctx, `SELECT setval(?::regclass, m) FROM (SELECT max(`+quote(c.name)+`) AS m FROM `+
			quote(t.name)+`) x WHERE m IS NOT NULL`, seq.String); err != nil {
			return fmt.Errorf("storage: set the sequence of %s.%s past the copied ids: %w", t.name, c.name, err)
		}
	}
	return nil
}
