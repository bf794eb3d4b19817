package storage

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
)

// plan is what Migrate and Compare do: the tables to copy, parents
// before children, and the source tables left out.
type plan struct {
	tables  []*tablePlan
	skipped []Table
}

// tablePlan is how one table is copied.
type tablePlan struct {
	name string
	// srcCols are the source columns read, in the order rows hold them.
	srcCols []string
	// rowid is set when batches follow SQLite's rowid; otherwise they
	// follow key, the source's primary key columns.
	rowid bool
	key   []string
	// cols are the destination columns written.
	cols []colPlan
	// selfRefs index cols that reference the table itself: they are
	// written NULL first and set once every row is in (second pass), so
	// a row may come before the row it points to.
	selfRefs []int
	// dstKey indexes cols holding the destination's primary key, which
	// the second pass updates rows by.
	dstKey []int
	// dropped are source columns no destination column takes.
	dropped []string
	// overriding is set when a column is GENERATED ALWAYS AS IDENTITY,
	// whose copied values need OVERRIDING SYSTEM VALUE.
	overriding bool
	// parents are the other tables this one references.
	parents []string
}

// colPlan is one destination column: its name, type, and how its value
// is made from a source row.
type colPlan struct {
	name    string
	typ     string
	notNull bool
	from    func(src []any) any
}

// srcColumn is a column of a SQLite table.
type srcColumn struct {
	name string
	pk   int // position in the primary key, from 1; 0 when not in it
}

// dstColumn is a column of a PostgreSQL table.
type dstColumn struct {
	name, typ          string
	notNull, generated bool
	identityAlways     bool
	hasDefault         bool
}

// internalTable reports whether a SQLite table is bookkeeping of the
// file itself (schema versions, the full-text index's position), which
// PostgreSQL keeps in its own schema_versions or does not need.
func internalTable(name string) bool {
	return name == "state_meta" || name == "schema_version" || strings.HasSuffix(name, "_meta")
}

// makePlan reads both schemas and decides how every table of src is
// copied, but those named in skip. A non-empty source table with no
// destination table is an error naming it, so nothing is silently left
// behind; so is a table in skip that src does not have.
func makePlan(ctx context.Context, src, dst *sql.DB, skip []string) (*plan, error) {
	names, withoutRowid, err := sourceTables(ctx, src)
	if err != nil {
		return nil, err
	}
	for _, name := range skip {
		if !slices.Contains(names, name) {
			return nil, fmt.Errorf("storage: skip %q: state.db has no such table; it has %s", name, strings.Join(names, ", "))
		}
	}
	dstTables, err := destTables(ctx, dst)
	if err != nil {
		return nil, err
	}
	p := &plan{}
	var missing []string
	byName := map[string]*tablePlan{}
	for _, name := range names {
		if slices.Contains(skip, name) {
			p.skipped = append(p.skipped, Table{Name: name, Skipped: "left out as asked"})
			continue
		}
		if !dstTables[name] {
			n, err := countRows(ctx, src, name)
			if err != nil {
				return nil, err
			}
			if n > 0 {
				missing = append(missing, fmt.Sprintf("%s (%d rows)", name, n))
				continue
			}
			p.skipped = append(p.skipped, Table{Name: name, Skipped: "empty, and PostgreSQL has no such table"})
			continue
		}
		t, err := planTable(ctx, src, dst, name, !withoutRowid[name])
		if err != nil {
			return nil, err
		}
		byName[name] = t
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("storage: state.db tables %s hold rows but PostgreSQL has no table for them: "+
			"this hermes has no PostgreSQL schema for their store yet; nothing was copied", strings.Join(missing, ", "))
	}
	p.tables, err = parentsFirst(byName)
	return p, err
}

// sourceTables lists the tables of the SQLite file that hold data:
// neither SQLite's own, nor full-text index tables (virtual and shadow),
// nor internal ones.
func sourceTables(ctx context.Context, db *sql.DB) (names []string, withoutRowid map[string]bool, err error) {
	rows, err := db.QueryContext(ctx, `SELECT name, wr FROM pragma_table_list
WHERE schema = 'main' AND type = 'table' AND name NOT LIKE 'sqlite\_%' ESCAPE '\' ORDER BY name`)
	if err != nil {
		return nil, nil, fmt.Errorf("storage: list state.db tables: %w", err)
	}
	defer rows.Close()
	withoutRowid = map[string]bool{}
	for rows.Next() {
		var name string
		var wr bool
		if err := rows.Scan(&name, &wr); err != nil {
			return nil, nil, fmt.Errorf("storage: list state.db tables: %w", err)
		}
		if internalTable(name) {
			continue
		}
		names = append(names, name)
		withoutRowid[name] = wr
	}
	return names, withoutRowid, rows.Err()
}

// destTables is the set of tables of the PostgreSQL schema.
func destTables(ctx context.Context, db *sql.DB) (map[string]bool, error) {
	rows, err := db.QueryContext(ctx, `SELECT table_name FROM information_schema.tables
WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'`)
	if err != nil {
		return nil, fmt.Errorf("storage: list postgres tables: %w", err)
	}
	defer rows.Close()
	out := map[string]bool{}
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			return nil, fmt.Errorf("storage: list postgres tables: %w", err)
		}
		out[name] = true
	}
	return out, rows.Err()
}

// foreignKey is a column of a SQLite table that references a table.
type foreignKey struct{ table, from string }

// sourceColumns are a SQLite table's columns in order, and its foreign
// keys.
func sourceColumns(ctx context.Context, db *sql.DB, table string) ([]srcColumn, []foreignKey, error) {
	rows, err := db.QueryContext(ctx, `SELECT name, pk FROM pragma_table_info(?) ORDER BY cid`, table)
	if err != nil {
		return nil, nil, fmt.Errorf("storage: columns of state.db table %s: %w", table, err)
	}
	var cols []srcColumn
	for rows.Next() {
		var c srcColumn
		if err := rows.Scan(&c.name, &c.pk); err != nil {
			rows.Close()
			return nil, nil, fmt.Errorf("storage: columns of state.db table %s: %w", table, err)
		}
		cols = append(cols, c)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, nil, fmt.Errorf("storage: columns of state.db table %s: %w", table, err)
	}
	rows, err = db.QueryContext(ctx, `SELECT "table", "from" FROM pragma_foreign_key_list(?)`, table)
	if err != nil {
		return nil, nil, fmt.Errorf("storage: foreign keys of state.db table %s: %w", table, err)
	}
	defer rows.Close()
	var refs []foreignKey
	for rows.Next() {
		var fk foreignKey
		if err := rows.Scan(&fk.table, &fk.from); err != nil {
			return nil, nil, fmt.Errorf("storage: foreign keys of state.db table %s: %w", table, err)
		}
		refs = append(refs, fk)
	}
	return cols, refs, rows.Err()
}

// destColumns are a PostgreSQL table's columns in order.
func destColumns(ctx context.Context, db *sql.DB, table string) ([]dstColumn, error) {
	rows, err := db.QueryContext(ctx, `SELECT column_name, data_type, is_nullable = 'NO', is_generated = 'ALWAYS',
	coalesce(identity_generation, '') = 'ALWAYS', column_default IS NOT NULL OR is_identity = 'YES'
FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = ? ORDER BY ordinal_position`, table)
	if err != nil {
		return nil, fmt.Errorf("storage: columns of postgres table %s: %w", table, err)
	}
	defer rows.Close()
	var cols []dstColumn
	for rows.Next() {
		var c dstColumn
		if err := rows.Scan(&c.name, &c.typ, &c.notNull, &c.generated, &c.identityAlways, &c.hasDefault); err != nil {
			return nil, fmt.Errorf("storage: columns of postgres table %s: %w", table, err)
		}
		cols = append(cols, c)
	}
	return cols, rows.Err()
}

// parentsFirst orders tables so every table comes after the tables it
// references, by name among equals; a cycle between tables is an error.
func parentsFirst(byName map[string]*tablePlan) ([]*tablePlan, error) {
	var out []*tablePlan
	placed := map[string]bool{}
	for len(out) < len(byName) {
		var ready []string
		for name, t := range byName {
			if placed[name] {
				continue
			}
			ok := true
			for _, p := range t.parents {
				if _, known := byName[p]; known && !placed[p] {
					ok = false
				}
			}
			if ok {
				ready = append(ready, name)
			}
		}
		if len(ready) == 0 {
			return nil, fmt.Errorf("storage: tables reference each other in a cycle; cannot order them")
		}
		slices.Sort(ready)
		for _, name := range ready {
			placed[name] = true
			out = append(out, byName[name])
		}
	}
	return out, nil
}

// countRows is how many rows a table holds.
func countRows(ctx context.Context, db *sql.DB, table string) (int64, error) {
	var n int64
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM `+quote(table)).Scan(&n); err != nil {
		return 0, fmt.Errorf("storage: count rows of %s: %w", table, err)
	}
	return n, nil
}

// quote is name as a quoted SQL identifier.
func quote(name string) string { return `"` + strings.ReplaceAll(name, `"`, `""`) + `"` }
