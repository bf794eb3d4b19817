// Package kb is hermes's knowledge base: documents a person adds —
// Markdown, plain text, HTML, PDF, source code, whole folders and web
// pages — cut into passages that keep where they came from (source,
// heading path, page, lines), stored in state.db beside the sessions and
// searched with BM25 over FTS5, so the agent can answer from the team's
// own documents and cite them.
//
// Ingest is by content hash: a source whose size and modification time
// are unchanged is not read again, one whose bytes are unchanged is not
// chunked again, and an edited one has its chunks replaced in one
// transaction of its own, so a failure costs only that source.
//
// # PostgreSQL
//
// With storage on PostgreSQL (several replicas sharing one database) the
// tables are the same (internal/pgdb/schema_kb.go) and search ranks as
// on SQLite: BM25 computed as FTS5 computes it, over the words of a
// generated tsvector and, for CJK queries, over the chunks pg_trgm finds
// (search_postgres.go); a CJK word of one or two characters, which has
// no trigram, is found by strpos over the CJK chunks and stands for the
// trigrams it begins, as SQLite's trigram vocabulary gives them. Vectors
// are bytea scored in Go on both backends; VectorExtension says whether
// pgvector could be used. Every write transaction first takes one
// advisory lock, so replicas write one after the other, as processes
// sharing state.db do.
package kb
