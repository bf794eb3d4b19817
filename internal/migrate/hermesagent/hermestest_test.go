package hermesagent

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// hermesHome is a Hermes state.db built the way Hermes builds it: its DDL
// at schema version 22, then sessions and messages inserted with the
// statements hermes_state.py runs. What it holds is counted as it is
// written, for the tests to compare the import with.
type hermesHome struct {
	path string
	db   *sql.DB
	// sessions, messages and calls count the rows written (live messages
	// only) and the tool calls in them.
	sessions, messages, calls int
	now                       float64
}

func newHermesHome(t testing.TB) *hermesHome {
	t.Helper()
	ddl, err := os.ReadFile("../../config/testdata/hermes/state_v22.sql")
	if err != nil {
		t.Fatal(err)
	}
	h := &hermesHome{path: filepath.Join(t.TempDir(), "state.db"), now: 1752850000.123456}
	if h.db, err = sql.Open("sqlite", h.path); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.db.Close() })
	if _, err := h.db.Exec(string(ddl) + ";PRAGMA journal_mode=WAL"); err != nil {
		t.Fatal(err)
	}
	return h
}

// session writes a session as create_session does, and ends it.
func (h *hermesHome) session(t testing.TB, id, source, parent, title string, ended string) {
	t.Helper()
	h.now += 60
	var p, ti any
	if parent != "" {
		p = parent
	}
	if title != "" {
		ti = title
	}
	cfg, _ := json.Marshal(map[string]any{"max_iterations": 90, "reasoning_config": nil, "max_tokens": nil})
	if _, err := h.db.Exec(`INSERT INTO sessions (
                   id, source, user_id, session_key, chat_id, chat_type, thread_id,
                   model, model_config, system_prompt, parent_session_id, cwd, profile_name, started_at
                )
                   VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		id, source, nil, nil, nil, nil, nil, "anthropic/claude-sonnet-4", string(cfg), "You are Hermes.", p, "/home/u/proj", nil, h.now); err != nil {
		t.Fatal(err)
	}
	if _, err := h.db.Exec(`UPDATE sessions SET title = ?, input_tokens = 1200, output_tokens = 340, estimated_cost_usd = 0.0123 WHERE id = ?`, ti, id); err != nil {
		t.Fatal(err)
	}
	if ended != "" {
		if _, err := h.db.Exec(`UPDATE sessions SET ended_at = ?, end_reason = ? WHERE id = ? AND ended_at IS NULL`, h.now+50, ended, id); err != nil {
			t.Fatal(err)
		}
	}
	h.sessions++
}

// message writes a message as append_message does; active 0 is a row a
// rewind retired.
func (h *hermesHome) message(t testing.TB, sid, role, content, callID, calls, toolName, reasoning string, active int) {
	t.Helper()
	h.now += 0.5
	null := func(s string) any {
		if s == "" {
			return nil
		}
		return s
	}
	var finish any
	if calls != "" {
		finish = "tool_calls"
	}
	if _, err := h.db.Exec(`INSERT INTO messages (session_id, role, content, tool_call_id,
                   tool_calls, tool_name, effect_disposition, timestamp, token_count, finish_reason,
                   reasoning, reasoning_content, reasoning_details, codex_reasoning_items,
                   codex_message_items, platform_message_id, observed, active)
                   VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		sid, role, content, null(callID), null(calls), null(toolName), nil, h.now, nil, finish,
		null(reasoning), nil, nil, nil, nil, nil, 0, active); err != nil {
		t.Fatal(err)
	}
	if active == 1 {
		h.messages++
		if calls != "" {
			var cs []any
			json.Unmarshal([]byte(calls), &cs)
			h.calls += len(cs)
		}
	}
}

// conversation writes a session of n exchanges, each a question, a tool
// call and its result, and an answer; CJK text in every third session.
func (h *hermesHome) conversation(t testing.TB, id, parent string, n int, cjk bool) {
	t.Helper()
	title := ""
	if parent == "" {
		title = "session " + id
	}
	end := "cli_close"
	if n%4 == 0 {
		end = "compression"
	}
	h.session(t, id, []string{"cli", "telegram", "cron", "api_server"}[n%4], parent, title, end)
	for i := range n {
		q := fmt.Sprintf("question %d about deploy-%s", i, id)
		if cjk && i%2 == 0 {
			q = fmt.Sprintf("第%d个问题：部署脚本在哪里？编号%s", i, id)
		}
		call := fmt.Sprintf("call_%s_%d", id, i)
		calls := fmt.Sprintf(`[{"id": %q, "call_id": %q, "response_item_id": "fc_%d", "type": "function", "function": {"name": "terminal", "arguments": "{\"command\": \"ls -la /srv/%d\"}"}}]`, call, call, i, i)
		h.message(t, id, "user", q, "", "", "", "", 1)
		h.message(t, id, "assistant", "", "", calls, "", "I should list the directory.", 1)
		h.message(t, id, "tool", fmt.Sprintf(`{"output": "deploy.sh %d"}`, i), call, "", "terminal", "", 1)
		h.message(t, id, "assistant", fmt.Sprintf("The script is deploy.sh (%d).", i), "", "", "", "", 1)
	}
	// A turn a rewind took back: not part of the conversation.
	h.message(t, id, "user", "never mind", "", "", "", "", 0)
}
