package declared

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/hermes-go/hermes/internal/tool"
	"github.com/hermes-go/hermes/internal/tools/declared/sqlexec"
)

// sqlPlan is a compiled sql: block; conn is bound by the loader, which
// knows every file's connections.
type sqlPlan struct {
	q      sqlexec.Query
	args   []*tmpl
	sqlArg string
	conn   *sqlConn
}

// sqlConn is a named connection, opened on first use and kept until the
// loader closes it (on Close, or when a reload changes or removes its
// definition).
type sqlConn struct {
	name string
	def  sqlexec.Connection
	dir  string
	env  func(string) (string, bool)

	mu     sync.Mutex
	db     *sqlexec.DB
	closed bool
}

// key identifies a connection's definition; a reload that changes it
// opens a new connection.
func (c *sqlConn) key() string {
	b, _ := json.Marshal(c.def)
	return c.name + "\x00" + c.dir + "\x00" + string(b)
}

// get returns the open connection, opening it the first time.
func (c *sqlConn) get(ctx context.Context) (*sqlexec.DB, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil, &tool.Error{Code: tool.CodeUpstreamUnavailable, Retryable: true,
			Message: fmt.Sprintf("connection %s was closed by a reload of the tools files; try again", c.name)}
	}
	if c.db == nil {
		db, err := sqlexec.Open(ctx, c.def, c.dir, c.env)
		if err != nil {
			return nil, tool.Errorf(tool.CodeInternal, "connection %s: %v", c.name, err)
		}
		c.db = db
	}
	return c.db, nil
}

// Close closes the connection if it was opened.
func (c *sqlConn) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.closed = true
	if c.db == nil {
		return nil
	}
	err := c.db.Close()
	c.db = nil
	return err
}

// checkSQL asks sqlexec whether a query is well-formed for the driver of
// its connection, at load time.
func checkSQL(q sqlexec.Query, driver string) error {
	return sqlexec.Check(q, driver)
}

// checkConnection asks sqlexec whether a connection's declaration is
// usable (a known driver, a DSN).
func checkConnection(c sqlexec.Connection) error {
	return c.Check()
}

// sqlRun is a rendered statement with its bound arguments.
type sqlRun struct {
	conn      string
	query     string
	args      []any
	statement string
}

// render binds the call's arguments. An element of sql.args that is
// exactly {{.name}} binds the argument with its JSON type (NULL when
// absent); another template binds its rendered text, NULL when that is
// empty. A read_only tool's statement comes from its sql_arg argument.
func (p *sqlPlan) render(args map[string]any, ce *callEnv) (*sqlRun, error) {
	r := &sqlRun{conn: p.q.Connection, query: p.q.Query}
	for _, t := range p.args {
		switch {
		case t.whole != "":
			r.args = append(r.args, sqlValue(args[t.whole]))
		case t.literal():
			r.args = append(r.args, t.src)
		default:
			s, err := t.render(args, ce)
			if err != nil {
				return nil, err
			}
			if s == "" {
				r.args = append(r.args, nil)
			} else {
				r.args = append(r.args, s)
			}
		}
	}
	if p.q.ReadOnly {
		r.statement, _ = args[p.sqlArg].(string)
		if strings.TrimSpace(r.query) == "" && strings.TrimSpace(r.statement) == "" {
			return nil, tool.Errorf(tool.CodeInvalidArguments, "argument %q is empty; write one SELECT statement", p.sqlArg)
		}
	}
	return r, nil
}

// sqlValue converts a JSON argument to a value database drivers bind:
// integers as int64, other numbers as float64, lists and objects as
// their JSON text.
func sqlValue(v any) any {
	switch x := v.(type) {
	case json.Number:
		if n, err := x.Int64(); err == nil {
			return n
		}
		f, _ := x.Float64()
		return f
	case []any, map[string]any:
		b, _ := json.Marshal(x)
		return string(b)
	}
	return v
}

// String renders the statement and its arguments as a trace shows them.
func (r *sqlRun) String() string {
	var b strings.Builder
	stmt := r.query
	if strings.TrimSpace(stmt) == "" {
		stmt = r.statement
	}
	fmt.Fprintf(&b, "connection %s\n%s", r.conn, strings.TrimSpace(stmt))
	if len(r.args) > 0 {
		parts := make([]string, len(r.args))
		for i, a := range r.args {
			j, _ := json.Marshal(a)
			parts[i] = string(j)
		}
		fmt.Fprintf(&b, "\nargs: [%s]", strings.Join(parts, ", "))
	}
	return b.String()
}

// run executes the statement and returns its result as plain JSON data.
func (p *sqlPlan) run(ctx context.Context, r *sqlRun) (any, string, error) {
	db, err := p.conn.get(ctx)
	if err != nil {
		return nil, "", err
	}
	res, err := db.Run(ctx, p.q, r.args, r.statement)
	if err != nil {
		if ctx.Err() != nil {
			return nil, "", ctx.Err()
		}
		return nil, "", err
	}
	raw, err := json.Marshal(res)
	if err != nil {
		return nil, "", fmt.Errorf("encode the result: %w", err)
	}
	var out any
	if err := json.Unmarshal(raw, &out); err != nil {
		return nil, "", fmt.Errorf("decode the result: %w", err)
	}
	status := fmt.Sprintf("%d rows", res.RowCount)
	if res.RowsAffected != nil {
		status = fmt.Sprintf("%d rows affected", *res.RowsAffected)
	}
	return out, status, nil
}
