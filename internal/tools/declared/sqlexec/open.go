// Package sqlexec runs the SQL of declared sql tools against SQLite,
// PostgreSQL and MySQL databases, all through pure-Go drivers so hermes
// stays one static binary.
//
// A tool either binds its arguments to a fixed query, or, when read_only,
// runs the model's own statement. The model's statement is screened (one
// statement, a reading keyword first) so a wrong guess gets a clear
// answer, but the real guard is the database: the statement runs in a
// read-only transaction (PostgreSQL, MySQL) or on a read-only handle
// (SQLite, opened with mode=ro and query_only), so a write hidden in a
// CTE or a function still fails.
//
// A connection's DSN may hold a password. It is resolved from ${ENV}
// references only when opened, kept inside the DB, and scrubbed from
// every error: messages name the connection by its driver and its DSN as
// written, with passwords masked.
package sqlexec

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/go-sql-driver/mysql"
	_ "modernc.org/sqlite" // registers the "sqlite" database/sql driver
)

// Defaults for a connection and a query.
const (
	// DefaultMaxOpen bounds a connection's pool when max_open is zero.
	DefaultMaxOpen = 4
	// DefaultMaxRows caps a result when max_rows is zero.
	DefaultMaxRows = 200
)

// DB is an open connection: a pool for fixed queries and, for SQLite, a
// second read-only pool for read_only tools. It is safe for concurrent
// use.
type DB struct {
	driver string
	// name is the connection as it may be shown: "postgres connection
	// postgres://app:xxxxx@db/orders".
	name string
	// secrets are the resolved DSN and its password, scrubbed from every
	// message.
	secrets []string
	rw      *sql.DB
	// ro is the SQLite read-only pool; nil for the other drivers, whose
	// read_only statements run in read-only transactions on rw.
	ro *sql.DB
}

// Check reports what is wrong with a connection's declaration: an unknown
// driver or a negative max_open. The DSN is checked by Open, once its
// ${ENV} references can be resolved.
func (c Connection) Check() error {
	if _, err := NormalizeDriver(c.Driver); err != nil {
		return err
	}
	if c.DSN == "" {
		return errors.New("dsn is empty")
	}
	if c.MaxOpen < 0 {
		return fmt.Errorf("max_open is %d; use a positive pool size, or 0 for %d", c.MaxOpen, DefaultMaxOpen)
	}
	return nil
}

// Open prepares the connection c without connecting: the first Run dials,
// so a database that is down at start-up costs its tools nothing until
// they are called. The DSN's ${NAME} and ${NAME:-default} references are
// resolved through env; for sqlite it is a file path, relative to baseDir
// (the directory of the declaring file), with ~ expanded. A DSN the
// driver cannot parse is an error now rather than at the first call.
// Errors name the connection's driver and its masked DSN, never the
// resolved one.
func Open(ctx context.Context, c Connection, baseDir string, env func(string) (string, bool)) (*DB, error) {
	if err := c.Check(); err != nil {
		return nil, fmt.Errorf("sql connection %s: %w", mask(c.DSN, c.Driver), err)
	}
	driver, _ := NormalizeDriver(c.Driver)
	db := &DB{driver: driver, name: driver + " connection " + mask(c.DSN, driver)}
	dsn, err := expandEnv(c.DSN, env)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", db.name, err)
	}
	db.secrets = secrets(dsn, driver)
	maxOpen := c.MaxOpen
	if maxOpen == 0 {
		maxOpen = DefaultMaxOpen
	}
	switch driver {
	case driverSQLite:
		err = db.openSQLite(dsn, baseDir)
	case driverPostgres:
		err = db.openPostgres(dsn)
	case driverMySQL:
		err = db.openMySQL(dsn)
	}
	if err != nil {
		return nil, fmt.Errorf("open %s: %s", db.name, redact(err.Error(), db.secrets))
	}
	for _, p := range []*sql.DB{db.rw, db.ro} {
		if p != nil {
			p.SetMaxOpenConns(maxOpen)
			p.SetMaxIdleConns(maxOpen)
		}
	}
	return db, nil
}

// openSQLite opens the writer and reader pools on the database file.
func (db *DB) openSQLite(dsn, baseDir string) error {
	path, err := sqlitePath(dsn, baseDir)
	if err != nil {
		return err
	}
	db.name = "sqlite connection " + path
	if db.rw, err = sql.Open("sqlite", sqliteDSN(path, false)); err != nil {
		return err
	}
	if db.ro, err = sql.Open("sqlite", sqliteDSN(path, true)); err != nil {
		db.rw.Close()
		return err
	}
	return nil
}

// openMySQL parses the DSN with the MySQL driver and opens a pool on it.
func (db *DB) openMySQL(dsn string) error {
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		return err
	}
	conn, err := mysql.NewConnector(cfg)
	if err != nil {
		return err
	}
	db.rw = sql.OpenDB(conn)
	return nil
}

// Driver is the connection's canonical driver name.
func (db *DB) Driver() string { return db.driver }

// String names the connection without its secrets.
func (db *DB) String() string { return db.name }

// Close closes the pools; calls still running finish first.
func (db *DB) Close() error {
	var errs []error
	for _, p := range []*sql.DB{db.ro, db.rw} {
		if p != nil {
			errs = append(errs, p.Close())
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("close %s: %s", db.name, redact(err.Error(), db.secrets))
	}
	return nil
}
