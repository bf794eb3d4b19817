package api_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/api"
	"github.com/hermes-go/hermes/internal/cron"
	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/session"
	"github.com/hermes-go/hermes/internal/session/sqlite"
	"github.com/hermes-go/hermes/internal/sqlitedb"
)

// secret is a value the test's redactor knows, as hermes knows its keys.
const secret = "sk-live-0123456789abcdef"

// adminRig is an API server over real session and job stores in a
// temporary state.db.
type adminRig struct {
	srv      *httptest.Server
	sessions *sqlite.Store
	jobs     *cron.Store
	admin    *api.Admin
}

// newAdminRig opens the stores; change admin before calling start.
func newAdminRig(t *testing.T) *adminRig {
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
	jobs, err := cron.NewStore(db, cron.StoreOptions{DefaultZone: "Asia/Shanghai"})
	if err != nil {
		t.Fatal(err)
	}
	rig := &adminRig{sessions: st, jobs: jobs}
	rig.admin = &api.Admin{Sessions: st, Jobs: jobs, DeleteSession: st.Delete,
		RunJob: func(ctx context.Context, name string) (int64, error) {
			// As the engine's: recorded as running, then finished.
			j, err := jobs.Get(ctx, name)
			if err != nil {
				return 0, err
			}
			id, err := jobs.StartRun(ctx, j.Name, j.CreatedAt)
			if err != nil {
				return 0, err
			}
			return id, jobs.FinishRun(ctx, id, cron.RunResult{Output: "ran with " + secret})
		},
		Deliver: []string{"wecom:team-key"},
		Redact:  func(s string) string { return strings.ReplaceAll(s, secret, "[REDACTED]") },
	}
	return rig
}

func (rig *adminRig) start(t *testing.T) {
	rig.srv = newServer(t, api.Options{Keys: []string{"k"}, Models: []string{"gpt-test"}, Admin: rig.admin})
}

// session stores a session of source with one user and one assistant
// message.
func (rig *adminRig) session(t *testing.T, source, user, reply string) string {
	t.Helper()
	ctx := context.Background()
	s := &session.Session{Source: source, Title: "about " + user}
	if err := rig.sessions.Create(ctx, s); err != nil {
		t.Fatal(err)
	}
	msgs := []*session.Message{
		{Message: llm.Message{Role: llm.RoleUser, Content: []llm.Part{llm.TextPart(user)}}},
		{Message: llm.Message{Role: llm.RoleAssistant, Content: []llm.Part{llm.TextPart(reply)}}},
	}
	if err := rig.sessions.Append(ctx, s.ID, msgs...); err != nil {
		t.Fatal(err)
	}
	return s.ID
}

// call sends a request with the key and returns the status and body.
func (rig *adminRig) call(t *testing.T, method, path, body string) (int, string) {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, _ := http.NewRequest(method, rig.srv.URL+path, rd)
	req.Header.Set("Authorization", "Bearer k")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// errorOf reads an error body in OpenAI's shape.
func errorOf(t *testing.T, body string) (msg, typ, param string) {
	t.Helper()
	var e struct {
		Error struct {
			Message string  `json:"message"`
			Type    string  `json:"type"`
			Param   *string `json:"param"`
		} `json:"error"`
	}
	if err := json.Unmarshal([]byte(body), &e); err != nil || e.Error.Message == "" || e.Error.Type == "" {
		t.Fatalf("not an OpenAI error: %s", body)
	}
	if e.Error.Param != nil {
		param = *e.Error.Param
	}
	return e.Error.Message, e.Error.Type, param
}

// unmarshalBody unmarshals a body into v.
func unmarshalBody(t *testing.T, body string, v any) {
	t.Helper()
	if err := json.Unmarshal([]byte(body), v); err != nil {
		t.Fatalf("%v: %s", err, body)
	}
}
