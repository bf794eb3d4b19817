// Package web holds the built-in web tools: web_search, which asks a
// configured search backend (SearXNG, Brave or Tavily) for result links,
// and web_extract, which fetches pages and returns their main content as
// Markdown or text. Names, parameters and result shapes follow Hermes
// Agent's web tools so skills and prompts written for Hermes work
// unchanged.
//
// Neither tool opens connections on its own terms: both use the
// *http.Client given in Options, which the caller builds with the URL guard
// that refuses private addresses and re-checks every redirect. A request the
// guard blocked reaches the model as a denied error carrying its reason.
package web

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/hermes-go/hermes/internal/tool"
)

// Defaults and bounds of Options. Extracted text is capped because a whole
// page pushed into the conversation crowds out everything else; the cap is
// marked so the model knows there is more and how to get at it.
const (
	DefaultLimit            = 5
	MaxLimit                = 10
	DefaultExtractCharLimit = 15000
	DefaultFetchTimeout     = 20 * time.Second
	DefaultMaxBodyBytes     = 10 << 20
	MaxURLs                 = 5
)

// The search backends Options.Backend may name.
const (
	BackendSearxNG = "searxng"
	BackendBrave   = "brave"
	BackendTavily  = "tavily"
)

// userAgent identifies hermes to the sites it reads; some sites refuse
// requests that carry no browser-like agent at all.
const userAgent = "Mozilla/5.0 (compatible; hermes-agent; +https://github.com/hermes-go/hermes)"

// Options configures both tools. The zero value of every field except
// Client and the backend settings means its default.
type Options struct {
	// Backend is the search backend: "searxng", "brave" or "tavily".
	Backend string
	// SearxURL is the base URL of a SearXNG instance with the JSON format
	// enabled, such as "http://searx.lan:8080".
	SearxURL string
	// BraveKey and TavilyKey are the API keys of those services.
	BraveKey, TavilyKey string
	// BaseURLs overrides a hosted backend's API root, keyed by backend
	// name ("brave" -> "https://api.search.brave.com"); tests and
	// proxies use it.
	BaseURLs map[string]string
	// Client performs every request. It must be the guarded client; the
	// tools report themselves unavailable without one.
	Client *http.Client
	// Limit is the number of search results when the model gives none
	// (default 5, at most 10).
	Limit int
	// ExtractCharLimit caps each extracted page, in characters (default
	// 15000).
	ExtractCharLimit int
	// FetchTimeout bounds one request (default 20 s).
	FetchTimeout time.Duration
	// MaxBodyBytes caps how much of a response is read (default 10 MB).
	MaxBodyBytes int64
}

// withDefaults returns o with unset fields filled in and out-of-range ones
// clamped.
func (o Options) withDefaults() Options {
	if o.Limit <= 0 {
		o.Limit = DefaultLimit
	}
	o.Limit = min(o.Limit, MaxLimit)
	if o.ExtractCharLimit <= 0 {
		o.ExtractCharLimit = DefaultExtractCharLimit
	}
	if o.FetchTimeout <= 0 {
		o.FetchTimeout = DefaultFetchTimeout
	}
	if o.MaxBodyBytes <= 0 {
		o.MaxBodyBytes = DefaultMaxBodyBytes
	}
	o.Backend = strings.ToLower(strings.TrimSpace(o.Backend))
	return o
}

// baseURL is the API root of backend: the override if one is set, else def.
func (o Options) baseURL(backend, def string) string {
	if u := o.BaseURLs[backend]; u != "" {
		return strings.TrimRight(u, "/")
	}
	return def
}

// errNoClient is what both tools' Available reports without a client, so
// a wiring mistake cannot silently fall back to an unguarded one.
var errNoClient = errors.New("no HTTP client configured for the web tools")

// requestError classifies a failed client.Do: a request the URL guard
// refused is denied (its reason is the message), a passed deadline is a
// timeout, and anything else means the far side could not be reached.
func requestError(ctx context.Context, what string, timeout time.Duration, err error) *tool.Error {
	msg := err.Error()
	var ue *url.Error
	if errors.As(err, &ue) {
		msg = ue.Err.Error()
	}
	var ne net.Error
	switch {
	case blockedByGuard(msg):
		return tool.Errorf(tool.CodeDenied, "%s: %s", what, msg)
	case errors.Is(err, context.DeadlineExceeded) || errors.Is(ctx.Err(), context.DeadlineExceeded) ||
		errors.As(err, &ne) && ne.Timeout():
		return tool.Errorf(tool.CodeTimeout, "%s: no complete answer within %s", what, timeout)
	case ctx.Err() != nil:
		return tool.Errorf(tool.CodeInterrupted, "%s: cancelled", what)
	}
	te := tool.Errorf(tool.CodeUpstreamUnavailable, "%s: %s", what, msg)
	te.Retryable = true
	return te
}

// blockedByGuard recognises the URL guard's refusal by its text, which
// is all a refusal keeps once the transport has wrapped it: the guard
// says "refused to fetch <url>: <reason>", and other guards say "blocked".
func blockedByGuard(msg string) bool {
	m := strings.ToLower(msg)
	return strings.Contains(m, "refused to fetch") || strings.Contains(m, "blocked")
}

// excerpt returns the start of an error body on one line, at most n
// characters, so a status error says what the server said without
// flooding the model with an HTML error page.
func excerpt(body []byte, n int) string {
	s := strings.Join(strings.Fields(string(body)), " ")
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "")
	}
	if r := []rune(s); len(r) > n {
		s = string(r[:n]) + "…"
	}
	return s
}

// statusError describes a non-2xx answer as "HTTP 502 Bad Gateway: body".
func statusError(resp *http.Response, body []byte) string {
	msg := fmt.Sprintf("HTTP %s", resp.Status)
	if e := excerpt(body, 200); e != "" {
		msg += ": " + e
	}
	return msg
}
