package engine_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/hermes-go/hermes/internal/engine"
	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/llm/llmtest"
	"github.com/hermes-go/hermes/internal/llm/openai"
	"github.com/hermes-go/hermes/internal/session/sqlite"
	"github.com/hermes-go/hermes/internal/sqlitedb"
	"github.com/hermes-go/hermes/internal/tool"
)

// oneModel is engine.Models with a single model, whatever the name.
type oneModel struct{ m engine.Model }

func (o oneModel) Model(string) (engine.Model, error) { return o.m, nil }

// model is the model "m" on srv.
func model(srv *llmtest.Server) oneModel {
	return oneModel{engine.Model{Provider: openai.NewChat(llm.Endpoint{Name: "test", BaseURL: srv.URL() + "/v1", APIKey: "k", Model: "m"}), Name: "m"}}
}

// openStore opens a fresh state.db and the session store over it; the
// other stores a test needs share the returned DB.
func openStore(t *testing.T) (*sqlite.Store, *sqlitedb.DB) {
	t.Helper()
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
	return st, db
}

// registry registers tools in a new registry.
func registry(t *testing.T, tools ...tool.Tool) *tool.Registry {
	t.Helper()
	reg := tool.NewRegistry()
	for _, tl := range tools {
		if err := reg.Register(tl); err != nil {
			t.Fatal(err)
		}
	}
	return reg
}

// soulHome is a hermes home whose SOUL.md says soul, so a test can tell
// which prompt a session was given.
func soulHome(t *testing.T, soul string) string {
	t.Helper()
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, "SOUL.md"), []byte(soul), 0o600); err != nil {
		t.Fatal(err)
	}
	return home
}
