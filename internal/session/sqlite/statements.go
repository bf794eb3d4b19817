package sqlite

import (
	"context"
	"database/sql"
	"fmt"
)

// query returns the writer's statement for q, prepared the first time it
// is asked for. Every turn takes and releases its session's lease and
// updates the session's row; parsing those statements again each time
// cost as much as running them. q must be one of the package's constant
// statements, so that the cache stays as small as the package's text.
//
// It must be called before the write transaction that runs the
// statement: preparing needs the one writer connection, which a
// transaction holds (see sqlitedb.DB).
func (st *statements) query(ctx context.Context, q string) (*sql.Stmt, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if stmt := st.byQuery[q]; stmt != nil {
		return stmt, nil
	}
	stmt, err := st.db.PrepareContext(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("prepare %q: %w", q, err)
	}
	st.byQuery[q] = stmt
	return stmt, nil
}

// queries returns the statements for qs, in order (see query).
func (st *statements) queries(ctx context.Context, qs ...string) ([]*sql.Stmt, error) {
	out := make([]*sql.Stmt, len(qs))
	for i, q := range qs {
		stmt, err := st.query(ctx, q)
		if err != nil {
			return nil, err
		}
		out[i] = stmt
	}
	return out, nil
}
