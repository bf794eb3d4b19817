// Package facts is hermes's long-term memory of facts: short structured
// records — a preference, a recurring task pattern, a decision, a stable
// fact about the user's environment — distilled from a finished
// conversation by an auxiliary model (Extract) and recalled at the first
// user message of a later one (Recall, Block).
//
// Recalled facts are added to that user message as a marked block rather
// than to the system prompt: the system prompt stays byte-identical from
// one conversation to the next, so the provider's prompt cache keeps
// hitting, and the model reads the facts as background it was handed, not
// as instructions.
//
// # Storage
//
// Facts live in the profile's state.db beside the session store, in a
// table of their own with an FTS5 index (unicode61) over subject and
// content; the tables and their migrations are internal/sqlitedb's
// (schema_facts.go), which opens state.db once for every store in it.
// Writes are BEGIN IMMEDIATE transactions on the process's one writer
// connection, retried with random waits while another process holds the
// lock, as the session store's are.
//
// # Ranking
//
// Search and Recall rank with BM25 computed by the package itself over the
// candidates the index finds (rank.go), not with FTS5's bm25(): FTS5
// clamps the inverse document frequency of a term found in half the rows
// or more to almost zero, and a fact store is small — with three facts,
// a term in two of them scores nothing — so no fixed threshold could tell
// a related message from an unrelated one. Recall's word threshold is on
// coverage: how much of the message's rarest terms a fact matches, a fact
// longer than a sentence weighed by its length.
//
// With an embedding model, each fact's vector is stored with it
// (fact_vectors) and kept in memory a byte per dimension (vectors.go).
// A fact is recalled by meaning when its cosine with the message beats
// the message's cosine with two dozen anchor sentences about nothing in
// particular by a margin (anchors.go): a floor that holds whatever scale
// a model's cosines have. The word and vector rankings are fused by
// reciprocal rank (fuse.go), as the knowledge base fuses its own.
//
// CJK text has no spaces to split words at, so a CJK query is split into
// overlapping two-character terms, which a trigram index cannot look up;
// they are found by one scan of the facts marked as holding CJK text. A
// fact store holds hundreds or thousands of rows, not millions: at
// 10,000 facts a recall takes about 4 ms at the median and 12 ms at the
// 99th percentile by words, 11 and 17 ms with 1,536-dimension vectors
// (BenchmarkRecallLatency), once per conversation.
//
// # PostgreSQL
//
// With storage on PostgreSQL the table is the same
// (internal/pgdb/schema_facts.go), words are found through a generated
// tsvector instead of FTS5; the ranking is this package's on both, so
// both rank alike.
// READ COMMITTED would let two replicas adding one fact both miss the
// other's row, so Add first takes an advisory lock on the owner's facts.
package facts
