package sqlexec

import (
	"context"
	"database/sql"
	"errors"
	"strings"
)

// Run runs q. A fixed query (q.Query set) gets args bound to its
// placeholders in order; statement is ignored. A read_only tool without a
// query runs statement, the model's own SQL, which must be one reading
// statement (see Check) and gets no args. Read-only runs happen in a
// read-only transaction that is always rolled back (PostgreSQL, MySQL) or
// on the read-only handle (SQLite); other fixed queries run in a
// transaction committed on success. Statements that answer with rows give
// at most max_rows of them, with Truncated set when there were more;
// others give RowsAffected.
//
// Errors are *tool.Error (invalid_arguments when the database refuses the
// statement, upstream_unavailable when it cannot be reached) or, when ctx
// ends, an error wrapping ctx.Err().
func (db *DB) Run(ctx context.Context, q Query, args []any, statement string) (*Result, error) {
	maxRows := q.MaxRows
	if maxRows <= 0 {
		maxRows = DefaultMaxRows
	}
	stmt := strings.TrimSpace(q.Query)
	if stmt == "" {
		if !q.ReadOnly {
			return nil, refuse(errors.New("this tool declares no query"))
		}
		stmt, args = statement, nil
	}
	c := code(stmt, db.driver)
	if q.ReadOnly {
		if err := checkRead(c, db.driver); err != nil {
			return nil, refuse(err)
		}
	} else if moreThanOne(c) {
		return nil, refuse(errors.New("the query holds more than one statement"))
	}
	stmt = trimStatement(stmt, c)
	if q.ReadOnly {
		return db.runReadOnly(ctx, stmt, args, maxRows)
	}
	return db.runFixed(ctx, stmt, c, args, maxRows)
}

// runReadOnly runs a reading statement where it cannot write.
func (db *DB) runReadOnly(ctx context.Context, stmt string, args []any, maxRows int) (*Result, error) {
	if db.ro != nil {
		return db.query(ctx, db.ro, stmt, args, maxRows, false)
	}
	tx, err := db.rw.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, db.classify(ctx, "begin a read-only transaction", err)
	}
	// Nothing a read-only transaction did is worth keeping, and rolling
	// back also ends it when the statement failed half-way.
	defer tx.Rollback()
	return db.query(ctx, tx, stmt, args, maxRows, true)
}

// runFixed runs a declared query in a transaction committed on success.
func (db *DB) runFixed(ctx context.Context, stmt, code string, args []any, maxRows int) (*Result, error) {
	tx, err := db.rw.BeginTx(ctx, nil)
	if err != nil {
		return nil, db.classify(ctx, "begin a transaction", err)
	}
	defer tx.Rollback()
	var res *Result
	if returnsRows(code) {
		res, err = db.query(ctx, tx, stmt, args, maxRows, false)
	} else {
		res, err = db.exec(ctx, tx, stmt, args)
	}
	if err != nil {
		return nil, err
	}
	if err := tx.Commit(); err != nil {
		return nil, db.classify(ctx, "commit", err)
	}
	return res, nil
}

// queryer is what runs a statement: a pool or a transaction.
type queryer interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// query runs a statement that answers with rows and collects at most
// maxRows of them. With abandon, a statement with more rows is cancelled
// rather than read to its end: closing the rows of a PostgreSQL or MySQL
// query otherwise streams every remaining row from the server, which for
// a SELECT without a LIMIT can be millions. It costs the connection, so
// it is only for read-only transactions, which are rolled back anyway; a
// write's transaction must live on to commit. SQLite rows close cheaply.
func (db *DB) query(ctx context.Context, q queryer, stmt string, args []any, maxRows int, abandon bool) (*Result, error) {
	qctx, cancel := context.WithCancel(ctx)
	defer cancel()
	rows, err := q.QueryContext(qctx, stmt, args...)
	if err != nil {
		return nil, db.classify(ctx, "query", err)
	}
	res, err := collect(rows, maxRows)
	if err == nil && res.Truncated && abandon {
		cancel()
	}
	closeErr := rows.Close()
	if err != nil {
		return nil, db.classify(ctx, "query", err)
	}
	if closeErr != nil && !(abandon && res.Truncated) {
		return nil, db.classify(ctx, "query", closeErr)
	}
	return res, nil
}

// exec runs a statement that answers with a count of changed rows.
func (db *DB) exec(ctx context.Context, q queryer, stmt string, args []any) (*Result, error) {
	r, err := q.ExecContext(ctx, stmt, args...)
	if err != nil {
		return nil, db.classify(ctx, "exec", err)
	}
	n, err := r.RowsAffected()
	if err != nil {
		return &Result{}, nil
	}
	return &Result{RowsAffected: &n}, nil
}
