package webhook

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
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
	// The runs start in goroutines of their own: order them by route.
	slices.SortFunc(calls, func(a, b Call) int { return strings.Compare(a.Route.Name, b.Route.Name) })
	if len(calls) != 2 || calls[1].Route.Name != "gh" || calls[1].Prompt != "GitHub: opened on acme/api" || calls[1].ID != "d1" {
		t.Fatalf("runs %+v; want the signed call once and the bearer call", calls)
	}
	if calls[0].ID == "" || calls[0].ID == "d1" {
		t.Errorf("a call without a delivery id got id %q, want its body's hash", calls[0].ID)
	}
}

// The platforms' own published examples (PLATFORMS.md §10), and what a
// replayed, altered or wrongly keyed call gets.
func TestSignatureVectors(t *testing.T) {
	gh := Route{Auth: AuthGitHub, Secret: "It's a Secret to Everybody"}
	hdr := http.Header{}
	hdr.Set("X-Hub-Signature-256", "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17")
	if !verified(gh, hdr, []byte("Hello, World!"), time.Now()) {
		t.Error("GitHub's example signature is refused")
	}

	std := Route{Auth: AuthStandard, Secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"}
	body := []byte(`{"test": 2432232314}`)
	at := time.Unix(1614265330, 0)
	for _, tt := range []struct {
		name   string
		prefix string // Webhook- or Svix-
		sig    string
		now    time.Time
		body   []byte
		want   bool
	}{
		{"the example", "Webhook-", "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=", at, body, true},
		{"svix headers", "Svix-", "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=", at, body, true},
		{"one of several during rotation", "Webhook-", "v1,AAAA v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=", at, body, true},
		{"replayed ten minutes later", "Webhook-", "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=", at.Add(10 * time.Minute), body, false},
		{"from the future", "Webhook-", "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=", at.Add(-10 * time.Minute), body, false},
		{"another body", "Webhook-", "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=", at, []byte(`{"test": 1}`), false},
		{"the Ed25519 scheme is not HMAC", "Webhook-", "v1a,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=", at, body, false},
	} {
		h := http.Header{}
		h.Set(tt.prefix+"Id", "msg_p5jXN8AQM9LWM0D4loKWxJek")
		h.Set(tt.prefix+"Timestamp", "1614265330")
		h.Set(tt.prefix+"Signature", tt.sig)
		if got := verified(std, h, tt.body, tt.now); got != tt.want {
			t.Errorf("%s: verified = %v, want %v", tt.name, got, tt.want)
		}
	}
	if verified(Route{Auth: AuthStandard, Secret: "whsec_" + "b3RoZXJrZXk="}, func() http.Header {
		h := http.Header{}
		h.Set("Webhook-Id", "msg_p5jXN8AQM9LWM0D4loKWxJek")
		h.Set("Webhook-Timestamp", "1614265330")
		h.Set("Webhook-Signature", "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=")
		return h
	}(), body, at) {
		t.Error("a signature made with another key passed")
	}
}
