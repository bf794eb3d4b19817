package llm

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// Model list bodies in the shapes the servers send, trimmed to a few
// entries but with their real fields.
const (
	openRouterModels = `{"data":[
 {"id":"openai/gpt-4o-mini","canonical_slug":"openai/gpt-4o-mini","name":"OpenAI: GPT-4o-mini","created":1721260800,"context_length":128000,
  "architecture":{"modality":"text+image->text","tokenizer":"GPT","instruct_type":null},
  "pricing":{"prompt":"0.00000015","completion":"0.0000006"},
  "top_provider":{"context_length":128000,"max_completion_tokens":16384,"is_moderated":true},"per_request_limits":null},
 {"id":"qwen/qwen3-235b-a22b","name":"Qwen: Qwen3 235B A22B","created":1745875757,"context_length":40960,
  "top_provider":{"context_length":40960,"max_completion_tokens":40960,"is_moderated":false}}]}`
	vllmModels = `{"object":"list","data":[
 {"id":"Qwen/Qwen2.5-7B-Instruct","object":"model","created":1735000000,"owned_by":"vllm","root":"Qwen/Qwen2.5-7B-Instruct","parent":null,"max_model_len":16384,
  "permission":[{"id":"modelperm-1","object":"model_permission","allow_sampling":true}]}]}`
	togetherModels = `[
 {"id":"meta-llama/Llama-3.3-70B-Instruct-Turbo","object":"model","created":0,"type":"chat","display_name":"Meta Llama 3.3 70B Instruct Turbo","organization":"Meta","context_length":131072,"pricing":{"input":0.88,"output":0.88}}]`
	groqModels = `{"object":"list","data":[
 {"id":"llama-3.3-70b-versatile","object":"model","created":1733447754,"owned_by":"Meta","active":true,"context_window":131072,"public_apps":null,"max_completion_tokens":32768}]}`
	lmStudioModels = `{"object":"list","data":[
 {"id":"qwen2.5-7b-instruct","object":"model","type":"llm","publisher":"lmstudio-community","arch":"qwen2","state":"loaded","max_context_length":32768}]}`
	bareModels = `{"object":"list","data":[{"id":"gpt-4o","object":"model","created":1715367049,"owned_by":"system"}]}`

	ollamaShowNumCtx = `{"license":"LLAMA 3.2 COMMUNITY LICENSE","modelfile":"FROM llama3.2\nPARAMETER num_ctx 16384",
 "parameters":"num_ctx                        16384\nstop                           \"<|start_header_id|>\"\nstop                           \"<|eot_id|>\"",
 "template":"{{ .Prompt }}","details":{"parent_model":"","format":"gguf","family":"llama","families":["llama"],"parameter_size":"3.2B","quantization_level":"Q4_K_M"},
 "model_info":{"general.architecture":"llama","general.basename":"Llama-3.2","general.parameter_count":3212749888,"llama.context_length":131072,"llama.embedding_length":3072},
 "capabilities":["completion","tools"],"modified_at":"2025-05-01T10:00:00Z"}`
	ollamaShowPlain = `{"modelfile":"FROM qwen2.5:7b",
 "parameters":"stop                           \"<|im_start|>\"\nstop                           \"<|im_end|>\"",
 "details":{"format":"gguf","family":"qwen2","parameter_size":"7.6B","quantization_level":"Q4_K_M"},
 "model_info":{"general.architecture":"qwen2","qwen2.context_length":32768,"qwen2.embedding_length":3584},
 "capabilities":["completion","tools"]}`
)

// modelsServer serves body at GET /v1/models and checks the API key.
func modelsServer(t *testing.T, body string) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet || r.URL.Path != "/v1/models" {
			http.Error(w, `{"error":{"message":"no route"}}`, http.StatusNotFound)
			return
		}
		if got := r.Header.Get("Authorization"); got != "Bearer sk-test" {
			http.Error(w, `{"error":{"message":"bad key","type":"authentication_error"}}`, http.StatusUnauthorized)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(body))
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestProbeModels(t *testing.T) {
	tests := []struct {
		name  string
		body  string
		model string
		want  int
		err   string
	}{
		{"openrouter context_length", openRouterModels, "qwen/qwen3-235b-a22b", 40_960, ""},
		{"vllm max_model_len", vllmModels, "Qwen/Qwen2.5-7B-Instruct", 16_384, ""},
		{"together bare array", togetherModels, "meta-llama/Llama-3.3-70B-Instruct-Turbo", 131_072, ""},
		{"groq context_window", groqModels, "llama-3.3-70b-versatile", 131_072, ""},
		{"lm studio max_context_length", lmStudioModels, "qwen2.5-7b-instruct", 32_768, ""},
		{"model not listed", vllmModels, "other-model", 0, `no entry with id "other-model" among 1 models`},
		{"entry without a length", bareModels, "gpt-4o", 0, `entry "gpt-4o" has none of context_length`},
		{"not a model list", `{"data":"nope"}`, "gpt-4o", 0, "response is not a model list"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := modelsServer(t, tt.body)
			ep := Endpoint{Name: "test", BaseURL: srv.URL + "/v1/", APIKey: "sk-test", Model: tt.model}
			got, err := ProbeContextWindow(context.Background(), ep, srv.Client())
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) || !strings.Contains(err.Error(), "GET "+srv.URL+"/v1/models") {
					t.Fatalf("err = %v, want one naming GET %s/v1/models and containing %q", err, srv.URL, tt.err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("ProbeContextWindow = %d, %v; want %d", got, err, tt.want)
			}
		})
	}
}

func TestProbeModelsHTTPError(t *testing.T) {
	srv := modelsServer(t, vllmModels)
	ep := Endpoint{Name: "test", BaseURL: srv.URL + "/v1", APIKey: "wrong", Model: "m"}
	_, err := ProbeContextWindow(context.Background(), ep, nil)
	if KindOf(err) != ErrAuth || !strings.Contains(err.Error(), "/v1/models") {
		t.Fatalf("err = %v, want an auth *Error naming /v1/models", err)
	}
}

// ollamaServer serves /api/show like Ollama, answering for one model.
func ollamaServer(t *testing.T, model, body string) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/api/show" {
			http.Error(w, "404 page not found", http.StatusNotFound)
			return
		}
		var req struct {
			Model string `json:"model"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Model != model {
			w.WriteHeader(http.StatusNotFound)
			_, _ = w.Write([]byte(`{"error":"model '` + req.Model + `' not found"}`))
			return
		}
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		_, _ = w.Write([]byte(body))
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestProbeOllama(t *testing.T) {
	tests := []struct {
		name  string
		body  string
		model string
		ask   string
		want  int
		err   string
	}{
		{"num_ctx wins over trained length", ollamaShowNumCtx, "llama3.2", "llama3.2", 16_384, ""},
		{"trained length without num_ctx", ollamaShowPlain, "qwen2.5:7b", "qwen2.5:7b", 32_768, ""},
		{"no length at all", `{"parameters":"","model_info":{"general.architecture":"bert"}}`, "m", "m", 0, `no num_ctx parameter and no model_info["bert.context_length"]`},
		{"unknown model", ollamaShowPlain, "qwen2.5:7b", "llama9", 0, "not_found"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := ollamaServer(t, tt.model, tt.body)
			ep := Endpoint{Name: "ollama", BaseURL: srv.URL + "/v1", Model: tt.ask}
			got, err := ProbeContextWindow(context.Background(), ep, srv.Client())
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) || !strings.Contains(err.Error(), "POST "+srv.URL+"/api/show") {
					t.Fatalf("err = %v, want one naming POST %s/api/show and containing %q", err, srv.URL, tt.err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("ProbeContextWindow = %d, %v; want %d", got, err, tt.want)
			}
		})
	}
}

func TestIsOllama(t *testing.T) {
	tests := []struct {
		ep   Endpoint
		want bool
	}{
		{Endpoint{Name: "local", BaseURL: "http://127.0.0.1:11434/v1"}, true},
		{Endpoint{Name: "My-Ollama", BaseURL: "http://gpu-box:8080/v1"}, true},
		{Endpoint{Name: "vllm", BaseURL: "http://gpu-box:8000/v1"}, false},
		{Endpoint{Name: "openai", BaseURL: "https://api.openai.com/v1"}, false},
	}
	for _, tt := range tests {
		if got := isOllama(tt.ep); got != tt.want {
			t.Errorf("isOllama(%+v) = %v, want %v", tt.ep, got, tt.want)
		}
	}
}

func TestProbeNoModel(t *testing.T) {
	_, err := ProbeContextWindow(context.Background(), Endpoint{Name: "p", BaseURL: "http://127.0.0.1:1"}, nil)
	if err == nil || !strings.Contains(err.Error(), "no model configured") {
		t.Fatalf("err = %v, want no model configured", err)
	}
}

func TestProbeGivesUpWithContext(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	defer srv.Close()
	defer close(release)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err := ProbeContextWindow(ctx, Endpoint{Name: "p", BaseURL: srv.URL, Model: "m"}, srv.Client())
	if err == nil || !strings.Contains(err.Error(), "GET "+srv.URL+"/models") {
		t.Fatalf("err = %v, want a failure naming the GET", err)
	}
}

func TestWindowProbe(t *testing.T) {
	srv := modelsServer(t, vllmModels)
	w := NewWindow("Qwen/Qwen2.5-7B-Instruct", 0)
	if n, src := w.Resolve(); n != 32_768 || src != SourceTable {
		t.Fatalf("before probe: %d, %s; want the table's 32768", n, src)
	}
	if err := w.Probe(context.Background(), Endpoint{Name: "vllm", BaseURL: srv.URL + "/v1", APIKey: "sk-test"}, srv.Client()); err != nil {
		t.Fatal(err)
	}
	if n, src := w.Resolve(); n != 16_384 || src != SourceProbed {
		t.Fatalf("after probe: %d, %s; want probed 16384", n, src)
	}
	if err := w.Probe(context.Background(), Endpoint{Name: "vllm", BaseURL: srv.URL + "/v1", APIKey: "bad"}, srv.Client()); err == nil {
		t.Fatal("probe with a bad key succeeded")
	}
	if n := w.Tokens(); n != 16_384 {
		t.Fatalf("a failed probe changed the window to %d", n)
	}
}
