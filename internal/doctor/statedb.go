package doctor

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"strings"
	"time"

	// The pure-Go SQLite driver, registered as "sqlite".
	_ "modernc.org/sqlite"
)

// largeWAL is a write-ahead log big enough that checkpoints are falling
// behind (a reader holding a snapshot for long, or a crashed writer).
const largeWAL = 256 << 20

// stateDBTimeout bounds the integrity check, which reads every page: a
// few seconds for a database of gigabytes.
const stateDBTimeout = 30 * time.Second

// StateDB checks state.db without changing it: it is opened query-only
// and without migrations, and PRAGMA quick_check reads every page.
func StateDB(path string) Check {
	return Check{Name: "state.db", Timeout: stateDBTimeout, Run: func(ctx context.Context) []Result {
		const name = "state.db"
		fi, err := os.Stat(path)
		if errors.Is(err, fs.ErrNotExist) {
			return []Result{Okf(name, "%s does not exist yet; hermes creates it on first use", path)}
		}
		moveAside := "mv " + ShellQuote(path) + " " + ShellQuote(path+".broken")
		if err != nil {
			return []Result{Problem(name, Fail, "ls -l "+ShellQuote(path), "%s cannot be read: %v", path, err)}
		}
		if err := quickCheck(ctx, path); err != nil {
			return []Result{Problem(name, Fail, moveAside+" (hermes starts a new, empty one; the old file is kept for recovery)",
				"%s is damaged: %v", path, err)}
		}
		wal := int64(0)
		if wi, err := os.Stat(path + "-wal"); err == nil {
			wal = wi.Size()
		}
		if wal > largeWAL {
			return []Result{Problem(name, Warn, "stop every hermes process of this home; the log is folded into state.db when the next one starts",
				"%s passes its integrity check, %s, but its write-ahead log is %s", path, sizeText(fi.Size()), sizeText(wal))}
		}
		return []Result{Okf(name, "integrity ok, %s, write-ahead log %s", sizeText(fi.Size()), sizeText(wal))}
	}}
}

// quickCheck runs PRAGMA quick_check on a read-only connection and returns
// what it found wrong, if anything.
func quickCheck(ctx context.Context, path string) error {
	dsn := "file:" + (&url.URL{Path: path}).EscapedPath() + "?_pragma=busy_timeout(2000)&_pragma=query_only(1)"
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return err
	}
	defer db.Close()
	rows, err := db.QueryContext(ctx, "PRAGMA quick_check")
	if err != nil {
		return err
	}
	defer rows.Close()
	var problems []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			return err
		}
		if line != "ok" {
			problems = append(problems, line)
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if len(problems) > 0 {
		if len(problems) > 3 {
			problems = append(problems[:3], fmt.Sprintf("and %d more", len(problems)-3))
		}
		return errors.New(strings.Join(problems, "; "))
	}
	return nil
}
