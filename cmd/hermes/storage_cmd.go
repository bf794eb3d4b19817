package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/hermes-go/hermes/internal/config"
	"github.com/hermes-go/hermes/internal/pgdb"
	"github.com/hermes-go/hermes/internal/safety"
	"github.com/hermes-go/hermes/internal/sqldb"
	"github.com/hermes-go/hermes/internal/sqlitedb"
	"github.com/hermes-go/hermes/internal/storage"
)

func newStorageCmd(a *cli) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "storage",
		Short: "Move state.db into PostgreSQL, and check either",
		Long: `hermes keeps its state in $HERMES_HOME/state.db unless config.yaml says
storage: {driver: postgres, dsn: ...}, which lets several replicas share it.
"migrate" copies state.db into PostgreSQL; "check" looks for damage in the
configured storage, or compares state.db with a PostgreSQL copy.`,
		Args: cobra.NoArgs,
	}
	cmd.AddCommand(newStorageMigrateCmd(a), newStorageCheckCmd(a))
	return cmd
}

func newStorageMigrateCmd(a *cli) *cobra.Command {
	var to string
	var batch int
	var skip []string
	cmd := &cobra.Command{
		Use:   "migrate --to postgres://...",
		Short: "Copy state.db into a PostgreSQL database, resumably, and verify the copy",
		Long: `Copy every table of $HERMES_HOME/state.db into a new PostgreSQL database,
--batch rows per transaction, then compare both sides table by table (row
counts and checksums).

Stop hermes (serve, gateway, cron) first: rows written during the copy are
not copied, and the verification then reports the tables that changed.
Stopped half-way (Ctrl-C, a lost connection), migrate run again continues
after the last batch it committed and never copies a row twice; run again
after it finished, it only verifies. It refuses a database whose tables
already hold rows it did not copy, and a state.db table holding rows that
PostgreSQL has no table for, unless --skip names it.

Text PostgreSQL cannot store (NUL bytes, invalid UTF-8) is stored with
U+FFFD in its place; the report counts the rows. Without --to the
database is storage.dsn of config.yaml. Then set storage.driver: postgres
to use it.`,
		Example: `  hermes storage migrate --to postgres://hermes@db.internal:5432/hermes
  hermes storage migrate --to "$DATABASE_URL" --batch 5000
  hermes storage migrate          # into storage.dsn of config.yaml`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if batch < 1 || batch > 100000 {
				return fmt.Errorf("--batch %d: give 1 to 100000 rows per transaction (default %d)", batch, storage.DefaultBatch)
			}
			l, err := a.load(cmd)
			if err != nil {
				return err
			}
			dsn, err := targetDSN("--to", to, l.Config.Storage)
			if err != nil {
				return err
			}
			src, dst, err := openBoth(cmd.Context(), l.Paths.StateDB, dsn)
			if err != nil {
				return err
			}
			defer src.Close()
			defer dst.Close()
			w := cmd.OutOrStdout()
			fmt.Fprintf(w, "copying %s into %s\n", l.Paths.StateDB, pgdb.Redact(dsn))
			r, err := storage.Migrate(cmd.Context(), src, dst, storage.Options{Batch: batch, Progress: progressPrinter(w), Skip: skip})
			if len(r.Tables) > 0 && (err == nil || errors.Is(err, storage.ErrMismatch)) {
				printVerification(w, r)
			}
			if err != nil && len(r.Tables) > 0 && !errors.Is(err, storage.ErrMismatch) {
				return fmt.Errorf("%w\nrun hermes storage migrate again to resume; it continues after the last batch it committed", err)
			}
			if errors.Is(err, storage.ErrMismatch) {
				return fmt.Errorf("%w\nstate.db changed after these tables were copied (was hermes running?): stop hermes and migrate into a new, empty database", err)
			}
			if err != nil {
				return err
			}
			fmt.Fprintln(w, "state.db and PostgreSQL hold the same rows; set storage.driver: postgres and storage.dsn to use it")
			return nil
		},
	}
	cmd.Flags().StringVar(&to, "to", "", "the PostgreSQL database to copy into, a postgres:// URL (default storage.dsn)")
	cmd.Flags().IntVar(&batch, "batch", storage.DefaultBatch, "rows copied per transaction")
	cmd.Flags().StringSliceVar(&skip, "skip", nil, "state.db tables to leave behind (comma-separated), e.g. one PostgreSQL has no table for")
	return cmd
}

func newStorageCheckCmd(a *cli) *cobra.Command {
	var against string
	var skip []string
	cmd := &cobra.Command{
		Use:   "check [--against postgres://...]",
		Short: "Check the configured storage for damage, or compare state.db with a PostgreSQL copy",
		Long: `Check the storage config.yaml names (state.db, or storage.dsn with
storage.driver: postgres): SQLite's own integrity and foreign key checks
for state.db; for both, that every schema is current, that each session's
message count matches its messages, that no message belongs to a missing
session, and that every tool result answers a call an earlier assistant
message of its session made. Exits 1 when it finds a problem.

With --against, compare state.db with that PostgreSQL database instead,
table by table (row counts and checksums), as migrate does at its end.`,
		Example: `  hermes storage check
  hermes storage check --against postgres://hermes@db.internal:5432/hermes`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			l, err := a.load(cmd)
			if err != nil {
				return err
			}
			w := cmd.OutOrStdout()
			if cmd.Flags().Changed("against") {
				dsn, err := targetDSN("--against", against, config.Storage{})
				if err != nil {
					return err
				}
				src, dst, err := openBoth(cmd.Context(), l.Paths.StateDB, dsn)
				if err != nil {
					return err
				}
				defer src.Close()
				defer dst.Close()
				fmt.Fprintf(w, "comparing %s with %s\n", l.Paths.StateDB, pgdb.Redact(dsn))
				r, err := storage.Compare(cmd.Context(), src, dst, skip...)
				if len(r.Tables) > 0 {
					printVerification(w, r)
				}
				return err
			}
			db, where, err := openConfigured(cmd.Context(), l)
			if err != nil {
				return err
			}
			defer db.Close()
			fmt.Fprintf(w, "checking %s\n", where)
			r, err := storage.Check(cmd.Context(), db)
			printCheck(w, r)
			return err
		},
	}
	cmd.Flags().StringVar(&against, "against", "", "compare state.db with this PostgreSQL database (a postgres:// URL)")
	cmd.Flags().StringSliceVar(&skip, "skip", nil, "with --against, state.db tables to leave out, as migrate --skip left them")
	return cmd
}

// targetDSN is the PostgreSQL database a flag names, or storage.dsn
// when the flag is empty and the config has one.
func targetDSN(flag, value string, s config.Storage) (string, error) {
	dsn := strings.TrimSpace(value)
	if dsn == "" {
		dsn = strings.TrimSpace(string(s.DSN))
	}
	switch {
	case dsn == "":
		return "", fmt.Errorf("%s: give the PostgreSQL database, e.g. %s postgres://hermes@db:5432/hermes (or set storage.dsn)", flag, flag)
	case !strings.HasPrefix(dsn, "postgres://") && !strings.HasPrefix(dsn, "postgresql://") && !strings.Contains(dsn, "="):
		return "", fmt.Errorf("%s %s: not a PostgreSQL database; give a postgres:// URL or a key=value string such as host=db dbname=hermes", flag, redactURL(dsn))
	}
	return dsn, nil
}

// redactURL is a DSN for display: pgdb.Redact's form, and for a URL of
// another scheme (a mistake) its password hidden too.
func redactURL(dsn string) string {
	if u, err := url.Parse(dsn); err == nil && u.User != nil && u.Scheme != "" {
		return u.Redacted()
	}
	return pgdb.Redact(dsn)
}

// openBoth opens an existing state.db and the PostgreSQL database.
func openBoth(ctx context.Context, path, dsn string) (*sqlitedb.DB, *pgdb.DB, error) {
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return nil, nil, fmt.Errorf("%s does not exist: this home has no state to copy or compare", path)
	}
	src, err := sqlitedb.Open(ctx, path, sqlitedb.Options{})
	if err != nil {
		return nil, nil, err
	}
	dst, err := pgdb.Open(ctx, dsn, pgdb.Options{MaxConns: 4})
	if err != nil {
		src.Close()
		return nil, nil, err
	}
	return src, dst, nil
}

// openConfigured opens the storage config.yaml names, and says which.
func openConfigured(ctx context.Context, l *config.Loaded) (sqldb.DB, string, error) {
	s := l.Config.Storage
	if s.DriverOrDefault() == config.StoragePostgres {
		dsn := string(s.DSN)
		db, err := pgdb.Open(ctx, dsn, pgdb.Options{MaxConns: 4})
		return db, pgdb.Redact(dsn), err
	}
	if _, err := os.Stat(l.Paths.StateDB); errors.Is(err, fs.ErrNotExist) {
		return nil, "", fmt.Errorf("%s does not exist: this home has no state yet", l.Paths.StateDB)
	}
	db, err := sqlitedb.Open(ctx, l.Paths.StateDB, sqlitedb.Options{})
	return db, l.Paths.StateDB, err
}

// progressPrinter prints a line when a table is done and every ten
// batches of a long one.
func progressPrinter(w io.Writer) func(storage.Progress) {
	n := 0
	return func(p storage.Progress) {
		if !p.Done {
			if n++; n%10 == 0 {
				fmt.Fprintf(w, "  %-24s %d/%d rows\n", p.Table, p.Copied, p.Total)
			}
			return
		}
		n = 0
		fmt.Fprintf(w, "  %-24s %d/%d rows, done\n", p.Table, p.Copied, p.Total)
	}
}

// printVerification prints each table's counts and checksums on both
// sides.
func printVerification(w io.Writer, r storage.Report) {
	fmt.Fprintf(w, "%-24s %10s %10s %-26s %s\n", "TABLE", "STATE.DB", "POSTGRES", "CHECKSUM", "")
	skipped := map[string][]string{}
	var reasons []string
	for _, t := range r.Tables {
		if t.Skipped != "" {
			if skipped[t.Skipped] == nil {
				reasons = append(reasons, t.Skipped)
			}
			skipped[t.Skipped] = append(skipped[t.Skipped], t.Name)
			continue
		}
		verdict := "ok"
		if !t.Match() {
			verdict = "DIFFERS (postgres " + t.Dest.Checksum + ")"
		}
		fmt.Fprintf(w, "%-24s %10d %10d %-26s %s\n", t.Name, t.Source.Rows, t.Dest.Rows, t.Source.Checksum, verdict)
		if t.Sanitized > 0 {
			fmt.Fprintf(w, "%24s %d rows with NUL bytes or invalid UTF-8, stored with U+FFFD\n", "", t.Sanitized)
		}
		if len(t.Dropped) > 0 {
			fmt.Fprintf(w, "%24s not copied (PostgreSQL has no such column): %s\n", "", strings.Join(t.Dropped, ", "))
		}
	}
	for _, why := range reasons {
		fmt.Fprintf(w, "not copied, %s: %s\n", why, strings.Join(skipped[why], ", "))
	}
}

// printCheck prints the tables' row counts and the problems found.
func printCheck(w io.Writer, r storage.Report) {
	for _, t := range r.Tables {
		if t.Source.Rows > 0 {
			fmt.Fprintf(w, "  %-24s %10d rows\n", t.Name, t.Source.Rows)
		}
	}
	if len(r.Problems) == 0 {
		fmt.Fprintln(w, "no problems found")
		return
	}
	for _, p := range r.Problems {
		fmt.Fprintf(w, "problem: %s\n", safety.Escape(p.String()))
	}
}
