package main

import (
	"bufio"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/llm/llmtest"
)

// Through the real binary: a GitHub-signed payload runs a turn whose
// answer reaches the local delivery; a call with a bad signature gets 401
// and reaches no model.
func TestGatewayWebhookGitHub(t *testing.T) {
	h := newHome(t)
	srv := llmtest.New(t)
	srv.Enqueue(llmtest.Reply{Text: "PR 7 in acme/api looks fine."})
	h.write(".env", "GITHUB_WEBHOOK_SECRET=s3cret-value\n")
	h.write("config.yaml", `model: {base_url: "`+srv.URL()+`/v1", default: test-model, api_mode: chat_completions, api_key: sk-test-123456}
memory: {long_term: false}
gateway:
  webhook:
    listen: 127.0.0.1:0
    routes:
      github:
        path: /hooks/github
        auth: github
        secret: ${GITHUB_WEBHOOK_SECRET}
        prompt: "Review {{.action}} pull request {{.number}} in {{.repository.full_name}}."
        deliver: [local]
`)
	cmd := exec.Command(hermesBin, "serve")
	cmd.Env, cmd.Dir = h.env, h.dir
	stdout, _ := cmd.StdoutPipe()
	stderr, _ := cmd.StderrPipe()
	var logs syncBuffer
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Serve's JSON log says when an answer was delivered.
	delivered := make(chan struct{})
	go func() {
		var once sync.Once
		lines := bufio.NewScanner(stderr)
		for lines.Scan() {
			logs.Write(append(lines.Bytes(), '\n'))
			if strings.Contains(lines.Text(), `"msg":"notify: delivered"`) {
				once.Do(func() { close(delivered) })
			}
		}
	}()
	t.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		cmd.Wait()
		if t.Failed() {
			t.Logf("serve's log:\n%s", logs.String())
		}
	})
	var base string
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		if u, ok := strings.CutPrefix(sc.Text(), "gateway: webhooks on "); ok {
			base = u
			break
		}
	}
	go func() {
		for sc.Scan() {
		}
	}()
	if base == "" {
		t.Fatalf("serve did not say where webhooks listen\n%s", logs.String())
	}
	body := `{"action":"opened","number":7,"repository":{"full_name":"acme/api"}}`
	post := func(sig string) int {
		req, _ := http.NewRequest("POST", base+"/hooks/github", strings.NewReader(body))
		req.Header.Set("X-Hub-Signature-256", sig)
		req.Header.Set("X-GitHub-Delivery", "72d3162e")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if code := post("sha256=" + strings.Repeat("0", 64)); code != http.StatusUnauthorized {
		t.Errorf("a bad signature got %d, want 401", code)
	}
	mac := hmac.New(sha256.New, []byte("s3cret-value"))
	mac.Write([]byte(body))
	if code := post("sha256=" + hex.EncodeToString(mac.Sum(nil))); code != http.StatusAccepted {
		t.Fatalf("the signed call got %d, want 202", code)
	}
	select {
	case <-delivered:
	case <-time.After(20 * time.Second):
		t.Fatal("the answer was never delivered")
	}
	files, _ := filepath.Glob(filepath.Join(h.dir, "deliveries", "*"))
	found := false
	for _, f := range files {
		if b, _ := os.ReadFile(f); strings.Contains(string(b), "PR 7 in acme/api looks fine.") {
			found = true
		}
	}
	if !found {
		t.Errorf("no file in deliveries/ holds the answer: %v", files)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d model calls, want 1: the unsigned call must reach no model", len(reqs))
	}
	last := reqs[0].Messages[len(reqs[0].Messages)-1].Text()
	if !strings.Contains(last, "Review opened pull request 7 in acme/api.") {
		t.Errorf("the prompt was %q", last)
	}
	for _, tool := range reqs[0].Tools {
		if tool.Name == "terminal" || tool.Name == "write_file" {
			t.Errorf("a webhook's turn was offered %s", tool.Name)
		}
	}
}
