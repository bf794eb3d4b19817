package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/llm/llmtest"
	"github.com/hermes-go/hermes/internal/npmtest"
)

// openaiClient runs the script testdata/name on the official openai npm
// package with plan, whose sdk it sets, and returns what it printed.
func openaiClient(t *testing.T, name string, plan map[string]any) []byte {
	t.Helper()
	node := npmtest.Node(t)
	plan["sdk"] = npmtest.Package(t, "openai")
	script, err := filepath.Abs(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(plan)
	var stderr syncBuffer
	cmd := exec.Command(node, script, string(b))
	cmd.Stderr = &stderr
	stdout, err := cmd.Output()
	if err != nil {
		t.Fatalf("client: %v\n%s\n%s", err, stdout, stderr.String())
	}
	return stdout
}

// The official openai npm client holds a conversation through hermes's
// Responses API: a streamed response read as its events (the text before
// a tool call and the answer after it as two messages, the tool's
// progress in between, which the client skips), one that continues it
// by previous_response_id, both retrieved, the earlier one refused as a
// point to continue from, the conversation deleted; ids of a terminal
// session, crafted in both forms, are neither read, continued nor
// deleted.
func TestAPIResponsesOpenAIClient(t *testing.T) {
	srv := llmtest.New(t)
	const key = "sk-hermes-api-responses-0123456789"
	h, base := serveAPI(t, srv, key)
	srv.Enqueue(llmtest.Reply{Text: "a private answer"})
	private, r := h.chatIn(srv, h.dir, "a private question")
	if r.code != 0 || private.SessionID == "" {
		t.Fatalf("chat: exit %d: %s", r.code, r.stderr)
	}
	srv.Enqueue(llmtest.Reply{Text: "Checking first. ", ToolCalls: []llm.ToolCall{terminalCall("echo checked")}},
		llmtest.Reply{Text: "Streamed to you in pieces.", ChunkSize: 5}, llmtest.Reply{Text: "Then the second."})
	foreign := []string{"resp_" + private.SessionID, "resp_" + private.SessionID + "_r0", "resp_no-such-session_r0"}
	stdout := openaiClient(t, "openai_responses.mjs", map[string]any{"baseURL": base + "/v1", "apiKey": key, "foreign": foreign})
	type seen struct{ ID, Object, Status, Text, Previous string }
	var out struct {
		Stream struct {
			Types              []string
			Sequence           []int
			Deltas, ID, Status string
			Text               string
			Items              int
			Usage              *int
		}
		Second     seen
		Retrieved  []seen
		ForkStatus any
		Foreign    map[string][]any
		Deleted    struct {
			ID, Object string
			Deleted    bool
		}
		AfterDelete []any
	}
	if err := json.Unmarshal(stdout, &out); err != nil {
		t.Fatalf("client printed %s: %v", stdout, err)
	}
	s := out.Stream
	types := strings.Join(s.Types, " ")
	if !strings.HasPrefix(types, "response.created response.in_progress response.output_item.added response.content_part.added response.output_text.delta") ||
		!strings.HasSuffix(types, "response.output_text.delta response.output_text.done response.content_part.done response.output_item.done response.completed") {
		t.Errorf("event types = %s", types)
	}
	for i, n := range s.Sequence {
		if n != i {
			t.Errorf("sequence_numbers = %v", s.Sequence)
			break
		}
	}
	const streamed = "Checking first. Streamed to you in pieces."
	if s.Deltas != streamed || s.Text != s.Deltas || s.Items != 2 || s.Status != "completed" || s.Usage == nil || !strings.HasPrefix(s.ID, "resp_") {
		t.Errorf("stream = %+v", s)
	}
	if out.Second.Text != "Then the second." || out.Second.Previous != s.ID || out.Second.ID == s.ID {
		t.Errorf("second = %+v", out.Second)
	}
	want := []seen{{s.ID, "response", "completed", streamed, ""}, {out.Second.ID, "response", "completed", "Then the second.", s.ID}}
	if len(out.Retrieved) != 2 || out.Retrieved[0] != want[0] || out.Retrieved[1] != want[1] {
		t.Errorf("retrieved = %+v, want %+v", out.Retrieved, want)
	}
	if out.ForkStatus != float64(409) {
		t.Errorf("continuing the earlier response: %v, want 409", out.ForkStatus)
	}
	for _, id := range foreign {
		if got := out.Foreign[id]; len(got) != 3 || got[0] != float64(404) || got[1] != float64(404) || got[2] != float64(404) {
			t.Errorf("%s: retrieve, continue, delete = %v, want 404s", id, got)
		}
	}
	if out.Deleted.ID != out.Second.ID || out.Deleted.Object != "response.deleted" || !out.Deleted.Deleted {
		t.Errorf("deleted = %+v", out.Deleted)
	}
	if len(out.AfterDelete) != 2 || out.AfterDelete[0] != float64(404) || out.AfterDelete[1] != float64(404) {
		t.Errorf("after delete = %v", out.AfterDelete)
	}
	reqs := srv.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d model calls, want 4 (the refused ones call no model)", len(reqs))
	}
	var carried bool
	for _, m := range reqs[3].Messages {
		carried = carried || strings.Contains(m.Text(), "stream please")
	}
	if !carried || reqs[3].LastUserText() != "and then?" {
		t.Errorf("previous_response_id did not carry the conversation: %+v", reqs[3].Messages)
	}
	// The terminal session is whole.
	srv.Enqueue(llmtest.Reply{Text: "still here"})
	if _, r := h.chatIn(srv, h.dir, "are you there?", "--resume", private.SessionID); r.code != 0 {
		t.Errorf("the terminal session did not survive: exit %d: %s", r.code, r.stderr)
	}
}

// responsesRequest sends method to the Responses endpoint path with key.
func responsesRequest(t *testing.T, ctx context.Context, method, url, key, body string) *http.Response {
	t.Helper()
	req, _ := http.NewRequestWithContext(ctx, method, url, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// A client that goes away in the middle of a streamed response cancels
// its turn; what was streamed is kept as the response, incomplete, and
// the conversation goes on from it.
func TestAPIResponsesDisconnect(t *testing.T) {
	srv := llmtest.New(t)
	srv.Enqueue(llmtest.Reply{Text: "a long answer that never ends", StallAfter: 2, ChunkSize: 7}, llmtest.Reply{Text: "Back again."})
	const key = "sk-hermes-api-resp-cancel-0123456789"
	_, base := serveAPI(t, srv, key)
	url := base + "/v1/responses"
	ctx, cancel := context.WithCancel(context.Background())
	resp := responsesRequest(t, ctx, "POST", url, key, `{"model":"hermes","stream":true,"input":"first question"}`)
	var id string
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() && !strings.Contains(sc.Text(), `"delta":"a long`) {
		var e struct{ Response struct{ ID string } }
		if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok && id == "" && json.Unmarshal([]byte(d), &e) == nil {
			id = e.Response.ID
		}
	}
	cancel()
	if id == "" {
		t.Fatalf("no response.created before the text")
	}
	resp = responsesRequest(t, context.Background(), "POST", url, key, `{"model":"hermes","input":"second question","previous_response_id":"`+id+`"}`)
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(b), "Back again.") {
		t.Fatalf("continuing the cut response: status %d: %s", resp.StatusCode, b)
	}
	resp = responsesRequest(t, context.Background(), "GET", url+"/"+id, key, "")
	var got struct {
		Status string
		Output []struct{ Content []struct{ Text string } }
	}
	if err := json.NewDecoder(resp.Body).Decode(&got); err != nil || got.Status != "incomplete" || len(got.Output) != 1 || !strings.HasPrefix(got.Output[0].Content[0].Text, "a long") {
		t.Errorf("GET the cut response: %+v, %v", got, err)
	}
	reqs := srv.Requests()
	var kept bool
	for _, m := range reqs[len(reqs)-1].Messages {
		kept = kept || strings.Contains(m.Text(), "first question")
	}
	if !kept {
		t.Errorf("the cancelled turn's message is not in the conversation: %+v", reqs[len(reqs)-1].Messages)
	}
}
