// Command store measures a session store at scale, SQLite's or
// PostgreSQL's (-backend): it builds a database of -n messages of
// generated agent history (mixed English and Chinese prose, tool calls
// and their output), then reports append throughput with both full-text
// indexes and search latency for a word, a 4-character Chinese phrase
// and a 2-character Chinese word.
//
//	go run ./bench/store -n 100000
//	go run ./bench/store -n 1000000 -db /tmp/hermes-1m.db -keep
//	go run ./bench/store -n 1000000 -backend postgres
//	go run ./bench/store -backend postgres -dsn postgres://localhost/bench
//
// -backend postgres without -dsn starts a throwaway server (as the tests
// do, internal/pgtest) with a database of LC_CTYPE C.UTF-8, and stops it
// at the end; with -dsn the database is kept, so a second run measures
// the history the first one built.
//
// Measured on a 2-core AMD EPYC VM shared with other builds (load
// 10–15, so figures move by up to 2× between runs), PostgreSQL 15 as
// internal/pgtest runs it (fsync off, shared_buffers 16MB; 2GB changed
// nothing: the time is CPU), search p50 / p99 in ms (200 runs;
// PostgreSQL at 1M, 50):
//
//	                    SQLite 100k  PostgreSQL 100k  SQLite 1M   PostgreSQL 1M
//	word                3.0 / 18     6.4 / 14         2.9 / 5.1   27 / 34
//	CJK 4 chars         3.8 / 33     4.9 / 15         4.3 / 8.2   27 / 53
//	CJK 2 chars         4.2 / 19     18 / 26          1.9 / 7.3   24 / 36
//	CJK 2 chars, rarer  12 / 43      57 / 96          3.8 / 7.9   47 / 62
//	two words           3.6 / 30     7.6 / 32         3.8 / 8.8   70 / 161
//	common word         4.5 / 20     47 / 91          4.2 / 10    10 / 15
//	CJK 2 chars, rare   0.16 / 1.7   150 / 289        0.17 / 4.2  1352 / 1857
//	Latin substring     0.93 / 1.6   54 / 114         3.3 / 4.8   104 / 152
//	no match            100 / 191    1.7 / 16         100 / 170   5.4 / 6.3
//	build, messages/s   8413 (12 s)  2013 (50 s)      8240 (2 m)  738 (22.6 m)
//	appends/s, batch 1  4065         1158             3781        991
//	appends/s, batch 10 5855         1601             5225        1480
//	size, MB            99           245              972         2218
//
// PostgreSQL finds the newest matches by walking the primary key
// backwards and testing each message (1–6 µs a message), or by reading
// every match through a GIN index and sorting; SQLite reads posting
// lists. A 1–2 character CJK term has no trigram, so a rare one reads
// every message.
//
// Numbers only: nothing here passes or fails on time. -trigram all
// measures the alternative design that puts every message, not only
// those with CJK text, in the trigram index (see session/sqlite's
// design note).
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"time"

	"github.com/hermes-go/hermes/internal/session/storetest"
)

func main() {
	n := flag.Int("n", 100_000, "messages to store before measuring")
	backend := flag.String("backend", "sqlite", "session store to measure: sqlite or postgres")
	dsn := flag.String("dsn", "", "PostgreSQL database for -backend postgres (default: a throwaway server)")
	dbPath := flag.String("db", "", "SQLite database file (default: a new temporary file)")
	keep := flag.Bool("keep", false, "keep the SQLite database file afterwards")
	appends := flag.Int("appends", 5000, "appends to time in each append mode")
	runs := flag.Int("runs", 200, "runs of each search query")
	trigram := flag.String("trigram", "cjk", "which messages SQLite's trigram index holds: cjk or all")
	flag.Parse()
	log.SetFlags(0)

	ctx := context.Background()
	var (
		db  *opened
		err error
	)
	switch *backend {
	case "sqlite":
		if *dsn != "" {
			log.Fatalf("-backend sqlite takes -db, not -dsn (that is for -backend postgres)")
		}
		db, err = openSQLite(ctx, *dbPath, *trigram, *keep)
	case "postgres":
		if *dbPath != "" || *keep || *trigram != "cjk" {
			log.Fatalf("-backend postgres takes -dsn, not -db %q, -keep=%v or -trigram %q (those are for -backend sqlite)",
				*dbPath, *keep, *trigram)
		}
		db, err = openPostgres(ctx, *dsn)
	default:
		log.Fatalf("-backend must be sqlite or postgres, not %q", *backend)
	}
	if err != nil {
		log.Fatal(err)
	}
	what := "trigram index holds " + *trigram + " rows"
	if *backend == "postgres" {
		what = "trigram index holds every row"
	}
	err = run(ctx, db, *n, *appends, *runs, what)
	db.closeAll()
	if err != nil {
		log.Fatal(err)
	}
}

// run builds the history up to n messages, then times the searches and
// the appends.
func run(ctx context.Context, db *opened, n, appends, runs int, what string) error {
	store := db.store
	corpus := storetest.NewCorpus(1)
	have, err := store.Stats(ctx)
	if err != nil {
		return err
	}
	if have.Messages < int64(n) {
		fmt.Printf("== building: %d messages stored, adding %d\n", have.Messages, int64(n)-have.Messages)
		if err := build(ctx, store, corpus, int(int64(n)-have.Messages)); err != nil {
			return err
		}
	}
	st, err := store.Stats(ctx)
	if err != nil {
		return err
	}
	fmt.Printf("== database: %d sessions, %d messages, %d tool calls; %s\n",
		st.Sessions, st.Messages, st.ToolCalls, db.size(ctx))

	fmt.Printf("\n== search latency over %d messages (%d runs each, limit 20)\n", st.Messages, runs)
	for _, q := range queries {
		r, err := measureSearch(ctx, store, q.query, runs)
		if err != nil {
			return err
		}
		fmt.Printf("%-20s p50 %8s  p95 %8s  p99 %8s  (%2d hits; %s)\n", q.label,
			r.p50.Round(10*time.Microsecond), r.p95.Round(10*time.Microsecond), r.p99.Round(10*time.Microsecond),
			r.hits, q.query)
	}

	// Appends come last, so the searches above see only the built
	// history; they go to new sessions of about 40 messages, as the
	// history's own, so a kept database stays like it.
	fmt.Printf("\n== appends, both indexes (%s)\n", what)
	for _, batch := range []int{1, 10} {
		rate, err := measureAppends(ctx, store, corpus, appends, batch)
		if err != nil {
			return err
		}
		fmt.Printf("%-20s %8.0f messages/s  (%d messages, %d per Append)\n",
			fmt.Sprintf("batch %d", batch), rate, appends, batch)
	}
	fmt.Printf("database now %s\n", db.size(ctx))
	return nil
}

// queries are the searches timed: the three kinds the budget names, and
// the slow corners (a word in a sixth of the messages, a substring no
// word index has, a rare 2-character word) so they are known too.
var queries = []struct{ label, query string }{
	{"word", "kubernetes"},
	{"CJK 4 chars", "性能优化"},
	{"CJK 2 chars", "迁移"},
	{"CJK 2 chars, rarer", "退款"},
	{"two words", "postgres rollback"},
	{"common word", "error"},
	{"CJK 2 chars, rare", "鲸鱼"},
	{"Latin substring", "ubernete"},
	{"no match", "zyzzyvaquux"},
}
