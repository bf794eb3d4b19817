package session_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/session"
	"github.com/hermes-go/hermes/internal/tool"
)

// TestSearchToolKeepsToTheUser is the attack of one user's model (or a
// prompt injected into it) reading another user's chats: searching,
// listing recent sessions and reading a session by its id. Each finds
// the user's own sessions alone; another's id gets the same not-found as
// an id that does not exist.
func TestSearchToolKeepsToTheUser(t *testing.T) {
	s := openTestStore(t)
	ctx := t.Context()
	mk := func(user, tenant, text string) *session.Session {
		sess := &session.Session{Source: "telegram", User: user, Tenant: tenant, Title: "chat of " + user}
		if err := s.Create(ctx, sess); err != nil {
			t.Fatal(err)
		}
		if err := s.Append(ctx, sess.ID, &session.Message{Message: llm.UserMessage(text)}); err != nil {
			t.Fatal(err)
		}
		return sess
	}
	ana := mk("ana", "acme", "the vault password is in the red binder")
	bob := mk("bob", "globex", "the vault password is hunter2")
	mk("", "", "the owner's vault notes")
	st := session.NewSearchTool(s)
	call := func(args string) (string, error) {
		ictx := tool.WithInvocation(ctx, tool.Invocation{SessionID: "current", User: "ana", Tenant: "acme"})
		out, err := st.Call(ictx, json.RawMessage(args))
		b, _ := json.Marshal(out)
		return string(b), err
	}
	for _, args := range []string{`{"query":"vault password"}`, `{"query":"hunter2"}`, `{"query":"aul"}`, `{}`} {
		out, err := call(args)
		if err != nil {
			t.Fatalf("%s: %v", args, err)
		}
		if strings.Contains(out, bob.ID) || strings.Contains(out, "is hunter2") || strings.Contains(out, "owner's vault") {
			t.Errorf("%s reached another's session: %s", args, out)
		}
	}
	if out, _ := call(`{"query":"vault"}`); !strings.Contains(out, ana.ID) {
		t.Errorf("ana's own session is not found: %s", out)
	}
	_, errOther := call(`{"session_id":"` + bob.ID + `"}`)
	_, errNone := call(`{"session_id":"20260101_000000_abcdef"}`)
	_, errQuery := call(`{"session_id":"` + bob.ID + `","query":"vault"}`)
	for _, err := range []error{errOther, errNone, errQuery} {
		if err == nil || !strings.Contains(err.Error(), "no session") {
			t.Errorf("reading another's session: %v, want not found", err)
		}
	}
}
