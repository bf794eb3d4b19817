package sqlexec

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"

	"github.com/go-sql-driver/mysql"
	"github.com/lib/pq"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/hermes-go/hermes/internal/tool"
)

// scrubbed is an error whose message has had the connection's secrets
// removed; it still unwraps to the driver's error for errors.Is and As.
type scrubbed struct {
	msg string
	err error
}

func (e *scrubbed) Error() string { return e.msg }
func (e *scrubbed) Unwrap() error { return e.err }

// scrub returns err with the DSN and its password replaced by xxxxx in
// its message.
func (db *DB) scrub(err error) error {
	return &scrubbed{msg: redact(err.Error(), db.secrets), err: err}
}

// classify turns a failed statement into what the dispatcher and the
// model need. A context that ended is returned wrapped, so the
// dispatcher reports a timeout or an interruption. The database refusing
// the statement (syntax, a missing table, a constraint, a write in a
// read-only transaction) is invalid_arguments with the database's own
// words: the SQL or its arguments were wrong. Not reaching the database
// is upstream_unavailable and retryable, since nothing ran.
func (db *DB) classify(ctx context.Context, what string, err error) error {
	if err == nil {
		return nil
	}
	msg := redact(describe(err), db.secrets)
	if ctx.Err() != nil {
		return fmt.Errorf("%s on %s: %w (%s)", what, db.name, ctx.Err(), msg)
	}
	if unreachable(err) {
		return &tool.Error{
			Code:      tool.CodeUpstreamUnavailable,
			Message:   fmt.Sprintf("cannot reach the %s: %s", db.name, msg),
			Retryable: true,
		}
	}
	return tool.Errorf(tool.CodeInvalidArguments, "%s: the database refused the statement: %s", db.driver, msg)
}

// unreachable reports whether err means the database could not be
// reached or the connection broke, rather than that it refused the
// statement.
func unreachable(err error) bool {
	var connectErr *connectError
	if errors.As(err, &connectErr) {
		return true
	}
	var pgErr *pq.Error
	if errors.As(err, &pgErr) {
		// Class 08 is connection exceptions, 53 insufficient resources,
		// 57P0x the server shutting down or not yet up.
		c := string(pgErr.Code)
		return strings.HasPrefix(c, "08") || strings.HasPrefix(c, "53") || strings.HasPrefix(c, "57P")
	}
	var myErr *mysql.MySQLError
	if errors.As(err, &myErr) {
		// 1040 too many connections, 1045 access denied, 1049 unknown
		// database, 1053 server shutdown, 1203 user connection limit.
		switch myErr.Number {
		case 1040, 1045, 1049, 1053, 1203:
			return true
		}
		return false
	}
	var liteErr *sqlite.Error
	if errors.As(err, &liteErr) {
		switch liteErr.Code() & 0xff {
		case sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED, sqlite3.SQLITE_CANTOPEN,
			sqlite3.SQLITE_IOERR, sqlite3.SQLITE_NOTADB, sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_FULL:
			return true
		}
		return false
	}
	var netErr net.Error
	var opErr *net.OpError
	return errors.As(err, &netErr) || errors.As(err, &opErr) ||
		errors.Is(err, driver.ErrBadConn) || errors.Is(err, mysql.ErrInvalidConn) ||
		errors.Is(err, io.ErrUnexpectedEOF)
}

// describe is err's message, with a PostgreSQL error spelt out in full:
// severity, message (with lib/pq's "at column N"), SQLSTATE, then the
// server's detail and hint, which often say what to change (the
// duplicate key, the column meant). lib/pq's own message keeps only the
// first part. Only an error that is the server's alone is spelt out; one
// that merely holds one (lib/pq's "could not connect to any of the hosts"
// list) keeps its own message.
func describe(err error) string {
	if ce, ok := err.(*connectError); ok {
		err = ce.err
	}
	pgErr, ok := err.(*pq.Error)
	if !ok {
		return err.Error()
	}
	msg := strings.TrimPrefix(pgErr.Error(), "pq: ")
	if code := string(pgErr.Code); code != "" {
		msg = strings.TrimSuffix(msg, " ("+code+")") + " (SQLSTATE " + code + ")"
	}
	if pgErr.Severity != "" {
		msg = pgErr.Severity + ": " + msg
	}
	if pgErr.Detail != "" {
		msg += "; detail: " + pgErr.Detail
	}
	if pgErr.Hint != "" {
		msg += "; hint: " + pgErr.Hint
	}
	return msg
}

// refuse is the invalid_arguments answer to a statement a read_only tool
// does not run.
func refuse(err error) error {
	return tool.Errorf(tool.CodeInvalidArguments, "%s", err.Error())
}
