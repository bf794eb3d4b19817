package api_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/api"
	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/session"
)

type sessionList struct {
	Object string            `json:"object"`
	Data   []session.Session `json:"data"`
}

type hitList struct {
	Data []session.Hit `json:"data"`
}

// By default a key sees only the API's own sessions: the id of one held
// on Telegram or at the terminal gets the same 404 as an id that does not
// exist, in get, messages and delete, and never shows in a list or a
// search, CJK included. api.sessions: all opens them.
func TestSessionsOfOtherSourcesAreNotThere(t *testing.T) {
	rig := newAdminRig(t)
	rig.start(t)
	mine := rig.session(t, "api", "invoice 发票 for March", "noted")
	others := map[string]string{
		"telegram": rig.session(t, "telegram", "invoice 发票 from the bank", "ok"),
		"cli":      rig.session(t, "cli", "invoice 发票 in the terminal", "ok"),
	}
	code, body := rig.call(t, "GET", "/v1/sessions", "")
	var list sessionList
	unmarshalBody(t, body, &list)
	if code != http.StatusOK || list.Object != "list" || len(list.Data) != 1 || list.Data[0].ID != mine {
		t.Fatalf("list: %d %s", code, body)
	}
	_, missing := rig.call(t, "GET", "/v1/sessions/20260101_000000_nothere", "")
	wantMsg, _, _ := errorOf(t, missing)
	for src, id := range others {
		for _, req := range [][2]string{{"GET", "/v1/sessions/" + id}, {"GET", "/v1/sessions/" + id + "/messages"}, {"DELETE", "/v1/sessions/" + id}} {
			code, body := rig.call(t, req[0], req[1], "")
			if code != http.StatusNotFound {
				t.Errorf("%s %s of a %s session: %d, want 404: %s", req[0], req[1], src, code, body)
				continue
			}
			msg, _, param := errorOf(t, body)
			if strings.ReplaceAll(msg, id, "ID") != strings.ReplaceAll(wantMsg, "20260101_000000_nothere", "ID") || param != "id" {
				t.Errorf("%s %s of a %s session: %q, not the answer for a session that does not exist (%q)", req[0], req[1], src, msg, wantMsg)
			}
		}
		if _, err := rig.sessions.Get(context.Background(), id); err != nil {
			t.Errorf("the %s session was deleted through the API: %v", src, err)
		}
	}
	for _, q := range []string{"invoice", "发票"} {
		code, body := rig.call(t, "GET", "/v1/sessions/search?q="+url.QueryEscape(q), "")
		var hits hitList
		unmarshalBody(t, body, &hits)
		if code != http.StatusOK || len(hits.Data) == 0 {
			t.Fatalf("search %q: %d %s", q, code, body)
		}
		for _, h := range hits.Data {
			if h.SessionID != mine {
				t.Errorf("search %q found session %s of another source", q, h.SessionID)
			}
		}
	}
	code, body = rig.call(t, "GET", "/v1/sessions?source=telegram", "")
	if msg, _, param := errorOf(t, body); code != http.StatusBadRequest || param != "source" || !strings.Contains(msg, "api.sessions") {
		t.Errorf("listing telegram's sessions: %d %s", code, body)
	}

	rig.admin.AllSources = true
	rig.start(t)
	code, body = rig.call(t, "GET", "/v1/sessions", "")
	unmarshalBody(t, body, &list)
	if code != http.StatusOK || len(list.Data) != 3 {
		t.Errorf("list with api.sessions: all: %d %s", code, body)
	}
	if code, body := rig.call(t, "GET", "/v1/sessions/"+others["telegram"], ""); code != http.StatusOK || !strings.Contains(body, `"source":"telegram"`) {
		t.Errorf("get with api.sessions: all: %d %s", code, body)
	}
	code, body = rig.call(t, "GET", "/v1/sessions/search?q="+url.QueryEscape("发票"), "")
	var hits hitList
	unmarshalBody(t, body, &hits)
	if code != http.StatusOK || len(hits.Data) != 3 {
		t.Errorf("search with api.sessions: all: %d %s", code, body)
	}
}

// A session's messages come in pages: limit at a time after a message
// id, with has_more; bad numbers are refused naming the parameter.
func TestSessionMessagesPages(t *testing.T) {
	rig := newAdminRig(t)
	rig.start(t)
	id := rig.session(t, "api", "one", "two")
	if err := rig.sessions.Append(context.Background(), id, &session.Message{Message: llm.Message{Role: llm.RoleUser, Content: []llm.Part{llm.TextPart("three")}}}); err != nil {
		t.Fatal(err)
	}
	var page struct {
		Data    []session.Message `json:"data"`
		HasMore bool              `json:"has_more"`
	}
	code, body := rig.call(t, "GET", "/v1/sessions/"+id+"/messages?limit=2", "")
	unmarshalBody(t, body, &page)
	if code != http.StatusOK || len(page.Data) != 2 || !page.HasMore || page.Data[0].Text() != "one" {
		t.Fatalf("first page: %d %s", code, body)
	}
	code, body = rig.call(t, "GET", fmt.Sprintf("/v1/sessions/%s/messages?limit=2&after=%d", id, page.Data[1].ID), "")
	unmarshalBody(t, body, &page)
	if code != http.StatusOK || len(page.Data) != 1 || page.HasMore || page.Data[0].Text() != "three" {
		t.Fatalf("second page: %d %s", code, body)
	}
	for _, q := range []string{"limit=0", "limit=x", "limit=1001", "after=-1"} {
		code, body := rig.call(t, "GET", "/v1/sessions/"+id+"/messages?"+q, "")
		name, _, _ := strings.Cut(q, "=")
		if msg, _, param := errorOf(t, body); code != http.StatusBadRequest || param != name || !strings.Contains(msg, "whole number") {
			t.Errorf("%s: %d %s", q, code, body)
		}
	}
	if code, body := rig.call(t, "GET", "/v1/sessions/search?q=%20", ""); code != http.StatusBadRequest || !strings.Contains(body, `"param":"q"`) {
		t.Errorf("an empty search: %d %s", code, body)
	}
}

// Messages are stored as they were said: a key a user pasted, repeated
// by the model or passed in a tool call, is redacted on the way out, in
// the messages, the title and search snippets alike.
func TestSessionSecretsAreRedacted(t *testing.T) {
	rig := newAdminRig(t)
	rig.start(t)
	id := rig.session(t, "api", "my key is "+secret, "I will use "+secret)
	call := &session.Message{Message: llm.Message{Role: llm.RoleAssistant, Reasoning: "the key " + secret,
		ToolCalls: []llm.ToolCall{{ID: "c1", Name: "terminal", Arguments: `{"command":"curl -H 'Authorization: Bearer ` + secret + `' x"}`}}}}
	if err := rig.sessions.Append(context.Background(), id, call); err != nil {
		t.Fatal(err)
	}
	// A search for the secret itself marks its pieces in the snippet;
	// they must not slip past the redactor.
	for _, path := range []string{"/v1/sessions", "/v1/sessions/" + id, "/v1/sessions/" + id + "/messages", "/v1/sessions/search?q=key",
		"/v1/sessions/search?q=sk-live", "/v1/sessions/search?q=" + secret, "/v1/sessions/search?q=0123456789abcdef"} {
		code, body := rig.call(t, "GET", path, "")
		var hits hitList
		unmarshalBody(t, body, &hits)
		for _, h := range hits.Data {
			body += strings.NewReplacer(">>>", "", "<<<", "").Replace(h.Snippet)
		}
		if code != http.StatusOK || strings.Contains(body, secret) || !strings.Contains(body, "[REDACTED]") {
			t.Errorf("GET %s: %d, the secret is not redacted: %s", path, code, body)
		}
	}
}

// A session a turn is running in is not deleted (409, as the runtime
// says); an idle one is, and is gone after.
func TestSessionDelete(t *testing.T) {
	rig := newAdminRig(t)
	busy := rig.session(t, "api", "long job", "working")
	idle := rig.session(t, "api", "short", "done")
	rig.admin.DeleteSession = func(ctx context.Context, id string) error {
		if id == busy {
			return &api.Error{Status: http.StatusConflict, Message: "session " + id + " is running a turn; try again when it has ended"}
		}
		return rig.sessions.Delete(ctx, id)
	}
	rig.start(t)
	if code, body := rig.call(t, "DELETE", "/v1/sessions/"+busy, ""); code != http.StatusConflict || !strings.Contains(body, "running a turn") {
		t.Errorf("deleting a busy session: %d %s", code, body)
	}
	code, body := rig.call(t, "DELETE", "/v1/sessions/"+idle, "")
	if code != http.StatusOK || !strings.Contains(body, `"deleted":true`) {
		t.Fatalf("deleting an idle session: %d %s", code, body)
	}
	if _, err := rig.sessions.Get(context.Background(), idle); !errors.Is(err, session.ErrNotFound) {
		t.Errorf("the deleted session is still there: %v", err)
	}
	if code, _ := rig.call(t, "GET", "/v1/sessions/"+idle, ""); code != http.StatusNotFound {
		t.Errorf("GET of a deleted session: %d", code)
	}
}
