package main

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/llm/llmtest"
	"github.com/hermes-go/hermes/internal/pgtest"
)

// TestServeOnPostgres: with storage.driver: postgres, hermes serve keeps
// its sessions in PostgreSQL: a turn through the API is stored there,
// and the CLI of another home with the same storage: lists and reads it.
func TestServeOnPostgres(t *testing.T) {
	dsn := pgtest.NewDatabase(t)
	srv := llmtest.New(t)
	srv.Enqueue(llmtest.Reply{Text: "stored in postgres"})
	storage := "storage: {driver: postgres, dsn: '" + dsn + "'}\n"
	_, base := serveAPIWith(t, srv, "k-123456789", storage)

	req, _ := http.NewRequest("POST", base+"/v1/chat/completions", strings.NewReader(`{"model":"hermes","messages":[{"role":"user","content":"where are you kept?"}]}`))
	req.Header.Set("Authorization", "Bearer k-123456789")
	req.Header.Set("X-Hermes-Session-Id", "new")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct {
		Choices []struct {
			Message struct{ Content string } `json:"message"`
		} `json:"choices"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || resp.StatusCode != 200 || len(out.Choices) != 1 || out.Choices[0].Message.Content != "stored in postgres" {
		t.Fatalf("chat completion: %d %+v %v", resp.StatusCode, out, err)
	}
	id := resp.Header.Get("X-Hermes-Session-Id")

	other := newHome(t)
	other.write("config.yaml", storage)
	r := other.hermes("sessions", "list")
	if r.code != 0 || !strings.Contains(r.stdout, id) {
		t.Fatalf("sessions list on the same database: %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	r = other.hermes("sessions", "show", id)
	if r.code != 0 || !strings.Contains(r.stdout, "where are you kept?") || !strings.Contains(r.stdout, "stored in postgres") {
		t.Errorf("sessions show on the same database: %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(other.dir, "state.db")); err == nil {
		t.Errorf("a home on PostgreSQL made a state.db")
	}

	// hermes doctor of the other home checks the database and sees the
	// serving replica, whose config.yaml differs from this home's.
	r = other.hermes("doctor", "--offline")
	for _, want := range []string{"PostgreSQL", "every schema current", "replicas run different configurations", "this home's files hash to"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("hermes doctor does not say %q:\n%s%s", want, r.stdout, r.stderr)
		}
	}
}
