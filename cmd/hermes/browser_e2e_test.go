package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/llm/llmtest"
)

func TestChatBrowser(t *testing.T) {
	if _, err := exec.LookPath("chromium"); err != nil {
		t.Skip("SKIPPED: the browser test needs Chromium, which is missing: run scripts/install-test-deps.sh (or apt-get install chromium)")
	}
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/second" {
			fmt.Fprint(w, `<html><head><title>Second</title></head><body><p>second page</p></body></html>`)
			return
		}
		fmt.Fprint(w, `<html><head><title>Greeter</title></head><body><h1>Greeter</h1><script>console.log("greeter ready")</script>
<input id="name" placeholder="Your name"><button onclick="document.getElementById('out').textContent='Hello, '+document.getElementById('name').value">Greet</button>
<p id="out">nobody greeted yet</p></body></html>`)
	}))
	defer site.Close()
	h := newHome(t)
	h.write("config.yaml", "security:\n  allow_private_urls: true\n")
	srv := llmtest.New(t)
	srv.Enqueue(
		llmtest.Reply{ToolCalls: []llm.ToolCall{{Name: "browser_navigate", Arguments: fmt.Sprintf(`{"url":%q}`, site.URL)}}},
		llmtest.Reply{ToolCalls: []llm.ToolCall{{Name: "browser_type", Arguments: `{"ref":"@e1","text":"Ada"}`}}},
		llmtest.Reply{ToolCalls: []llm.ToolCall{{Name: "browser_click", Arguments: `{"ref":"@e2"}`}}},
		llmtest.Reply{ToolCalls: []llm.ToolCall{{Name: "browser_screenshot", Arguments: `{}`}}},
		llmtest.Reply{ToolCalls: []llm.ToolCall{
			{Name: "browser_press", Arguments: `{"key":"Tab"}`},
			{Name: "browser_scroll", Arguments: `{"direction":"down"}`},
			{Name: "browser_console", Arguments: `{}`},
			{Name: "browser_navigate", Arguments: fmt.Sprintf(`{"url":%q}`, site.URL+"/second")},
		}},
		llmtest.Reply{ToolCalls: []llm.ToolCall{{Name: "browser_back", Arguments: `{}`}}},
		llmtest.Reply{ToolCalls: []llm.ToolCall{{Name: "browser_snapshot", Arguments: `{}`}}},
		llmtest.Reply{Text: "Greeted Ada."},
	)
	out, r := h.chatIn(srv, t.TempDir(), "greet Ada on the page")
	if r.code != 0 || out.Final != "Greeted Ada." {
		t.Fatalf("exit %d, %+v\n%s", r.code, out, r.stderr)
	}
	if nav := lastToolResult(t, srv, 1); !strings.Contains(nav, `placeholder=\"Your name\"`) || !strings.Contains(nav, "[ref=@e1]") {
		t.Errorf("navigate snapshot: %s", nav)
	}
	if click := lastToolResult(t, srv, 3); !strings.Contains(click, "Hello, Ada") {
		t.Errorf("after the click the page does not greet Ada: %s", click)
	}
	msgs := srv.Requests()[4].Messages
	shot, image := msgs[len(msgs)-2], msgs[len(msgs)-1]
	if shot.Role != llm.RoleTool || !strings.Contains(shot.Text(), `"status":"ok"`) || strings.Contains(shot.Text(), "base64") {
		t.Errorf("the screenshot result is wrong or carries the image as text: %.300s", shot.Text())
	}
	if image.Role != llm.RoleUser || !image.HasImages() {
		t.Errorf("the screenshot did not reach the model as an image: %+v", image.Role)
	}
	for i, c := range out.ToolCalls {
		if c.Status != "ok" {
			t.Errorf("call %d (%s) failed: %s", i, c.Name, c.Code)
		}
	}
	batch := srv.Requests()[5].Messages
	if console := batch[len(batch)-2].Text(); !strings.Contains(console, "greeter ready") {
		t.Errorf("browser_console: %s", console)
	}
	if back := lastToolResult(t, srv, 6); !strings.Contains(back, `"title":"Greeter"`) {
		t.Errorf("browser_back did not return to the greeter: %s", back)
	}
	if snap := lastToolResult(t, srv, 7); !strings.Contains(snap, "button") {
		t.Errorf("browser_snapshot: %s", snap)
	}
}
