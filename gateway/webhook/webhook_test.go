package webhook

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

func sign(secret, body string) string {
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(body))
	return "sha256=" + hex.EncodeToString(mac.Sum(nil))
}

func TestWebhook(t *testing.T) {
	prompt, err := ParsePrompt("gh", `GitHub: {{.action}} on {{.repository.full_name}}`)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var calls []Call
	seen := map[string]bool{}
	h := New(context.Background(), Options{
		Routes: []Route{
			{Name: "gh", Path: "/hooks/github", Auth: AuthGitHub, Secret: "s3cret", Prompt: prompt},
			{Name: "ci", Path: "/hooks/ci", Auth: AuthBearer, Secret: "tok", Prompt: prompt},
			{Name: "open", Path: "/hooks/open", Auth: AuthBearer, Secret: "", Prompt: prompt},
		},
		Seen: func(_ context.Context, route, id string) (bool, error) {
			mu.Lock()
			defer mu.Unlock()
			first := !seen[route+id]
			seen[route+id] = true
			return first, nil
		},
		Run: func(_ context.Context, c Call) {
			mu.Lock()
			defer mu.Unlock()
			calls = append(calls, c)
		},
		MaxBody: 1000,
	})
	body := `{"action":"opened","repository":{"full_name":"acme/api"}}`
	for _, tt := range []struct {
		name, method, path, body string
		hdr                      map[string]string
		want                     int
	}{
		{"signed", "POST", "/hooks/github", body, map[string]string{"X-Hub-Signature-256": sign("s3cret", body), "X-GitHub-Delivery": "d1"}, 202},
		{"redelivered", "POST", "/hooks/github", body, map[string]string{"X-Hub-Signature-256": sign("s3cret", body), "X-GitHub-Delivery": "d1"}, 200},
		{"wrong secret", "POST", "/hooks/github", body, map[string]string{"X-Hub-Signature-256": sign("guess", body)}, 401},
		{"signature of another body", "POST", "/hooks/github", body + " ", map[string]string{"X-Hub-Signature-256": sign("s3cret", body)}, 401},
		{"no signature", "POST", "/hooks/github", body, nil, 401},
		{"sha1 only", "POST", "/hooks/github", body, map[string]string{"X-Hub-Signature": "sha1=00"}, 401},
		{"bearer", "POST", "/hooks/ci", body, map[string]string{"Authorization": "Bearer tok"}, 202},
		{"bearer wrong", "POST", "/hooks/ci", body, map[string]string{"Authorization": "Bearer to"}, 401},
		{"route without a secret", "POST", "/hooks/open", body, map[string]string{"Authorization": "Bearer "}, 401},
		{"GET", "GET", "/hooks/github", "", nil, 405},
		{"unknown path", "POST", "/hooks/other", body, nil, 404},
		{"too large", "POST", "/hooks/ci", strings.Repeat(" ", 2000), map[string]string{"Authorization": "Bearer tok"}, 413},
		{"not JSON", "POST", "/hooks/ci", "{", map[string]string{"Authorization": "Bearer tok"}, 400},
	} {
		req := httptest.NewRequest(tt.method, tt.path, strings.NewReader(tt.body))
		for k, v := range tt.hdr {
			req.Header.Set(k, v)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != tt.want {
			t.Errorf("%s: status %d, want %d (%s)", tt.name, rec.Code, tt.want, rec.Body)
		}
	}
	h.Wait()
	if len(calls) != 2 || calls[0].Prompt != "GitHub: opened on acme/api" || calls[0].ID != "d1" {
		t.Errorf("runs %+v; want the signed call once and the bearer call", calls)
	}
	if calls[1].ID == "" || calls[1].ID == "d1" {
		t.Errorf("a call without a delivery id got id %q, want its body's hash", calls[1].ID)
	}
}
