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
package kb
