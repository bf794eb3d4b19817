package app

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/hermes-go/hermes/internal/config"
	"github.com/hermes-go/hermes/internal/pgdb"
	"github.com/hermes-go/hermes/internal/session"
	"github.com/hermes-go/hermes/internal/session/postgres"
	"github.com/hermes-go/hermes/internal/session/sqlite"
	"github.com/hermes-go/hermes/internal/sqldb"
	"github.com/hermes-go/hermes/internal/sqlitedb"
)

// SessionStore is the session store of either backend: session.Store,
// turn leases, and the reads a process sharing the store with others
// needs (catching up on a session, the newest messages, the turns
// running now).
type SessionStore interface {
	session.Store
	session.Leaser
	MessagesAfter(ctx context.Context, sessionID string, afterID int64) ([]session.Message, error)
	LastMessages(ctx context.Context, sessionID string, n int) ([]session.Message, error)
	Running(ctx context.Context, now time.Time) ([]session.RunningTurn, error)
}

var (
	_ SessionStore = (*sqlite.Store)(nil)
	_ SessionStore = (*postgres.Store)(nil)
)

// openDatabase opens the state config.yaml's storage: names: state.db
// under HERMES_HOME (created on first use), or a PostgreSQL database
// that several replicas share. Either way every store's schema is
// brought up to date.
func (a *App) openDatabase(ctx context.Context) (sqldb.DB, error) {
	l := a.Config
	st := l.Config.Storage
	if st.DriverOrDefault() == config.StoragePostgres {
		return pgdb.Open(ctx, string(st.DSN), pgdb.Options{MaxConns: st.MaxConns, Logger: a.Log})
	}
	if l.Paths.InMemory() {
		return sqlitedb.OpenMemory(ctx, sqlitedb.Options{Logger: a.Log})
	}
	if err := os.MkdirAll(filepath.Dir(l.Paths.StateDB), 0o700); err != nil {
		return nil, fmt.Errorf("creating %s: %w", filepath.Dir(l.Paths.StateDB), err)
	}
	return sqlitedb.Open(ctx, l.Paths.StateDB, sqlitedb.Options{Logger: a.Log})
}

// openSessions is the session store over db.
func (a *App) openSessions(db sqldb.DB) (SessionStore, error) {
	if lite, ok := db.(*sqlitedb.DB); ok {
		return sqlite.New(lite, sqlite.Options{Clock: a.opts.Clock})
	}
	return postgres.New(db, postgres.Options{Clock: a.opts.Clock})
}
