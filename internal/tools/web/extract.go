package web

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/hermes-go/hermes/internal/tool"
)

//go:embed extract.md
var extractDescription string

// Page is the outcome for one requested URL. Error is set, and the other
// content fields are empty, when that URL could not be read; other URLs
// of the same call are unaffected.
type Page struct {
	URL       string `json:"url"`
	FinalURL  string `json:"final_url,omitempty"`
	Title     string `json:"title"`
	Content   string `json:"content"`
	Truncated bool   `json:"truncated"`
	Error     string `json:"error,omitempty"`

	code tool.Code // classifies Error when every URL failed
}

// Extract is the web_extract tool. It is safe for concurrent use.
type Extract struct {
	opts Options
}

// NewExtract returns the web_extract tool.
func NewExtract(opts Options) *Extract {
	return &Extract{opts: opts.withDefaults()}
}

type extractArgs struct {
	URLs []string `json:"urls"`
}

// Spec describes the tool. Fetching only reads, so calls may run side by
// side and be retried. The timeout leaves room for conversion after the
// slowest fetch, and the output cap fits MaxURLs full pages.
func (e *Extract) Spec() tool.Spec {
	return tool.Spec{
		Name:        "web_extract",
		Description: extractDescription,
		Parameters: json.RawMessage(fmt.Sprintf(`{
  "type": "object",
  "properties": {
    "urls": {
      "type": "array",
      "items": {"type": "string", "description": "An http or https URL."},
      "minItems": 1,
      "maxItems": %d,
      "description": "Pages to read, fetched in parallel (1-%d)."
    }
  },
  "required": ["urls"]
}`, MaxURLs, MaxURLs)),
		Toolset:      "web",
		ParallelSafe: true,
		Idempotent:   true,
		Timeout:      e.opts.FetchTimeout + 15*time.Second,
		MaxOutput:    max(100_000, MaxURLs*(2*e.opts.ExtractCharLimit+1000)),
	}
}

// Available reports a missing client; extraction needs no other setting.
func (e *Extract) Available() error {
	if e.opts.Client == nil {
		return errNoClient
	}
	return nil
}

// Call fetches every URL concurrently and returns []Page in the order
// asked. A URL that fails gets an error entry; only when all fail does the
// call fail, with the first failure's code and every page as data.
func (e *Extract) Call(ctx context.Context, raw json.RawMessage) (any, error) {
	var a extractArgs
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, tool.Errorf(tool.CodeInvalidArguments, "arguments must be an object with urls, an array of 1 to %d URL strings: %v", MaxURLs, err)
	}
	if len(a.URLs) == 0 || len(a.URLs) > MaxURLs {
		return nil, tool.Errorf(tool.CodeInvalidArguments, "urls has %d entries; give 1 to %d URLs per call and make more calls for more pages", len(a.URLs), MaxURLs)
	}
	if err := e.Available(); err != nil {
		return nil, tool.Errorf(tool.CodeInternal, "web_extract is not configured: %v", err)
	}

	pages := make([]Page, len(a.URLs))
	var wg sync.WaitGroup
	for i, u := range a.URLs {
		wg.Go(func() { pages[i] = e.page(ctx, strings.TrimSpace(u)) })
	}
	wg.Wait()

	var failed []string
	for _, p := range pages {
		if p.Error != "" {
			failed = append(failed, p.URL+": "+p.Error)
		}
	}
	if len(failed) == len(pages) {
		te := tool.Errorf(pages[0].code, "%s", strings.Join(failed, "; "))
		te.Data = pages
		return nil, te
	}
	return pages, nil
}

// page fetches and converts one URL, turning every failure into the
// page's Error.
func (e *Extract) page(ctx context.Context, raw string) Page {
	p := Page{URL: raw}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		p.Error, p.code = "not an http or https URL; give an absolute URL such as https://example.com/page", tool.CodeInvalidArguments
		return p
	}
	doc, err := e.fetch(ctx, u)
	if err != nil {
		if te, ok := tool.AsError(err); ok {
			p.Error, p.code = te.Message, te.Code
		} else {
			p.Error, p.code = err.Error(), tool.CodeInternal
		}
		return p
	}
	p.FinalURL = doc.url.String()
	title, text, err := convert(doc)
	if err != nil {
		p.Error, p.code = err.Error(), tool.CodeInvalidArguments
		return p
	}
	p.Title = title
	p.Content, p.Truncated = capText(text, e.opts.ExtractCharLimit, doc.cut)
	return p
}

// fetched is a response read into memory.
type fetched struct {
	url       *url.URL // after redirects
	mediaType string   // lower case, without parameters
	header    string   // the Content-Type as sent, for the charset
	body      []byte
	cut       bool // the body was longer than MaxBodyBytes
}

// fetch GETs u with its own deadline, so one slow site cannot use up the
// time of the others, and reads at most MaxBodyBytes of the answer.
func (e *Extract) fetch(ctx context.Context, u *url.URL) (*fetched, error) {
	ctx, cancel := context.WithTimeout(ctx, e.opts.FetchTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, tool.Errorf(tool.CodeInvalidArguments, "%v", err)
	}
	req.Header.Set("User-Agent", userAgent)
	req.Header.Set("Accept", "text/html,application/xhtml+xml,application/pdf;q=0.9,text/plain;q=0.8,application/json;q=0.8,*/*;q=0.5")
	resp, err := e.opts.Client.Do(req)
	if err != nil {
		return nil, requestError(ctx, "fetch", e.opts.FetchTimeout, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, e.opts.MaxBodyBytes+1))
	if err != nil {
		return nil, requestError(ctx, "reading the page", e.opts.FetchTimeout, err)
	}
	if resp.StatusCode/100 != 2 {
		code := tool.CodeUpstreamUnavailable
		switch resp.StatusCode {
		case http.StatusNotFound, http.StatusGone:
			code = tool.CodeNotFound
		case http.StatusUnauthorized, http.StatusForbidden:
			code = tool.CodeDenied
		}
		return nil, tool.Errorf(code, "%s", statusError(resp, body))
	}
	f := &fetched{url: resp.Request.URL, header: resp.Header.Get("Content-Type"), body: body}
	if int64(len(body)) > e.opts.MaxBodyBytes {
		f.body, f.cut = body[:e.opts.MaxBodyBytes], true
	}
	f.mediaType, _, _ = mime.ParseMediaType(f.header)
	f.mediaType = strings.ToLower(f.mediaType)
	if bytes.HasPrefix(f.body, []byte("%PDF-")) {
		f.mediaType = "application/pdf"
	} else if f.mediaType == "" || f.mediaType == "application/octet-stream" {
		f.mediaType, _, _ = mime.ParseMediaType(http.DetectContentType(f.body))
	}
	return f, nil
}
