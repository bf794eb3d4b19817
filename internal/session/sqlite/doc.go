// Package sqlite is the default session.Store: one SQLite file (WAL mode)
// shared by the daemon, cron runs and any number of CLI processes, with
// two FTS5 indexes over the messages so past conversations can be found
// by word, by substring and in Chinese.
//
// # Writing
//
// Every write is one BEGIN IMMEDIATE transaction on the process's single
// writer connection, retried with random waits while another process
// holds the lock (sqlitedb.DB.WriteTx). The tables and their migrations
// are internal/sqlitedb's (schema_sessions.go), which opens state.db once
// for every store in it. Append inserts all its messages with one
// statement and does not index them: FTS5 writes a new index segment at
// every commit that indexes anything, which made indexing most of what an
// append cost. Messages are indexed in batches (index.go): by the append
// that completes a batch of 64, before every search, and at Close; a
// message is stored for good when its append commits, and searchable no
// later than the next search.
//
// # Searching
//
// Words go through messages_fts (unicode61). A query with CJK goes
// through messages_fts_trigram, whose 1–2 character terms, having no
// trigram of their own, are found through the trigram vocabulary or by a
// scan, whichever is cheaper (trigram.go). A query the word index cannot
// answer tries its words as prefixes, then a LIKE scan of the newest
// scanWindow messages finds it as a substring.
//
// The trigram index holds only messages with CJK text (about a quarter of
// the generated history). Indexing every message there more than halved
// append throughput (single appends 1,500 against 3,000–3,700 messages/s,
// batches of ten 4,100–4,600 against 9,400–10,000) and nearly doubled
// the file (47.6 against 25.8 MB at 26,000 messages; go run ./bench/store
// -n 20000 -trigram all), for one benefit: Latin substrings inside words,
// which the bounded scan answers instead. A word or a word's beginning,
// the usual Latin queries, the word index answers.
//
// Ranking does not use FTS5's bm25(): before ranking, it counts every
// message holding each term, about 80 ns a message here, so ranking
// "kubernetes" (2.9% of a million messages) took 52 ms, "error" (17%)
// 820 ms, and a search inside one session 1.3 s. The store instead takes
// the newest rankWindow matches, which FTS5 yields in rowid order within
// a millisecond, and scores them itself with BM25 (rank.go), document
// frequencies and lengths taken over those candidates: best first among
// the recent matches, and among all of them when there are fewer. Ties go
// to the newest. Snippets are cut in Go from the candidates' text
// (snippet.go): snippet() would take a second FTS5 pass (2.7 ms for 20
// rows) and cannot mark the 1–2 character terms on the trigram index.
//
// # Figures
//
// go run ./bench/store on the project's shared 2-core test machine
// (timings vary by a third from run to run there), generated history of
// ~400-byte messages, 30% of sessions in Chinese; search limit 20, p50 /
// p95 in ms:
//
//	                          120,009 msgs   1,056,025 msgs
//	                          (127 MB)       (1.02 GB)
//	word        kubernetes    1.74 / 2.36    2.63 / 3.66
//	CJK 4 chars 性能优化      2.17 / 3.04    3.17 / 3.65
//	CJK 2 chars 迁移          0.86 / 1.32    1.09 / 2.00
//	CJK 2 chars 退款          1.34 / 1.76    1.85 / 2.45
//	two words                 2.12 / 2.70    1.95 / 2.55
//	common word error (17%)   2.63 / 3.70    2.64 / 3.16
//	rare CJK 2 chars 鲸鱼     0.06 / 0.09    0.07 / 0.10
//	Latin substring ubernete  0.35 / 0.50    0.31 / 0.62
//	no match at all           64 / 80        67 / 92 (the bounded scan)
//
// Appends with both indexes, messages/s: one message per Append
// 2,700–4,000, ten per Append 6,000–11,500, at either size. The
// project's budget of 20,000 is out of reach of a synchronous design
// here: without either full-text index the same appends ran at 13,000
// and 55,000, and indexing alone, even in bulk batches of 1,000–5,000
// messages, ran at 21,000–26,000 (FTS5's tokenizing, segment flushes and
// merges, in modernc's translated C), so append and index together stay
// below 20,000. A background indexer behind a watermark would let bursts
// of batched appends pass it, at the price of a message not being
// searchable the moment Append returns; the store does not do that.
package sqlite
