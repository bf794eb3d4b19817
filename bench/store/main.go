// Command store measures the SQLite session store at scale: it builds a
// database of -n messages of generated agent history (mixed English and
// Chinese prose, tool calls and their output), then reports append
// throughput with both full-text indexes and search latency for a word,
// a 4-character Chinese phrase and a 2-character Chinese word.
//
//	go run ./bench/store -n 100000
//	go run ./bench/store -n 1000000 -db /tmp/hermes-1m.db -keep
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
	"os"
	"path/filepath"
	"time"

	"github.com/hermes-go/hermes/session/sqlite"
	"github.com/hermes-go/hermes/session/storetest"
)

func main() {
	n := flag.Int("n", 100_000, "messages to store before measuring")
	dbPath := flag.String("db", "", "database file (default: a new temporary file)")
	keep := flag.Bool("keep", false, "keep the database file afterwards")
	appends := flag.Int("appends", 5000, "appends to time in each append mode")
	runs := flag.Int("runs", 200, "runs of each search query")
	trigram := flag.String("trigram", "cjk", "which messages the trigram index holds: cjk or all")
	flag.Parse()
	log.SetFlags(0)

	path := *dbPath
	if path == "" {
		dir, err := os.MkdirTemp("", "hermes-bench-store-")
		if err != nil {
			log.Fatal(err)
		}
		path = filepath.Join(dir, "state.db")
		if !*keep {
			defer os.RemoveAll(dir)
		}
	}
	ctx := context.Background()
	if *trigram == "all" {
		if err := indexAllInTrigram(ctx, path); err != nil {
			log.Fatal(err)
		}
	} else if *trigram != "cjk" {
		log.Fatalf("-trigram must be cjk or all, not %q", *trigram)
	}
	store, err := sqlite.Open(path, sqlite.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer store.Close()

	corpus := storetest.NewCorpus(1)
	have, err := store.Stats(ctx)
	if err != nil {
		log.Fatal(err)
	}
	if have.Messages < int64(*n) {
		fmt.Printf("== building: %d messages stored, adding %d\n", have.Messages, int64(*n)-have.Messages)
		if err := build(ctx, store, corpus, int(int64(*n)-have.Messages)); err != nil {
			log.Fatal(err)
		}
	}
	st, err := store.Stats(ctx)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("== database: %d sessions, %d messages, %d tool calls; %s\n",
		st.Sessions, st.Messages, st.ToolCalls, sizes(path))

	fmt.Printf("\n== search latency over %d messages (%d runs each, limit 20)\n", st.Messages, *runs)
	for _, q := range queries {
		r, err := measureSearch(ctx, store, q.query, *runs)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%-20s p50 %8s  p95 %8s  (%2d hits; %s)\n",
			q.label, r.p50.Round(10*time.Microsecond), r.p95.Round(10*time.Microsecond), r.hits, q.query)
	}

	// Appends come last, so the searches above see only the built
	// history; they go to new sessions of about 40 messages, as the
	// history's own, so a kept database stays like it.
	fmt.Printf("\n== appends, both indexes (trigram index holds %s rows)\n", *trigram)
	for _, batch := range []int{1, 10} {
		rate, err := measureAppends(ctx, store, corpus, *appends, batch)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%-20s %8.0f messages/s  (%d messages, %d per Append)\n",
			fmt.Sprintf("batch %d", batch), rate, *appends, batch)
	}
	fmt.Printf("database now %s\n", sizes(path))
	if *keep {
		fmt.Printf("\nkept %s\n", path)
	}
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

// sizes reports the database file and its WAL.
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
