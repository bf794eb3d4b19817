package main

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"time"

	"github.com/hermes-go/hermes/internal/session"
	"github.com/hermes-go/hermes/internal/session/sqlite"
	"github.com/hermes-go/hermes/internal/session/storetest"
)

// build adds about n messages, one session at a time; each session's
// turns go in one Append, the batched insert a history import would use.
func build(ctx context.Context, store store, corpus *storetest.Corpus, n int) error {
	start := time.Now()
	done, next := 0, 100_000
	for done < n {
		sess := corpus.NewSession()
		if err := store.Create(ctx, sess); err != nil {
			return fmt.Errorf("build: %w", err)
		}
		var msgs []*session.Message
		for range 3 + len(sess.Title)%10 {
			msgs = append(msgs, corpus.Turn()...)
		}
		if err := store.Append(ctx, sess.ID, msgs...); err != nil {
			return fmt.Errorf("build: %w", err)
		}
		done += len(msgs)
		if done >= next {
			fmt.Printf("  %8d messages, %6.0f messages/s\n", done, float64(done)/time.Since(start).Seconds())
			next += 100_000
		}
	}
	fmt.Printf("  built %d messages in %s (%.0f messages/s)\n", done, time.Since(start).Round(time.Second),
		float64(done)/time.Since(start).Seconds())
	return nil
}

// measureAppends times appending total generated messages, batch per
// Append, to new sessions of about 40 messages, and returns messages per
// second. Generating the messages is not timed.
func measureAppends(ctx context.Context, store store, corpus *storetest.Corpus, total, batch int) (float64, error) {
	type chunk struct {
		session string
		msgs    []*session.Message
	}
	var chunks []chunk
	for n := 0; n < total; {
		sess := corpus.NewSession()
		if err := store.Create(ctx, sess); err != nil {
			return 0, err
		}
		var msgs []*session.Message
		for len(msgs) < 40 {
			msgs = append(msgs, corpus.Turn()...)
		}
		msgs = msgs[:min(len(msgs), total-n)]
		n += len(msgs)
		for i := 0; i < len(msgs); i += batch {
			chunks = append(chunks, chunk{sess.ID, msgs[i:min(i+batch, len(msgs))]})
		}
	}
	start := time.Now()
	for _, c := range chunks {
		if err := store.Append(ctx, c.session, c.msgs...); err != nil {
			return 0, err
		}
	}
	return float64(total) / time.Since(start).Seconds(), nil
}

type latency struct {
	p50, p95, p99 time.Duration
	hits          int
}

// measureSearch runs query runs times after a short warm-up and returns
// the median and the 95th and 99th percentile latency.
func measureSearch(ctx context.Context, store store, query string, runs int) (latency, error) {
	var r latency
	times := make([]time.Duration, runs)
	for i := -3; i < runs; i++ {
		start := time.Now()
		hits, err := store.Search(ctx, query, session.SearchOptions{})
		if err != nil {
			return r, fmt.Errorf("search %q: %w", query, err)
		}
		if i >= 0 {
			times[i] = time.Since(start)
		}
		r.hits = len(hits)
	}
	slices.Sort(times)
	r.p50 = times[len(times)/2]
	r.p95 = times[len(times)*95/100]
	r.p99 = times[len(times)*99/100]
	return r, nil
}

// indexAllInTrigram prepares a new database whose trigram index holds
// every message: it lets the store create the schema, then replaces the
// trigram triggers with unconditional ones. Only for measuring the
// alternative; the store's searches still assume CJK-only rows there.
func indexAllInTrigram(ctx context.Context, path string) error {
	store, err := sqlite.Open(path, sqlite.Options{})
	if err != nil {
		return err
	}
	st, err := store.Stats(ctx)
	store.Close()
	if err != nil {
		return err
	}
	if st.Messages > 0 {
		return fmt.Errorf("-trigram all needs a new database; %s has messages", path)
	}
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		return err
	}
	defer db.Close()
	_, err = db.ExecContext(ctx, `
DROP TRIGGER messages_fts_trigram_insert;
DROP TRIGGER messages_fts_trigram_delete;
CREATE TRIGGER messages_fts_trigram_insert AFTER INSERT ON messages BEGIN
	INSERT INTO messages_fts_trigram(rowid, content, tool_name, tool_calls)
	VALUES (new.id, new.content, new.tool_name, new.tool_calls);
END;
CREATE TRIGGER messages_fts_trigram_delete AFTER DELETE ON messages BEGIN
	INSERT INTO messages_fts_trigram(messages_fts_trigram, rowid, content, tool_name, tool_calls)
	VALUES ('delete', old.id, old.content, old.tool_name, old.tool_calls);
END;`)
	if err != nil {
		return fmt.Errorf("replace trigram triggers: %w", err)
	}
	return nil
}
