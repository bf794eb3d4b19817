package main

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/config"
	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/llm/llmtest"
)

// usersYAML is two tenants: ana and ada (ada their admin) of acme, bob
// of globex, and carol of acme with a budget of one token a day.
func usersYAML() string {
	return `tenants:
  acme: {}
  globex: {}
users:
  ana: {tenant: acme, api_key_sha256: ` + config.HashAPIKey("sk-user-ana-0123456789") + `}
  ada: {tenant: acme, role: admin, api_key_sha256: ` + config.HashAPIKey("sk-user-ada-0123456789") + `}
  bob: {tenant: globex, api_key_sha256: ` + config.HashAPIKey("sk-user-bob-0123456789") + `}
  carol: {tenant: acme, budget: {tokens_per_day: 1}, api_key_sha256: ` + config.HashAPIKey("sk-user-carol-0123456789") + `}
`
}

// TestAPIUsersIsolated is bob, of another tenant, trying every endpoint
// on ana's conversation, response and run: each answers as for ids that
// do not exist, and his lists and searches hold nothing of hers. Ada,
// acme's admin, sees ana's session; the owner's key sees all; a user's
// key cannot touch the jobs; no key is no entry even with no api.keys.
func TestAPIUsersIsolated(t *testing.T) {
	const (
		owner = "sk-hermes-owner-0123456789"
		ana   = "sk-user-ana-0123456789"
		ada   = "sk-user-ada-0123456789"
		bob   = "sk-user-bob-0123456789"
	)
	srv := llmtest.New(t)
	srv.Enqueue(llmtest.Reply{Text: "Noted, ana."}, llmtest.Reply{Text: "A response for ana."}, llmtest.Reply{Text: "A run for ana."})
	_, base := serveAPIWith(t, srv, owner, usersYAML())

	resp := apiPost(t, context.Background(), base, ana, `{"messages":[{"role":"user","content":"the acme merger closes friday"}]}`, "X-Hermes-Session-Id", "new")
	sess := resp.Header.Get("X-Hermes-Session-Id")
	if resp.StatusCode != http.StatusOK || sess == "" {
		t.Fatalf("ana's turn: %d, session %q", resp.StatusCode, sess)
	}
	code, body := apiCall(t, base, ana, "POST", "/v1/responses", `{"input":"summarize the merger"}`)
	var rsp struct{ ID string }
	json.Unmarshal([]byte(body), &rsp)
	if code != http.StatusOK || rsp.ID == "" {
		t.Fatalf("ana's response: %d %s", code, body)
	}
	code, body = apiCall(t, base, ana, "POST", "/v1/runs", `{"input":"run for ana"}`)
	var run struct{ ID string }
	json.Unmarshal([]byte(body), &run)
	if code != http.StatusAccepted || run.ID == "" {
		t.Fatalf("ana's run: %d %s", code, body)
	}

	// The run's events end when the run has: its model call is made.
	if code, body := apiCall(t, base, ana, "GET", "/v1/runs/"+run.ID+"/events", ""); code != http.StatusOK || !strings.Contains(body, "A run for ana.") {
		t.Fatalf("ana's run events: %d %s", code, body)
	}
	calls := len(srv.Requests())
	for _, tc := range []struct{ method, path, body string }{
		{"GET", "/v1/sessions/" + sess, ""},
		{"GET", "/v1/sessions/" + sess + "/messages", ""},
		{"DELETE", "/v1/sessions/" + sess, ""},
		{"GET", "/v1/responses/" + rsp.ID, ""},
		{"DELETE", "/v1/responses/" + rsp.ID, ""},
		{"POST", "/v1/responses", `{"input":"and then?","previous_response_id":"` + rsp.ID + `"}`},
		{"GET", "/v1/runs/" + run.ID, ""},
		{"GET", "/v1/runs/" + run.ID + "/events", ""},
		{"POST", "/v1/runs/" + run.ID + "/stop", ""},
		{"POST", "/v1/runs/" + run.ID + "/approval", `{"approval_id":"x","answer":"once"}`},
		{"POST", "/v1/runs", `{"input":"show me","session_id":"` + sess + `"}`},
	} {
		code, body := apiCall(t, base, bob, tc.method, tc.path, tc.body)
		if tc.path == "/v1/runs" {
			// A run is accepted at once; the session is refused inside
			// it, without a model call (checked below).
			continue
		}
		if code != http.StatusNotFound || strings.Contains(body, "merger") {
			t.Errorf("bob %s %s: %d %s; want 404 as for an unknown id", tc.method, tc.path, code, body)
		}
	}
	resp = apiPost(t, context.Background(), base, bob, `{"messages":[{"role":"user","content":"what closes friday?"}]}`, "X-Hermes-Session-Id", sess)
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("bob continuing ana's session: %d, want 404", resp.StatusCode)
	}
	for _, path := range []string{"/v1/sessions", "/v1/sessions/search?q=merger"} {
		if code, body := apiCall(t, base, bob, "GET", path, ""); code != http.StatusOK || strings.Contains(body, sess) || strings.Contains(body, "merger") {
			t.Errorf("bob GET %s: %d %s", path, code, body)
		}
		if code, body := apiCall(t, base, ada, "GET", path, ""); code != http.StatusOK || !strings.Contains(body, sess) {
			t.Errorf("ada (acme's admin) GET %s: %d %s; want ana's session", path, code, body)
		}
		if code, body := apiCall(t, base, owner, "GET", path, ""); code != http.StatusOK || !strings.Contains(body, sess) {
			t.Errorf("the owner GET %s: %d %s", path, code, body)
		}
	}
	if code, body := apiCall(t, base, ana, "GET", "/v1/jobs", ""); code != http.StatusForbidden {
		t.Errorf("a user's key on the jobs: %d %s, want 403", code, body)
	}
	if code, _ := apiCall(t, base, "", "GET", "/v1/models", ""); code != http.StatusUnauthorized {
		t.Errorf("no key: %d, want 401", code)
	}
	if code, _ := apiCall(t, base, config.HashAPIKey(ana), "GET", "/v1/models", ""); code != http.StatusUnauthorized {
		t.Errorf("the hash of ana's key passed for it: %d", code)
	}
	if n := len(srv.Requests()); n != calls {
		t.Errorf("%d model calls for bob's attempts on ana's things, want none", n-calls)
	}
}

// TestAPIUserOverBudget: once carol has spent her day's tokens, her next
// turn is refused with 429 and a message saying which budget and when it
// resets, before the model is called.
func TestAPIUserOverBudget(t *testing.T) {
	srv := llmtest.New(t)
	srv.Enqueue(llmtest.Reply{Text: "First and last today."})
	const carol = "sk-user-carol-0123456789"
	_, base := serveAPIWith(t, srv, "sk-hermes-owner-0123456789", usersYAML())
	if resp := apiPost(t, context.Background(), base, carol, `{"messages":[{"role":"user","content":"hello"}]}`); resp.StatusCode != http.StatusOK {
		t.Fatalf("first turn: %d", resp.StatusCode)
	}
	code, body := apiCall(t, base, carol, "POST", "/v1/chat/completions", `{"messages":[{"role":"user","content":"again"}]}`)
	if code != http.StatusTooManyRequests || !strings.Contains(body, "users.carol.budget.tokens_per_day") || !strings.Contains(body, "00:00 UTC") {
		t.Errorf("over budget: %d %s", code, body)
	}
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("%d model calls, want 1", n)
	}
}

// TestDashboardNeedsAnOwnerKeyWithUsers: with users configured and no
// owner key, the dashboard (every user's sessions and costs) is not
// served on the loopback listener, where it would open without a login
// to any user who reaches it; a user's key does not open it either.
func TestDashboardNeedsAnOwnerKeyWithUsers(t *testing.T) {
	srv := llmtest.New(t)
	_, base := serveAPIWith(t, srv, "", usersYAML())
	for _, key := range []string{"", "sk-user-ada-0123456789"} {
		code, body := apiCall(t, base, key, "GET", "/ui/sessions", "")
		if code == http.StatusOK || strings.Contains(body, "<html") {
			t.Errorf("key %q: /ui answered %d:\n%.300s", key, code, body)
		}
	}
}

// TestAPITenantApprovalMode: a dangerous command in an API turn is denied
// (nobody to ask) for a user of a tenant on the default mode, and runs
// for one whose tenant's approval_mode is off: the operator's choice per
// tenant. The audit log says which.
func TestAPITenantApprovalMode(t *testing.T) {
	const (
		strict = "sk-user-sam-0123456789"
		loose  = "sk-user-lou-0123456789"
	)
	srv := llmtest.New(t)
	h, base := serveAPIWith(t, srv, "sk-hermes-owner-0123456789", `tenants:
  careful: {toolsets: [terminal]}
  trusting: {toolsets: [terminal], approval_mode: "off"}
users:
  sam: {tenant: careful, api_key_sha256: `+config.HashAPIKey(strict)+`}
  lou: {tenant: trusting, api_key_sha256: `+config.HashAPIKey(loose)+`}
`)
	for _, c := range []struct {
		key, marker string
		runs        bool
	}{{strict, "sam-cleaned", false}, {loose, "lou-cleaned", true}} {
		marker := filepath.Join(h.dir, c.marker)
		srv.Enqueue(llmtest.Reply{ToolCalls: []llm.ToolCall{terminalCall("rm -rf " + filepath.Join(h.dir, "nothing") + " && touch " + marker)}},
			llmtest.Reply{Text: "done"})
		if resp := apiPost(t, context.Background(), base, c.key, `{"messages":[{"role":"user","content":"clean up"}]}`); resp.StatusCode != http.StatusOK {
			t.Fatalf("turn: %d", resp.StatusCode)
		}
		_, err := os.Stat(marker)
		if ran := err == nil; ran != c.runs {
			t.Errorf("%s: the dangerous command ran %v, want %v", c.marker, ran, c.runs)
		}
	}
	r := h.hermes("audit", "--json", "--tool", "terminal")
	if !strings.Contains(r.stdout, `"approval": "off"`) || !strings.Contains(r.stdout, `"approval": "denied"`) {
		t.Errorf("audit: %s %s", r.stdout, r.stderr)
	}
}

// TestAPIViewerCannotApprove: a viewer's own run asks about a dangerous
// command, and the viewer's "once" is refused with 403, the command not
// run; "deny" is taken.
func TestAPIViewerCannotApprove(t *testing.T) {
	const vera = "sk-user-vera-0123456789"
	srv := llmtest.New(t)
	h, base := serveAPIWith(t, srv, "sk-hermes-owner-0123456789", `tenants:
  acme: {toolsets: [terminal]}
users:
  vera: {tenant: acme, role: viewer, api_key_sha256: `+config.HashAPIKey(vera)+`}
`)
	marker := filepath.Join(h.dir, "cleaned")
	srv.Enqueue(llmtest.Reply{ToolCalls: []llm.ToolCall{terminalCall("rm -rf " + filepath.Join(h.dir, "nothing") + " && touch " + marker)}},
		llmtest.Reply{Text: "not done"})
	code, body := apiCall(t, base, vera, "POST", "/v1/runs", `{"input":"clean up"}`)
	var run struct{ ID string }
	if json.Unmarshal([]byte(body), &run); code != http.StatusAccepted || run.ID == "" {
		t.Fatalf("run: %d %s", code, body)
	}
	var view struct {
		PendingApprovals []struct {
			ApprovalID string `json:"approval_id"`
		} `json:"pending_approvals"`
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for len(view.PendingApprovals) == 0 {
		select {
		case <-ctx.Done():
			t.Fatal("the run never asked for approval")
		case <-tick.C:
		}
		_, body := apiCall(t, base, vera, "GET", "/v1/runs/"+run.ID, "")
		json.Unmarshal([]byte(body), &view)
	}
	id := view.PendingApprovals[0].ApprovalID
	if code, body := apiCall(t, base, vera, "POST", "/v1/runs/"+run.ID+"/approval", `{"approval_id":"`+id+`","answer":"once"}`); code != http.StatusForbidden {
		t.Errorf("a viewer's once: %d %s, want 403", code, body)
	}
	if code, body := apiCall(t, base, vera, "POST", "/v1/runs/"+run.ID+"/approval", `{"approval_id":"`+id+`","answer":"deny"}`); code != http.StatusOK {
		t.Errorf("a viewer's deny: %d %s", code, body)
	}
	if code, body := apiCall(t, base, vera, "GET", "/v1/runs/"+run.ID+"/events", ""); code != http.StatusOK || !strings.Contains(body, "not done") {
		t.Errorf("the run's end: %d %s", code, body)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("the command ran")
	}
	// The audit log says who answered: the viewer's own key.
	if r := h.hermes("audit", "--json", "--tool", "terminal"); !strings.Contains(r.stdout, `"approval": "denied"`) || !strings.Contains(r.stdout, `"approved_by": "user vera (API key)"`) {
		t.Errorf("audit: %s %s", r.stdout, r.stderr)
	}
}
