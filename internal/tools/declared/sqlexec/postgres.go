package sqlexec

import (
	"context"
	"database/sql"
	"database/sql/driver"

	"github.com/lib/pq"
)

// PostgreSQL goes through lib/pq, a plain database/sql driver: it adds a
// fraction of what pgx does to the binary, and hermes needs no more than
// database/sql offers. lib/pq hands most values over as their text form
// ([]byte), which jsonValue shapes by the column's type name.

// openPostgres parses the DSN (a postgres:// URL or key=value string,
// with PG* environment variables and ~/.pgpass filling the gaps, as libpq
// does), so a malformed one fails at Open rather than at the first call,
// and opens a pool on it.
//
// An unset sslmode means prefer, as it does for libpq and psql: TLS when
// the server offers it, plain TCP otherwise. lib/pq's own default is
// require, which would refuse the many local servers without TLS that a
// DSN without sslmode is usually written for.
func (db *DB) openPostgres(dsn string) error {
	cfg, err := pq.NewConfig(dsn)
	if err != nil {
		return err
	}
	if cfg.SSLMode == "" {
		cfg.SSLMode = pq.SSLModePrefer
	}
	conn, err := pq.NewConnectorConfig(cfg)
	if err != nil {
		return err
	}
	db.rw = sql.OpenDB(pgConnector{conn})
	return nil
}

// pgConnector dials through lib/pq and marks every failure to connect as
// a connectError. lib/pq returns a refused login or an unknown database
// as the server's plain *pq.Error, indistinguishable from a refused
// statement; the mark is what lets classify call them unreachable
// rather than blame the model's SQL.
type pgConnector struct{ *pq.Connector }

func (c pgConnector) Connect(ctx context.Context) (driver.Conn, error) {
	conn, err := c.Connector.Connect(ctx)
	if err != nil {
		return nil, &connectError{err: err}
	}
	return conn, nil
}

// connectError is a failure to open a connection; it unwraps to the
// driver's error, so database/sql still sees a driver.ErrBadConn in it.
type connectError struct{ err error }

func (e *connectError) Error() string { return e.err.Error() }
func (e *connectError) Unwrap() error { return e.err }
