package pgdb

import (
	"context"
	"database/sql/driver"
	"strconv"
	"strings"
	"sync"
)

// Stores write ? placeholders (sqldb's package doc); PostgreSQL wants
// $1, $2, .... The connector below hands lib/pq every statement with its
// placeholders renumbered, so no store keeps a second copy of its SQL.

// connector makes lib/pq connections that rebind statements.
type connector struct {
	inner driver.Connector
	binds *rebinder
}

func (c *connector) Connect(ctx context.Context) (driver.Conn, error) {
	cn, err := c.inner.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &conn{inner: cn.(pqConn), binds: c.binds}, nil
}

func (c *connector) Driver() driver.Driver { return c.inner.Driver() }

// pqConn is what lib/pq's connection implements and conn passes on.
type pqConn interface {
	driver.Conn
	driver.ConnBeginTx
	driver.ConnPrepareContext
	driver.QueryerContext
	driver.ExecerContext
	driver.Pinger
	driver.SessionResetter
	driver.Validator
	driver.NamedValueChecker
}

// conn is a lib/pq connection that rebinds every statement first.
type conn struct {
	inner pqConn
	binds *rebinder
}

func (c *conn) Prepare(q string) (driver.Stmt, error) { return c.inner.Prepare(c.binds.rebind(q)) }
func (c *conn) PrepareContext(ctx context.Context, q string) (driver.Stmt, error) {
	return c.inner.PrepareContext(ctx, c.binds.rebind(q))
}
func (c *conn) QueryContext(ctx context.Context, q string, args []driver.NamedValue) (driver.Rows, error) {
	return c.inner.QueryContext(ctx, c.binds.rebind(q), args)
}
func (c *conn) ExecContext(ctx context.Context, q string, args []driver.NamedValue) (driver.Result, error) {
	return c.inner.ExecContext(ctx, c.binds.rebind(q), args)
}
func (c *conn) Close() error                   { return c.inner.Close() }
func (c *conn) Begin() (driver.Tx, error)      { return c.inner.Begin() } //nolint:staticcheck // driver.Conn requires it
func (c *conn) Ping(ctx context.Context) error { return c.inner.Ping(ctx) }
func (c *conn) ResetSession(ctx context.Context) error {
	return c.inner.ResetSession(ctx)
}
func (c *conn) IsValid() bool                               { return c.inner.IsValid() }
func (c *conn) CheckNamedValue(nv *driver.NamedValue) error { return c.inner.CheckNamedValue(nv) }
func (c *conn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	return c.inner.BeginTx(ctx, opts)
}

// rebinder rewrites statements, remembering each: a process runs the
// same few hundred statements over and over.
type rebinder struct {
	mu   sync.Mutex
	seen map[string]string
}

// maxRemembered bounds the cache; statements built with varying text
// (an IN list of n placeholders) would otherwise grow it for ever.
const maxRemembered = 4096

func (r *rebinder) rebind(q string) string {
	if !strings.Contains(q, "?") {
		return q
	}
	r.mu.Lock()
	out, ok := r.seen[q]
	r.mu.Unlock()
	if ok {
		return out
	}
	out = Rebind(q)
	r.mu.Lock()
	if r.seen == nil || len(r.seen) >= maxRemembered {
		r.seen = map[string]string{}
	}
	r.seen[q] = out
	r.mu.Unlock()
	return out
}

// Rebind replaces each ? placeholder of q with $1, $2, ... in order, and
// each numbered ?NNN with $NNN, the same parameter in PostgreSQL's
// spelling. A ? inside a string literal, a quoted identifier, a comment
// or a dollar-quoted body is text, not a placeholder, and is kept.
func Rebind(q string) string {
	var b strings.Builder
	b.Grow(len(q) + 8)
	n := 0
	for i := 0; i < len(q); {
		c := q[i]
		switch {
		case c == '?':
			// ?NNN is SQLite's numbered parameter, PostgreSQL's $NNN.
			j := i + 1
			for j < len(q) && q[j] >= '0' && q[j] <= '9' {
				j++
			}
			b.WriteByte('$')
			if j > i+1 {
				b.WriteString(q[i+1 : j])
			} else {
				n++
				b.WriteString(strconv.Itoa(n))
			}
			i = j
			continue
		case c == '\'' || c == '"':
			end := closing(q, i+1, c)
			b.WriteString(q[i:end])
			i = end
			continue
		case c == '-' && strings.HasPrefix(q[i:], "--"):
			end := strings.IndexByte(q[i:], '\n')
			if end < 0 {
				end = len(q) - i
			}
			b.WriteString(q[i : i+end])
			i += end
			continue
		case c == '/' && strings.HasPrefix(q[i:], "/*"):
			end := strings.Index(q[i+2:], "*/")
			if end < 0 {
				end = len(q) - i
			} else {
				end += 4
			}
			b.WriteString(q[i : i+end])
			i += end
			continue
		case c == '$':
			if tag, ok := dollarTag(q[i:]); ok {
				end := strings.Index(q[i+len(tag):], tag)
				if end < 0 {
					end = len(q) - i
				} else {
					end += 2 * len(tag)
				}
				b.WriteString(q[i : i+end])
				i += end
				continue
			}
		}
		b.WriteByte(c)
		i++
	}
	return b.String()
}

// closing is the index just past the quote that closes a literal opened
// before start with quote; a doubled quote is an escaped one.
func closing(q string, start int, quote byte) int {
	for i := start; i < len(q); i++ {
		if q[i] != quote {
			continue
		}
		if i+1 < len(q) && q[i+1] == quote {
			i++
			continue
		}
		return i + 1
	}
	return len(q)
}

// dollarTag is the opening tag of a dollar-quoted string at the start of
// s ("$$" or "$name$"); a positional parameter ($1) is not one.
func dollarTag(s string) (string, bool) {
	for i := 1; i < len(s); i++ {
		c := s[i]
		if c == '$' {
			return s[:i+1], true
		}
		isLetter := c == '_' || (c|0x20) >= 'a' && (c|0x20) <= 'z' || c >= 0x80
		if !isLetter && !(i > 1 && c >= '0' && c <= '9') {
			return "", false
		}
	}
	return "", false
}
