package llm

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// ProbeTimeout bounds a context-window probe. The probe runs when a
// provider is set up, so a server that does not answer quickly is better
// left to the table than waited for.
const ProbeTimeout = 5 * time.Second

// ProbeContextWindow asks the server behind ep how large the context window
// of ep.Model is. Ollama servers (a provider named "ollama" or a base URL on
// port 11434) are asked with POST {root}/api/show, which reports the
// num_ctx Ollama actually runs with when one is configured, else the
// model's trained length. Other servers are asked with the OpenAI-compatible
// GET {base}/models, reading the entry whose id is the model: OpenRouter and
// Together send context_length, vLLM max_model_len, LM Studio
// max_context_length and Groq context_window. client nil means ep.Client,
// then a fresh client. The error names what was asked and what was missing.
func ProbeContextWindow(ctx context.Context, ep Endpoint, client *http.Client) (int, error) {
	if ep.Model == "" {
		return 0, fmt.Errorf("llm: probe context window of provider %q: no model configured", ep.Name)
	}
	if client == nil {
		client = ep.Client
	}
	if client == nil {
		client = NewHTTPClient(Timeouts{Connect: ProbeTimeout})
	}
	ctx, cancel := context.WithTimeout(ctx, ProbeTimeout)
	defer cancel()
	ep.Client = client
	ep.Timeouts = Timeouts{}
	ep.BaseURL = strings.TrimRight(ep.BaseURL, "/")
	if isOllama(ep) {
		return probeOllama(ctx, ep)
	}
	return probeModels(ctx, ep)
}

// isOllama reports whether ep is an Ollama server, which has no context
// length in /v1/models but reports it in its native /api/show.
func isOllama(ep Endpoint) bool {
	if strings.Contains(strings.ToLower(ep.Name), "ollama") {
		return true
	}
	u, err := url.Parse(ep.BaseURL)
	return err == nil && u.Port() == "11434"
}

// modelEntry holds the fields servers use for a model's context length.
type modelEntry struct {
	ID               string `json:"id"`
	ContextLength    int    `json:"context_length"`
	MaxModelLen      int    `json:"max_model_len"`
	MaxContextLength int    `json:"max_context_length"`
	ContextWindow    int    `json:"context_window"`
	TopProvider      *struct {
		ContextLength int `json:"context_length"`
	} `json:"top_provider"`
}

func (m modelEntry) window() int {
	for _, n := range []int{m.ContextLength, m.MaxModelLen, m.MaxContextLength, m.ContextWindow} {
		if n > 0 {
			return n
		}
	}
	if m.TopProvider != nil && m.TopProvider.ContextLength > 0 {
		return m.TopProvider.ContextLength
	}
	return 0
}

// probeModels reads GET {base}/models: {"data":[...]} on most servers, a
// bare array on Together.
func probeModels(ctx context.Context, ep Endpoint) (int, error) {
	where := "GET " + ep.BaseURL + "/models"
	fail := func(format string, args ...any) error {
		return fmt.Errorf("llm: probe context window of %q: %s: %s", ep.Model, where, fmt.Sprintf(format, args...))
	}
	var headers map[string]string
	if ep.APIKey != "" {
		headers = map[string]string{"Authorization": "Bearer " + ep.APIKey}
	}
	resp, err := ep.Get(ctx, "/models", headers)
	if err != nil {
		return 0, fmt.Errorf("llm: probe context window of %q: %s: %w", ep.Model, where, err)
	}
	data, err := ReadBody(resp)
	if err != nil {
		return 0, fmt.Errorf("llm: probe context window of %q: %s: read body: %w", ep.Model, where, err)
	}
	var entries []modelEntry
	if trimmed := strings.TrimSpace(string(data)); strings.HasPrefix(trimmed, "[") {
		err = json.Unmarshal(data, &entries)
	} else {
		var list struct {
			Data []modelEntry `json:"data"`
		}
		err = json.Unmarshal(data, &list)
		entries = list.Data
	}
	if err != nil {
		return 0, fail("response is not a model list (%v)", err)
	}
	for _, m := range entries {
		if m.ID != ep.Model {
			continue
		}
		if n := m.window(); n > 0 {
			return n, nil
		}
		return 0, fail("entry %q has none of context_length, max_model_len, max_context_length, context_window", m.ID)
	}
	return 0, fail("no entry with id %q among %d models", ep.Model, len(entries))
}

// ollamaShow is the part of Ollama's /api/show reply the probe reads.
// Parameters is the Modelfile's PARAMETER lines as text ("num_ctx 8192\n...").
type ollamaShow struct {
	Parameters string                     `json:"parameters"`
	ModelInfo  map[string]json.RawMessage `json:"model_info"`
}

// probeOllama reads POST {root}/api/show. A num_ctx parameter wins over the
// model's trained context_length because it is what Ollama allocates and
// truncates the prompt to.
func probeOllama(ctx context.Context, ep Endpoint) (int, error) {
	root := strings.TrimSuffix(ep.BaseURL, "/v1")
	where := "POST " + root + "/api/show"
	fail := func(format string, args ...any) error {
		return fmt.Errorf("llm: probe context window of %q: %s: %s", ep.Model, where, fmt.Sprintf(format, args...))
	}
	ep.BaseURL = root
	resp, err := ep.Post(ctx, "/api/show", nil, map[string]string{"model": ep.Model})
	if err != nil {
		return 0, fmt.Errorf("llm: probe context window of %q: %s: %w", ep.Model, where, err)
	}
	data, err := ReadBody(resp)
	if err != nil {
		return 0, fmt.Errorf("llm: probe context window of %q: %s: read body: %w", ep.Model, where, err)
	}
	var show ollamaShow
	if err := json.Unmarshal(data, &show); err != nil {
		return 0, fail("response is not JSON (%v)", err)
	}
	if n, ok := numCtx(show.Parameters); ok {
		return n, nil
	}
	var arch string
	_ = json.Unmarshal(show.ModelInfo["general.architecture"], &arch)
	key := arch + ".context_length"
	var n int
	if err := json.Unmarshal(show.ModelInfo[key], &n); err != nil || n <= 0 {
		return 0, fail("no num_ctx parameter and no model_info[%q]", key)
	}
	return n, nil
}

// numCtx finds "num_ctx N" among Ollama's parameter lines.
func numCtx(params string) (int, bool) {
	sc := bufio.NewScanner(strings.NewReader(params))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 2 && f[0] == "num_ctx" {
			if n, err := strconv.Atoi(f[1]); err == nil && n > 0 {
				return n, true
			}
		}
	}
	return 0, false
}
