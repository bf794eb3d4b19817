package logctx

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"testing"
)

// TestHandler: a line logged with a context gets its attributes, a key
// the line sets itself wins, a later With replaces an earlier key, and
// empty strings are left out.
func TestHandler(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(Handler(slog.NewJSONHandler(&buf, nil)))
	ctx := With(context.Background(), slog.String("session_id", "s1"), slog.String("user", ""), slog.String("platform", "telegram"))
	ctx = With(ctx, slog.String("turn_id", "t1"), slog.String("platform", "slack"))
	log.InfoContext(ctx, "tool call", slog.String("tool", "terminal"), slog.String("session_id", "own"))
	var got map[string]any
	if err := json.Unmarshal(buf.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"tool": "terminal", "session_id": "own", "turn_id": "t1", "platform": "slack"}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %v, want %v (line %s)", k, got[k], v, buf.String())
		}
	}
	if _, ok := got["user"]; ok {
		t.Errorf("an empty user was logged: %s", buf.String())
	}
	buf.Reset()
	log.Info("no context")
	if bytes.Contains(buf.Bytes(), []byte("turn_id")) {
		t.Errorf("a line without the context got its attributes: %s", buf.String())
	}
}
