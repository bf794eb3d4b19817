package web

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/hermes-go/hermes/internal/lazy"
	"github.com/hermes-go/hermes/internal/tool"
)

//go:embed search.md
var searchDescription string

// Hit is one search result as the model sees it.
type Hit struct {
	Title   string `json:"title"`
	URL     string `json:"url"`
	Snippet string `json:"snippet"`
}

// maxSnippetChars keeps one result's snippet to a few sentences; the model
// reads the page with web_extract when it needs more.
const maxSnippetChars = 500

// Search is the web_search tool. It is safe for concurrent use.
type Search struct {
	opts Options
}

// NewSearch returns the web_search tool using opts.Backend.
func NewSearch(opts Options) *Search {
	return &Search{opts: opts.withDefaults()}
}

type searchArgs struct {
	Query string `json:"query"`
	Limit int    `json:"limit"`
}

// Spec describes the tool. A search only reads, so calls may run side by
// side and be retried.
func (s *Search) Spec() tool.Spec {
	return tool.Spec{
		Name:        "web_search",
		Description: searchDescription,
		Parameters: json.RawMessage(fmt.Sprintf(`{
  "type": "object",
  "properties": {
    "query": {"type": "string", "description": "The search query, as you would type it into a search engine."},
    "limit": {"type": "integer", "minimum": 1, "maximum": %d, "description": "Number of results (default %d)."}
  },
  "required": ["query"]
}`, MaxLimit, s.opts.Limit)),
		Toolset:      "web",
		ParallelSafe: true,
		Idempotent:   true,
		Timeout:      s.opts.FetchTimeout + 5*time.Second,
	}
}

// Available says what configuration is missing, so the tool list can show
// why web_search is off instead of offering a tool that always fails.
func (s *Search) Available() error {
	if s.opts.Client == nil {
		return errNoClient
	}
	switch s.opts.Backend {
	case "":
		return fmt.Errorf("no search backend configured: set web.search_backend to %s, %s or %s", BackendSearxNG, BackendBrave, BackendTavily)
	case BackendSearxNG:
		if s.opts.SearxURL == "" {
			return fmt.Errorf("search backend searxng needs the URL of a SearXNG instance")
		}
	case BackendBrave:
		if s.opts.BraveKey == "" {
			return fmt.Errorf("search backend brave needs a Brave Search API key")
		}
	case BackendTavily:
		if s.opts.TavilyKey == "" {
			return fmt.Errorf("search backend tavily needs a Tavily API key")
		}
	default:
		return fmt.Errorf("unknown search backend %q: use %s, %s or %s", s.opts.Backend, BackendSearxNG, BackendBrave, BackendTavily)
	}
	return nil
}

// Call runs the query against the configured backend and returns up to
// limit results as []Hit (empty, not null, when nothing matched).
func (s *Search) Call(ctx context.Context, raw json.RawMessage) (any, error) {
	var a searchArgs
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, tool.Errorf(tool.CodeInvalidArguments, "arguments must be an object with a string query and an optional integer limit: %v", err)
	}
	a.Query = strings.TrimSpace(a.Query)
	if a.Query == "" {
		return nil, tool.Errorf(tool.CodeInvalidArguments, "query is empty; give the words to search for")
	}
	if a.Limit <= 0 {
		a.Limit = s.opts.Limit
	}
	a.Limit = min(a.Limit, MaxLimit)
	if err := s.Available(); err != nil {
		return nil, tool.Errorf(tool.CodeUpstreamUnavailable, "web_search is not configured: %v", err)
	}

	ctx, cancel := context.WithTimeout(ctx, s.opts.FetchTimeout)
	defer cancel()
	var (
		hits []Hit
		err  error
	)
	switch s.opts.Backend {
	case BackendSearxNG:
		hits, err = s.searxng(ctx, a.Query)
	case BackendBrave:
		hits, err = s.brave(ctx, a.Query, a.Limit)
	case BackendTavily:
		hits, err = s.tavily(ctx, a.Query, a.Limit)
	}
	if err != nil {
		return nil, err
	}
	out := make([]Hit, 0, min(len(hits), a.Limit))
	for _, h := range hits {
		h.Title, h.Snippet = cleanText(h.Title, 300), cleanText(h.Snippet, maxSnippetChars)
		if h.URL == "" {
			continue
		}
		out = append(out, h)
		if len(out) == a.Limit {
			break
		}
	}
	return out, nil
}

// searxng asks a SearXNG instance's JSON API. SearXNG has no result-count
// parameter, so Call cuts the list.
func (s *Search) searxng(ctx context.Context, query string) ([]Hit, error) {
	u := strings.TrimRight(s.opts.SearxURL, "/") + "/search?" + url.Values{"q": {query}, "format": {"json"}}.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, tool.Errorf(tool.CodeInternal, "searxng: bad instance URL %q: %v", s.opts.SearxURL, err)
	}
	var body struct {
		Results []struct {
			Title   string `json:"title"`
			URL     string `json:"url"`
			Content string `json:"content"`
		} `json:"results"`
	}
	if err := s.do(req, "searxng", "", &body); err != nil {
		return nil, err
	}
	hits := make([]Hit, 0, len(body.Results))
	for _, r := range body.Results {
		hits = append(hits, Hit{Title: r.Title, URL: r.URL, Snippet: r.Content})
	}
	return hits, nil
}

// brave asks the Brave Search web endpoint; the key travels in the
// X-Subscription-Token header.
func (s *Search) brave(ctx context.Context, query string, limit int) ([]Hit, error) {
	u := s.opts.baseURL(BackendBrave, "https://api.search.brave.com") + "/res/v1/web/search?" +
		url.Values{"q": {query}, "count": {fmt.Sprint(limit)}}.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, tool.Errorf(tool.CodeInternal, "brave: %v", err)
	}
	req.Header.Set("X-Subscription-Token", s.opts.BraveKey)
	var body struct {
		Web struct {
			Results []struct {
				Title       string `json:"title"`
				URL         string `json:"url"`
				Description string `json:"description"`
			} `json:"results"`
		} `json:"web"`
	}
	if err := s.do(req, "brave", s.opts.BraveKey, &body); err != nil {
		return nil, err
	}
	hits := make([]Hit, 0, len(body.Web.Results))
	for _, r := range body.Web.Results {
		hits = append(hits, Hit{Title: r.Title, URL: r.URL, Snippet: r.Description})
	}
	return hits, nil
}

// tavily asks Tavily's search endpoint; the key travels as a bearer token.
func (s *Search) tavily(ctx context.Context, query string, limit int) ([]Hit, error) {
	payload, _ := json.Marshal(map[string]any{"query": query, "max_results": limit})
	u := s.opts.baseURL(BackendTavily, "https://api.tavily.com") + "/search"
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, bytes.NewReader(payload))
	if err != nil {
		return nil, tool.Errorf(tool.CodeInternal, "tavily: %v", err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+s.opts.TavilyKey)
	var body struct {
		Results []struct {
			Title   string `json:"title"`
			URL     string `json:"url"`
			Content string `json:"content"`
		} `json:"results"`
	}
	if err := s.do(req, "tavily", s.opts.TavilyKey, &body); err != nil {
		return nil, err
	}
	hits := make([]Hit, 0, len(body.Results))
	for _, r := range body.Results {
		hits = append(hits, Hit{Title: r.Title, URL: r.URL, Snippet: r.Content})
	}
	return hits, nil
}

// do sends req and decodes a 2xx JSON answer into v. Failures name the
// backend; key is scrubbed from any server text quoted back, in case a
// backend echoes it.
func (s *Search) do(req *http.Request, backend, key string, v any) error {
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", userAgent)
	resp, err := s.opts.Client.Do(req)
	if err != nil {
		return requestError(req.Context(), backend, s.opts.FetchTimeout, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, s.opts.MaxBodyBytes))
	if err != nil {
		return requestError(req.Context(), backend, s.opts.FetchTimeout, err)
	}
	if key != "" {
		data = bytes.ReplaceAll(data, []byte(key), []byte("[redacted]"))
	}
	if resp.StatusCode/100 != 2 {
		te := tool.Errorf(tool.CodeUpstreamUnavailable, "%s search failed: %s", backend, statusError(resp, data))
		te.Retryable = resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500
		return te
	}
	if err := json.Unmarshal(data, v); err != nil {
		return tool.Errorf(tool.CodeUpstreamUnavailable, "%s search answered with something other than the expected JSON (%v): %s", backend, err, excerpt(data, 200))
	}
	return nil
}

var tagRE = lazy.Regexp{Expr: `<[^>]*>`}

// cleanText turns a backend's title or snippet into plain text on one
// line: Brave marks matches with <strong>, and entities are common.
func cleanText(s string, n int) string {
	s = html.UnescapeString(tagRE.Get().ReplaceAllString(s, ""))
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		s = string(r[:n]) + "…"
	}
	return s
}
