package engine

import (
	"os"
	"path/filepath"
	"testing"
	"unsafe"

	"github.com/hermes-go/hermes/internal/sqlitedb"
	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/llm/llmtest"
	"github.com/hermes-go/hermes/llm/openai"
	"github.com/hermes-go/hermes/session/sqlite"
	"github.com/hermes-go/hermes/tool"
)

// shareModel is Models with the one model of an llmtest server.
type shareModel struct{ srv *llmtest.Server }

func (m shareModel) Model(string) (Model, error) {
	return Model{Provider: openai.NewChat(llm.Endpoint{Name: "test", BaseURL: m.srv.URL() + "/v1", APIKey: "k", Model: "m"}), Name: "m"}, nil
}

// A gateway starts a session per chat, and sessions started alike get
// the same prompt: the engine keeps one copy of its text for all of them,
// not one per session, which a thousand chats would multiply.
func TestSessionsStartedAlikeShareTheirPromptText(t *testing.T) {
	srv := llmtest.New(t)
	srv.Handle(llmtest.Echo)
	db, err := sqlitedb.Open(t.Context(), filepath.Join(t.TempDir(), "state.db"), sqlitedb.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	st, err := sqlite.New(db, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, "SOUL.md"), []byte("You are a test."), 0o600); err != nil {
		t.Fatal(err)
	}
	e := New(Options{Store: st, Models: shareModel{srv}, Tools: Tools{Registry: tool.NewRegistry()}, Prompt: PromptSources{Home: home}})
	t.Cleanup(e.Close)

	var ids []string
	for range 3 {
		res, err := e.Turn(t.Context(), "", Input{Text: "hi"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, res.SessionID)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	first := e.prompts[ids[0]]
	for _, id := range ids[1:] {
		p := e.prompts[id]
		if p != first {
			t.Fatalf("sessions started alike got different prompts:\n%q\n%q", first, p)
		}
		if unsafe.StringData(p) != unsafe.StringData(first) {
			t.Errorf("session %s keeps a copy of its prompt (%d bytes) instead of sharing the text", id, len(p))
		}
	}
}
