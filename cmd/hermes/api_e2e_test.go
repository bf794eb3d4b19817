package main

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/llm/llmtest"
)

// serveAPI writes a home whose serve runs the API server with key on a
// free port, starts serve, and returns the API's base URL.
func serveAPI(t *testing.T, srv *llmtest.Server, key string) (h *home, base string) {
	t.Helper()
	return serveAPIWith(t, srv, key, "")
}

// serveAPIWith is serveAPI with more of config.yaml.
func serveAPIWith(t *testing.T, srv *llmtest.Server, key, more string) (h *home, base string) {
	t.Helper()
	h = newHome(t)
	h.write(".env", "HERMES_API_KEY="+key+"\n")
	h.write("config.yaml", `model: {base_url: "`+srv.URL()+`/v1", default: test-model, api_mode: chat_completions, api_key: sk-test-123456}
memory: {long_term: false}
api: {enabled: true, listen: "127.0.0.1:0"}
`+more)
	return h, startServeAPI(t, h, key)
}

// startServeAPI starts serve in h, whose configuration enables the API
// server, stops it when the test ends (failing the test if key reached
// its log), and returns the API's base URL.
func startServeAPI(t *testing.T, h *home, key string) (base string) {
	t.Helper()
	cmd := exec.Command(hermesBin, "serve")
	cmd.Env, cmd.Dir = h.env, h.dir
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var logs syncBuffer
	cmd.Stderr = &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			t.Errorf("hermes serve did not stop on SIGINT")
		}
		if t.Failed() {
			t.Logf("serve's log:\n%s", logs.String())
		}
		if key != "" && strings.Contains(logs.String(), key) {
			t.Errorf("the API key is in serve's log")
		}
	})
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		if u, ok := strings.CutPrefix(sc.Text(), "api: listening on "); ok {
			base = u
			break
		}
	}
	go func() {
		for sc.Scan() {
		}
	}()
	if base == "" {
		t.Fatalf("serve did not say where the API listens:\n%s", logs.String())
	}
	return base
}

// The official openai npm client talks to hermes serve: the models list,
// a whole and a streamed completion, a conversation kept in a stored
// session through X-Hermes-Session-Id, two responses chained by
// previous_response_id, and a wrong key refused.
func TestAPIOpenAIClient(t *testing.T) {
	srv := llmtest.New(t)
	srv.Enqueue(llmtest.Reply{Text: "Here it is, whole."}, llmtest.Reply{Text: "Here it is, streamed in pieces."},
		llmtest.Reply{Text: "Hello Ada."}, llmtest.Reply{Text: "Your name is Ada."},
		llmtest.Reply{Text: "Noted: 42."}, llmtest.Reply{Text: "It was 42."})
	const key = "sk-hermes-api-e2e-0123456789"
	_, base := serveAPI(t, srv, key)
	stdout := openaiClient(t, "openai_client.mjs", map[string]any{"baseURL": base + "/v1", "apiKey": key})
	var out struct {
		Models []string
		Whole  struct{ Content, Finish, Object string }
		Stream struct {
			Content, Finish string
			Usage           bool
			Chunks          int
		}
		Session   struct{ ID, First, Second string }
		Responses struct{ First, Second, Previous, ID string }
		WrongKey  any
	}
	if err := json.Unmarshal(stdout, &out); err != nil {
		t.Fatalf("client printed %s: %v", stdout, err)
	}
	if strings.Join(out.Models, ",") != "hermes,test-model" {
		t.Errorf("models = %v", out.Models)
	}
	if out.Whole.Content != "Here it is, whole." || out.Whole.Finish != "stop" || out.Whole.Object != "chat.completion" {
		t.Errorf("whole = %+v", out.Whole)
	}
	if out.Stream.Content != "Here it is, streamed in pieces." || out.Stream.Finish != "stop" || !out.Stream.Usage || out.Stream.Chunks < 4 {
		t.Errorf("stream = %+v", out.Stream)
	}
	if out.Session.ID == "" || out.Session.First != "Hello Ada." || out.Session.Second != "Your name is Ada." {
		t.Errorf("session = %+v", out.Session)
	}
	if out.Responses.First != "Noted: 42." || out.Responses.Second != "It was 42." || out.Responses.Previous != out.Responses.ID {
		t.Errorf("responses = %+v", out.Responses)
	}
	if out.WrongKey != float64(401) {
		t.Errorf("a wrong key got %v, want 401", out.WrongKey)
	}
	reqs := srv.Requests()
	if len(reqs) != 6 {
		t.Fatalf("%d model calls, want 6", len(reqs))
	}
	var sawAda bool
	for _, m := range reqs[3].Messages {
		if strings.Contains(m.Text(), "my name is Ada") {
			sawAda = true
		}
	}
	if !sawAda || reqs[3].LastUserText() != "what is my name?" {
		t.Errorf("the session's second turn did not carry the first: %+v", reqs[3].Messages)
	}
	var saw42 bool
	for _, m := range reqs[5].Messages {
		saw42 = saw42 || strings.Contains(m.Text(), "remember 42")
	}
	if !saw42 {
		t.Errorf("previous_response_id did not carry the conversation: %+v", reqs[5].Messages)
	}
}
