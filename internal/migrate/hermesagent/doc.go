// Package hermesagent brings a Hermes Agent home's history into hermes:
// the sessions and messages of its state.db (sessions.go), read-only, into
// a session store. Hermes's files are never written; running the import
// again imports nothing twice, and an import cut off (a crash, Ctrl-C) is
// completed by the next run.
//
// Hermes's state.db is the one of hermes_state.py at its schema version
// 22 (testdata/state_v22.sql is its DDL): times are REAL seconds since the
// epoch, tool calls are OpenAI-style JSON on the assistant row, tool
// results are role 'tool' rows naming the call, and rows a rewind or an
// in-place compaction retired are active = 0.
package hermesagent
