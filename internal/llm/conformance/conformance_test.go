// Package conformance replays HTTP exchanges recorded against real model
// vendors (../shared/testdata/provider-recordings, kept outside this
// repository) through hermes's adapters and checks what they return against
// each recording's "expect" block.
package conformance

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/llm/anthropic"
	"github.com/hermes-go/hermes/internal/llm/openai"
	"github.com/hermes-go/hermes/internal/sharedtest"
)

// recordingsDir is where the shared recordings live (see sharedtest);
// HERMES_RECORDINGS overrides it.
func recordingsDir(t *testing.T) string {
	if d := os.Getenv("HERMES_RECORDINGS"); d != "" {
		return d
	}
	return sharedtest.Path(t, "provider-recordings")
}

type recording struct {
	API     string `json:"api"`
	Request struct {
		Path string          `json:"path"`
		Body json.RawMessage `json:"body"`
	} `json:"request"`
	Response struct {
		Status  int               `json:"status"`
		Headers map[string]string `json:"headers"`
		Body    string            `json:"body"`
	} `json:"response"`
	Expect expectation `json:"expect"`
}

type expectation struct {
	Text           *string         `json:"text"`
	Reasoning      *string         `json:"reasoning"`
	RedactedBlocks int             `json:"redacted_thinking_blocks"`
	ToolCalls      []expectedCall  `json:"tool_calls"`
	FinishReason   *string         `json:"finish_reason"`
	Usage          map[string]int  `json:"usage"`
	Model          string          `json:"model"`
	ID             string          `json:"id"`
	StreamError    json.RawMessage `json:"stream_error"`
	Error          *expectedError  `json:"error"`
}

type expectedCall struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Arguments any    `json:"arguments"`
}

type expectedError struct {
	Status    int             `json:"status"`
	Type      string          `json:"type"`
	Code      json.RawMessage `json:"code"`
	Message   string          `json:"message"`
	Param     json.RawMessage `json:"param"`
	RequestID string          `json:"request_id"`
}

func TestConformance(t *testing.T) {
	dir := recordingsDir(t)
	files, _ := filepath.Glob(filepath.Join(dir, "*", "*.json"))
	if len(files) == 0 {
		t.Skipf("no provider recordings at %s (set HERMES_RECORDINGS to the folder to run this test)", dir)
	}
	// Only subtests that -run selects are counted.
	ran, passed := 0, 0
	for _, f := range files {
		name := filepath.Base(filepath.Dir(f)) + "/" + strings.TrimSuffix(filepath.Base(f), ".json")
		t.Run(name, func(t *testing.T) {
			ran++
			defer func() {
				if !t.Failed() {
					passed++
				}
			}()
			replay(t, f)
		})
	}
	t.Logf("conformance: %d/%d recordings pass (%d in the folder)", passed, ran, len(files))
}

func replay(t *testing.T, file string) {
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var rec recording
	if err := json.Unmarshal(data, &rec); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for k, v := range rec.Response.Headers {
			w.Header().Set(k, v)
		}
		w.WriteHeader(rec.Response.Status)
		_, _ = w.Write([]byte(rec.Response.Body))
	}))
	defer srv.Close()

	ep := llm.Endpoint{Name: "recorded", BaseURL: srv.URL + "/v1", APIKey: "test-key", Model: "recorded-model"}
	var p llm.Provider
	switch {
	case strings.HasPrefix(rec.API, "anthropic"):
		ep.BaseURL = srv.URL
		p = anthropic.New(ep)
	case strings.HasPrefix(rec.API, "openai-responses"):
		p = openai.NewResponses(ep)
	default:
		p = openai.NewChat(ep)
	}
	streamed := strings.Contains(rec.Response.Headers["content-type"], "event-stream")
	if rec.Response.Status >= 400 {
		var body struct {
			Stream bool `json:"stream"`
		}
		_ = json.Unmarshal(rec.Request.Body, &body)
		streamed = body.Stream
	}
	req := &llm.Request{Messages: []llm.Message{llm.UserMessage("replay")}, NoStream: !streamed}
	resp, err := llm.Generate(t.Context(), p, req)

	exp := rec.Expect
	if exp.Error != nil {
		checkError(t, err, exp.Error)
		return
	}
	if len(exp.StreamError) > 0 {
		checkStreamError(t, err, exp.StreamError)
	} else if err != nil {
		t.Fatalf("unexpected error: %v", err)
	}
	if resp == nil {
		t.Fatal("no response (not even a partial one)")
	}
	checkResponse(t, resp, exp, rec.API)
}

func checkResponse(t *testing.T, resp *llm.Response, exp expectation, api string) {
	t.Helper()
	text, reasoning := resp.Text(), resp.Message.Reasoning
	if exp.Text != nil {
		want := *exp.Text
		// Reasoning a server left inline as <think> tags is split out of the
		// text by the adapter: put it back to compare with the wire.
		if strings.HasPrefix(strings.TrimSpace(want), "<think>") && exp.Reasoning == nil {
			if got := "<think>" + reasoning + "</think>" + text; normalizeSpace(got) != normalizeSpace(want) {
				t.Errorf("text with think tags rebuilt =\n%q\nwant\n%q", clip(got), clip(want))
			}
			if reasoning == "" {
				t.Errorf("inline <think> reasoning was not split out of the text")
			}
		} else if text != want {
			t.Errorf("text =\n%q\nwant\n%q", clip(text), clip(want))
		}
	}
	if exp.Reasoning != nil && reasoning != *exp.Reasoning {
		t.Errorf("reasoning =\n%q\nwant\n%q", clip(reasoning), clip(*exp.Reasoning))
	}
	if exp.RedactedBlocks > 0 {
		n := 0
		for _, b := range resp.Message.ReasoningBlocks {
			if b.Type == "redacted_thinking" {
				n++
				if b.Data == "" {
					t.Errorf("redacted_thinking block without data")
				}
			}
		}
		if n != exp.RedactedBlocks {
			t.Errorf("redacted_thinking blocks = %d, want %d", n, exp.RedactedBlocks)
		}
	}
	checkToolCalls(t, resp.Message.ToolCalls, exp.ToolCalls)
	if exp.FinishReason != nil && resp.RawFinishReason != *exp.FinishReason {
		t.Errorf("raw finish reason = %q, want %q", resp.RawFinishReason, *exp.FinishReason)
	}
	checkNormalizedFinish(t, resp, len(exp.StreamError) > 0)
	if exp.Usage != nil {
		checkUsage(t, resp.Usage, exp.Usage, api)
	}
	if exp.Model != "" && resp.Model != exp.Model {
		t.Errorf("model = %q, want %q", resp.Model, exp.Model)
	}
	if exp.ID != "" && resp.ID != exp.ID {
		t.Errorf("id = %q, want %q", resp.ID, exp.ID)
	}
}

func checkToolCalls(t *testing.T, got []llm.ToolCall, want []expectedCall) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d tool calls %+v, want %d %+v", len(got), got, len(want), want)
	}
	for i, w := range want {
		g := got[i]
		switch {
		case w.ID == "" && (g.ID == "" || !strings.HasPrefix(g.ID, "call_")):
			t.Errorf("call %d: vendor sent no id; want an invented call_… id, got %q", i, g.ID)
		case w.ID != "" && g.ID != w.ID:
			t.Errorf("call %d: id = %q, want %q", i, g.ID, w.ID)
		}
		if g.Name != w.Name {
			t.Errorf("call %d: name = %q, want %q", i, g.Name, w.Name)
		}
		var args any
		if err := json.Unmarshal([]byte(g.Arguments), &args); err != nil {
			t.Errorf("call %d: arguments %q are not JSON: %v", i, g.Arguments, err)
			continue
		}
		if !reflect.DeepEqual(args, w.Arguments) {
			t.Errorf("call %d: arguments = %v, want %v", i, args, w.Arguments)
		}
	}
}

// checkNormalizedFinish checks the normalized reason against the raw one.
// A reply cut short by an in-stream error (failed) may say error instead.
func checkNormalizedFinish(t *testing.T, resp *llm.Response, failed bool) {
	t.Helper()
	want := map[string]llm.FinishReason{
		"stop": llm.FinishStop, "end_turn": llm.FinishStop, "length": llm.FinishLength,
		"max_tokens": llm.FinishLength, "tool_calls": llm.FinishToolCalls, "tool_use": llm.FinishToolCalls,
		"failed": llm.FinishError,
	}[resp.RawFinishReason]
	if resp.RawFinishReason == "completed" || resp.RawFinishReason == "" {
		want = llm.FinishStop
		if len(resp.Message.ToolCalls) > 0 {
			want = llm.FinishToolCalls
		}
	}
	if want != "" && resp.FinishReason != want && !(failed && resp.FinishReason == llm.FinishError) {
		t.Errorf("finish reason = %q for raw %q, want %q", resp.FinishReason, resp.RawFinishReason, want)
	}
}

func checkUsage(t *testing.T, u llm.Usage, want map[string]int, api string) {
	t.Helper()
	wantInput := want["input_tokens"]
	if strings.HasPrefix(api, "anthropic") {
		// Anthropic counts cache reads and writes apart from input_tokens;
		// hermes's InputTokens is the whole prompt.
		wantInput += want["cache_read_input_tokens"] + want["cache_creation_input_tokens"]
	}
	pairs := []struct {
		name      string
		got, want int
	}{
		{"input_tokens", u.InputTokens, wantInput},
		{"output_tokens", u.OutputTokens, want["output_tokens"]},
		{"cache_read_tokens", u.CacheReadTokens, want["cached_input_tokens"] + want["cache_read_input_tokens"]},
		{"cache_write_tokens", u.CacheWriteTokens, want["cache_creation_input_tokens"]},
	}
	// The expectations were derived without reading Anthropic's
	// output_tokens_details, so there an absent reasoning count says nothing.
	if rt, ok := want["reasoning_tokens"]; ok || !strings.HasPrefix(api, "anthropic") {
		pairs = append(pairs, struct {
			name      string
			got, want int
		}{"reasoning_tokens", u.ReasoningTokens, rt})
	}
	if tt, ok := want["total_tokens"]; ok {
		pairs = append(pairs, struct {
			name      string
			got, want int
		}{"total_tokens", u.TotalTokens, tt})
	}
	for _, p := range pairs {
		if p.got != p.want {
			t.Errorf("usage %s = %d, want %d (all: %+v)", p.name, p.got, p.want, u)
		}
	}
}

func checkError(t *testing.T, err error, want *expectedError) {
	t.Helper()
	e, ok := llm.AsError(err)
	if !ok {
		t.Fatalf("error = %v (%T), want an *llm.Error", err, err)
	}
	if e.Status != want.Status {
		t.Errorf("status = %d, want %d", e.Status, want.Status)
	}
	if e.Type != want.Type {
		t.Errorf("type = %q, want %q", e.Type, want.Type)
	}
	if code := plain(want.Code); e.Code != code {
		t.Errorf("code = %q, want %q", e.Code, code)
	}
	if e.Message != want.Message {
		t.Errorf("message = %q, want %q", e.Message, want.Message)
	}
	if param := plain(want.Param); e.Param != param {
		t.Errorf("param = %q, want %q", e.Param, param)
	}
	if want.RequestID != "" && e.RequestID != want.RequestID {
		t.Errorf("request id = %q, want %q", e.RequestID, want.RequestID)
	}
	wantKind := llm.Classify(want.Status, want.Type, plain(want.Code), want.Message)
	if e.Kind != wantKind || e.Kind == "" {
		t.Errorf("kind = %q, want %q", e.Kind, wantKind)
	}
}

func checkStreamError(t *testing.T, err error, raw json.RawMessage) {
	t.Helper()
	var want struct {
		Type    string          `json:"type"`
		Code    json.RawMessage `json:"code"`
		Message string          `json:"message"`
	}
	_ = json.Unmarshal(raw, &want)
	var e *llm.Error
	if !errors.As(err, &e) {
		t.Fatalf("error = %v, want the in-stream error %s", err, raw)
	}
	if !e.InStream {
		t.Errorf("error not marked as arriving inside the stream")
	}
	if e.Message != want.Message || e.Code != plain(want.Code) || (want.Type != "" && e.Type != want.Type) {
		t.Errorf("stream error = type %q code %q message %q, want %s", e.Type, e.Code, e.Message, raw)
	}
}

// plain renders an expected JSON scalar the way llm.Error keeps it.
func plain(raw json.RawMessage) string {
	s := strings.TrimSpace(string(raw))
	if s == "" || s == "null" {
		return ""
	}
	var str string
	if json.Unmarshal(raw, &str) == nil {
		return str
	}
	return s
}

func normalizeSpace(s string) string { return strings.Join(strings.Fields(s), " ") }

func clip(s string) string {
	if len(s) > 300 {
		return s[:300] + fmt.Sprintf("…(%d chars)", len(s))
	}
	return s
}
