package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/hermes-go/hermes/internal/pgtest"
	"github.com/hermes-go/hermes/internal/session"
	"github.com/hermes-go/hermes/internal/session/postgres"
	"github.com/hermes-go/hermes/internal/session/sqlite"
)

// store is what the measurements use of a session store; both
// session/sqlite and session/postgres satisfy it, so the same code
// times both.
type store interface {
	Create(ctx context.Context, s *session.Session) error
	Append(ctx context.Context, sessionID string, msgs ...*session.Message) error
	Search(ctx context.Context, query string, opt session.SearchOptions) ([]session.Hit, error)
	Stats(ctx context.Context) (session.Stats, error)
}

// opened is a store ready to measure: size reports how much disk it
// takes, and closeAll closes it and removes what opening it made (a
// temporary file, a throwaway server).
type opened struct {
	store    store
	size     func(ctx context.Context) string
	closeAll func()
}

// openSQLite opens the SQLite store at path, a new temporary file when
// path is empty (removed at the end unless keep).
func openSQLite(ctx context.Context, path, trigram string, keep bool) (*opened, error) {
	cleanup := func() {}
	if path == "" {
		dir, err := os.MkdirTemp("", "hermes-bench-store-")
		if err != nil {
			return nil, err
		}
		path = filepath.Join(dir, "state.db")
		if !keep {
			cleanup = func() { os.RemoveAll(dir) }
		}
	}
	switch trigram {
	case "all":
		if err := indexAllInTrigram(ctx, path); err != nil {
			cleanup()
			return nil, err
		}
	case "cjk":
	default:
		cleanup()
		return nil, fmt.Errorf("-trigram must be cjk or all, not %q", trigram)
	}
	st, err := sqlite.Open(path, sqlite.Options{})
	if err != nil {
		cleanup()
		return nil, err
	}
	return &opened{
		store: st,
		size:  func(context.Context) string { return sizes(path) },
		closeAll: func() {
			st.Close()
			if keep {
				fmt.Printf("\nkept %s\n", path)
			}
			cleanup()
		},
	}, nil
}

// openPostgres opens the PostgreSQL store on the database at dsn. An
// empty dsn starts a throwaway server (internal/pgtest) with a database
// whose LC_CTYPE is C.UTF-8, so the trigram index serves CJK text; the
// server and its files go at the end.
func openPostgres(ctx context.Context, dsn string) (*opened, error) {
	stopServer := func() {}
	if dsn == "" {
		srv, stop, skip, err := pgtest.Launch()
		if skip != "" {
			return nil, errors.New(skip)
		}
		if err != nil {
			return nil, err
		}
		stopServer = func() {
			if err := stop(); err != nil {
				fmt.Fprintf(os.Stderr, "stop PostgreSQL: %v\n", err)
			}
		}
		if dsn, err = createDatabase(ctx, srv); err != nil {
			stopServer()
			return nil, err
		}
		fmt.Printf("== throwaway PostgreSQL server on port %d\n", srv.Port())
	}
	st, err := postgres.Open(ctx, dsn, postgres.Options{})
	if err != nil {
		stopServer()
		return nil, err
	}
	admin, err := sql.Open("postgres", dsn)
	if err != nil {
		st.Close()
		stopServer()
		return nil, err
	}
	return &opened{
		store: st,
		size:  func(ctx context.Context) string { return databaseSize(ctx, admin) },
		closeAll: func() {
			admin.Close()
			st.Close()
			stopServer()
		},
	}, nil
}

// benchDatabase is the database made on a throwaway server.
const benchDatabase = "hermes_bench"

// createDatabase makes benchDatabase on srv with a UTF-8 character type
// and returns its DSN.
func createDatabase(ctx context.Context, srv *pgtest.Server) (string, error) {
	admin, err := sql.Open("postgres", srv.DSN())
	if err != nil {
		return "", err
	}
	defer admin.Close()
	if _, err := admin.ExecContext(ctx, "CREATE DATABASE "+benchDatabase+
		" TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C.UTF-8'"); err != nil {
		return "", fmt.Errorf("create database %s: %w", benchDatabase, err)
	}
	return srv.DatabaseDSN(benchDatabase), nil
}

// databaseSize reports pg_database_size of the current database, and
// how much of it the messages table's indexes take.
func databaseSize(ctx context.Context, db *sql.DB) string {
	var total, table, words, trigrams int64
	err := db.QueryRowContext(ctx, `SELECT pg_database_size(current_database()),
	pg_table_size('messages'), pg_relation_size('messages_words'), pg_relation_size('messages_trigrams')`).
		Scan(&total, &table, &words, &trigrams)
	if err != nil {
		return fmt.Sprintf("size unknown: %v", err)
	}
	mb := func(n int64) float64 { return float64(n) / (1 << 20) }
	return fmt.Sprintf("database %.1f MB (messages table %.1f MB, words index %.1f MB, trigram index %.1f MB)",
		mb(total), mb(table), mb(words), mb(trigrams))
}

// sizes reports the SQLite database file and its WAL.
func sizes(path string) string {
	size := func(p string) float64 {
		fi, err := os.Stat(p)
		if err != nil {
			return 0
		}
		return float64(fi.Size()) / (1 << 20)
	}
	return fmt.Sprintf("file %.1f MB, WAL %.1f MB", size(path), size(path+"-wal"))
}
