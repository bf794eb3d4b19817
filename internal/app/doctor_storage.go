package app

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/hermes-go/hermes/internal/config"
	"github.com/hermes-go/hermes/internal/doctor"
	"github.com/hermes-go/hermes/internal/kb"
	"github.com/hermes-go/hermes/internal/pgdb"
	"github.com/hermes-go/hermes/internal/replica"
)

// storageCheck checks where state lives: state.db's integrity, or, with
// storage.driver: postgres, that the database answers with every schema
// current, and whether the replicas serving it run the same files
// (replica.Roll).
func storageCheck(l *config.Loaded, loadErr error, o DoctorOptions) doctor.Check {
	if loadErr != nil || l.Config.Storage.DriverOrDefault() != config.StoragePostgres {
		return doctor.StateDB(l.Paths.StateDB)
	}
	st := l.Config.Storage
	shown := pgdb.Redact(string(st.DSN))
	return doctor.Check{Name: "postgres", Run: func(ctx context.Context) []doctor.Result {
		const name = "postgres"
		db, err := pgdb.Open(ctx, string(st.DSN), pgdb.Options{MaxConns: 2, Logger: o.Logger})
		if err != nil {
			return []doctor.Result{doctor.Problem(name, doctor.Fail, "psql "+doctor.ShellQuote(shown)+" -c 'select 1'",
				"%s cannot be used: %v", shown, err)}
		}
		defer db.Close()
		var version string
		if err := db.Reader().QueryRowContext(ctx, `SHOW server_version`).Scan(&version); err != nil {
			return []doctor.Result{doctor.Problem(name, doctor.Fail, "", "%s: %v", shown, err)}
		}
		vectors := "knowledge-base vectors scored exactly in hermes"
		if ok, err := kb.New(db, kb.Options{}).VectorExtension(ctx); err == nil && ok {
			vectors += " (pgvector is available but not used)"
		}
		out := []doctor.Result{doctor.Okf(name, "PostgreSQL %s at %s, every schema current; %s", version, shown, vectors)}
		live, err := replica.New(db, o.Clock).Live(ctx, rollWindow)
		if err != nil {
			return append(out, doctor.Problem("replicas", doctor.Warn, "", "the roll of replicas cannot be read: %v", err))
		}
		mine, err := ConfigHash(l.Paths)
		if err != nil {
			return append(out, doctor.Problem("replicas", doctor.Warn, "", "%v", err))
		}
		return append(out, replicasResult(live, mine))
	}}
}

// replicasResult says whether the live replicas, and this home's files
// (hash mine), agree.
func replicasResult(live []replica.Replica, mine string) doctor.Result {
	const name = "replicas"
	if len(live) == 0 {
		return doctor.Okf(name, "no hermes serve has reported in the last %s", rollWindow)
	}
	groups := replica.Disagree(live)
	if _, ok := groups[mine]; len(groups) == 1 && ok {
		return doctor.Okf(name, "%d live, all running configuration %s, the same as this home's", len(live), mine)
	}
	var parts []string
	for hash, holders := range groups {
		parts = append(parts, fmt.Sprintf("%s on %s", strings.Join(holders, ", "), hash))
	}
	sort.Strings(parts)
	return doctor.Problem(name, doctor.Warn,
		"make config.yaml, SOUL.md, skills/ and tools/ the same on every replica (a shared volume or a config repository), then restart or let them reload",
		"replicas run different configurations: %s; this home's files hash to %s", strings.Join(parts, "; "), mine)
}
