package storage

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/hermes-go/hermes/internal/pgdb"
	"github.com/hermes-go/hermes/internal/sqlitedb"
)

// Compare verifies that the PostgreSQL database dst holds what state.db
// (src) holds: per table, the row count and a checksum of the copied
// columns, computed the same way on both sides (each value in the form
// the destination column holds, after Migrate's text sanitising). A
// table whose sides differ makes the error ErrMismatch, naming it.
// Tables named in skip are left out, as Migrate's Options.Skip leaves
// them.
func Compare(ctx context.Context, src *sqlitedb.DB, dst *pgdb.DB, skip ...string) (Report, error) {
	p, err := makePlan(ctx, src.Reader(), dst.Reader(), skip)
	if err != nil {
		return Report{}, err
	}
	r := Report{Tables: make([]Table, len(p.tables))}
	for i, t := range p.tables {
		r.Tables[i] = Table{Name: t.name, Dropped: t.dropped}
	}
	if err := compare(ctx, src.Reader(), dst.Reader(), p, r.Tables); err != nil {
		return r, err
	}
	r.Tables = append(r.Tables, p.skipped...)
	return r, mismatch(r)
}

// compare fills in each table's sums, out[i] being p.tables[i].
func compare(ctx context.Context, src, dst *sql.DB, p *plan, out []Table) error {
	for i, t := range p.tables {
		var err error
		if out[i].Source, err = sourceSum(ctx, src, t); err != nil {
			return err
		}
		if out[i].Dest, err = destSum(ctx, dst, t); err != nil {
			return err
		}
	}
	return nil
}

// sourceSum is the checksum of a state.db table as its copy should be.
func sourceSum(ctx context.Context, db *sql.DB, t *tablePlan) (Sum, error) {
	cols := make([]string, len(t.srcCols))
	for i, c := range t.srcCols {
		cols[i] = quote(c)
	}
	var sum checksum
	err := scan(ctx, db, "SELECT "+strings.Join(cols, ", ")+" FROM "+quote(t.name), len(cols), func(vals []any) error {
		r, err := t.convertRow(vals)
		if err != nil {
			return err
		}
		sum.add(r.vals)
		return nil
	})
	if err != nil {
		return Sum{}, fmt.Errorf("storage: checksum of state.db table %s: %w", t.name, err)
	}
	return sum.result(), nil
}

// destSum is the checksum of a PostgreSQL table's copied columns.
func destSum(ctx context.Context, db *sql.DB, t *tablePlan) (Sum, error) {
	cols := make([]string, len(t.cols))
	for i, c := range t.cols {
		cols[i] = quote(c.name)
	}
	var sum checksum
	row := make([]any, len(t.cols))
	err := scan(ctx, db, "SELECT "+strings.Join(cols, ", ")+" FROM "+quote(t.name), len(cols), func(vals []any) error {
		for i, c := range t.cols {
			v, _, err := convert(vals[i], c.typ, false)
			if err != nil {
				return fmt.Errorf("column %s: %w", c.name, err)
			}
			row[i] = v
		}
		sum.add(row)
		return nil
	})
	if err != nil {
		return Sum{}, fmt.Errorf("storage: checksum of postgres table %s: %w", t.name, err)
	}
	return sum.result(), nil
}

// scan runs q and calls f with each row's n values.
func scan(ctx context.Context, db *sql.DB, q string, n int, f func([]any) error) error {
	rows, err := db.QueryContext(ctx, q)
	if err != nil {
		return err
	}
	defer rows.Close()
	vals := make([]any, n)
	ptrs := make([]any, n)
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return err
		}
		if err := f(vals); err != nil {
			return err
		}
	}
	return rows.Err()
}
