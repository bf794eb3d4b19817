package declared

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"syscall"
	"unicode/utf8"

	"github.com/hermes-go/hermes/internal/safety/netguard"
	"github.com/hermes-go/hermes/internal/tool"
)

// defaultMaxBytes caps a response body read when max_bytes is not set.
const defaultMaxBytes = 1 << 20

// errorBodyChars is how much of a failed response's body the error shows.
const errorBodyChars = 500

// httpPlan is a compiled http: block.
type httpPlan struct {
	method string
	url    *tmpl
	// prefix is the URL template's text before its first action, and
	// whole says there is no action: together they tell the host the
	// author fixed (see fixedHost).
	prefix      *tmpl
	whole       bool
	headers     []namedTmpl
	query       []namedTmpl
	body        *bodyValue // a mapping or list body, sent as JSON
	bodyText    *tmpl      // a string body, sent as is
	contentType string
	expect      []int
	sel         *selector
	maxBytes    int
}

// http compiles an http: block.
func (c compiler) http(h *HTTP) *httpPlan {
	p := &httpPlan{method: strings.ToUpper(cmpOr(h.Method, "GET")), contentType: cmpOr(h.ContentType, "application/json"),
		maxBytes: h.MaxBytes}
	if !slices.Contains(httpMethods, p.method) {
		c.fail("http.method", "%q is not accepted; use one of %s", h.Method, strings.Join(httpMethods, ", "))
	}
	if strings.TrimSpace(h.URL) == "" {
		c.fail("http.url", "is empty; give the URL, e.g. \"${ORDERS_API}/orders\"")
	} else {
		p.url = c.template("http.url", h.URL, escURL)
		c.markCredentials(p.url, urlCredentials(h.URL))
		pre, act := h.URL, strings.Index(h.URL, "{{")
		if act >= 0 {
			pre = h.URL[:act]
		}
		p.prefix, p.whole = c.template("http.url", pre, escNone), act < 0
	}
	// Headers and query parameters are where APIs take their keys, so the
	// variables they name are kept secret whatever their names.
	for _, k := range sortedKeys(h.Headers) {
		t := c.template("http.headers."+k, h.Headers[k], escNone)
		c.markCredentials(t, nil)
		p.headers = append(p.headers, namedTmpl{k, t})
	}
	for _, k := range sortedKeys(h.Query) {
		t := c.template("http.query."+k, h.Query[k], escNone)
		c.markCredentials(t, nil)
		p.query = append(p.query, namedTmpl{k, t})
	}
	switch b := h.Body.(type) {
	case nil:
	case string:
		p.bodyText = c.template("http.body", b, escNone)
	case map[string]any, []any:
		p.body = c.bodyValue("http.body", b)
	default:
		c.fail("http.body", "is a %T; use a mapping (sent as a JSON object) or a string template", b)
	}
	for i, code := range h.Expect {
		if code < 100 || code > 599 {
			c.fail(fmt.Sprintf("http.expect[%d]", i), "%d is not an HTTP status code (100 to 599)", code)
		}
	}
	p.expect = h.Expect
	if h.Select != "" {
		s, err := parseSelector(h.Select)
		if err != nil {
			c.fail("http.select", "%v", err)
		}
		p.sel = s
	}
	if h.MaxBytes < 0 {
		c.fail("http.max_bytes", "%d is negative; use zero (the default, 1 MiB) or more", h.MaxBytes)
	}
	if p.maxBytes == 0 {
		p.maxBytes = defaultMaxBytes
	}
	return p
}

// httpRequest is a rendered request, ready to send and to show. trusted
// is the host:port its author fixed, which the URL guard admits although
// private, or "".
type httpRequest struct {
	method, url string
	headers     [][2]string
	body        []byte
	trusted     string
}

// render builds the request of one call.
func (p *httpPlan) render(args map[string]any, ce *callEnv) (*httpRequest, error) {
	raw, err := p.url.render(args, ce)
	if err != nil {
		return nil, err
	}
	u, err := url.Parse(raw)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return nil, tool.Errorf(tool.CodeInternal, "http.url rendered to %q, which is not an absolute URL", ce.mask.String(raw))
	}
	q := u.Query()
	for _, nt := range p.query {
		v, err := nt.t.render(args, ce)
		if err != nil {
			return nil, err
		}
		if v != "" {
			q.Add(nt.name, v)
		}
	}
	u.RawQuery = q.Encode()
	req := &httpRequest{method: p.method, url: u.String()}
	if p.prefix != nil {
		pre, err := p.prefix.render(args, ce)
		if err != nil {
			return nil, err
		}
		req.trusted = fixedHost(pre, p.whole, u)
	}
	for _, nt := range p.headers {
		v, err := nt.t.render(args, ce)
		if err != nil {
			return nil, err
		}
		req.headers = append(req.headers, [2]string{nt.name, v})
	}
	switch {
	case p.body != nil:
		v, _, err := p.body.render(args, ce)
		if err != nil {
			return nil, err
		}
		if req.body, err = json.Marshal(v); err != nil {
			return nil, fmt.Errorf("http.body: %w", err)
		}
		req.headers = append(req.headers, [2]string{"Content-Type", "application/json"})
	case p.bodyText != nil:
		s, err := p.bodyText.render(args, ce)
		if err != nil {
			return nil, err
		}
		req.body = []byte(s)
		req.headers = append(req.headers, [2]string{"Content-Type", p.contentType})
	}
	return req, nil
}

// String renders the request as a trace or an approval shows it.
func (r *httpRequest) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s", r.method, r.url)
	for _, h := range r.headers {
		fmt.Fprintf(&b, "\n%s: %s", h[0], h[1])
	}
	if len(r.body) > 0 {
		b.WriteString("\n\n")
		b.Write(r.body)
	}
	return b.String()
}

// do sends the request and turns the response into the call's data: a
// map {"status": 200, "data": ...} with "note" when something was cut or
// not found.
func (p *httpPlan) do(ctx context.Context, cs *clients, r *httpRequest) (any, int, error) {
	var body io.Reader
	if r.body != nil {
		body = bytes.NewReader(r.body)
	}
	req, err := http.NewRequestWithContext(ctx, r.method, r.url, body)
	if err != nil {
		return nil, 0, tool.Errorf(tool.CodeInternal, "cannot build the request: %v", err)
	}
	for _, h := range r.headers {
		if strings.EqualFold(h[0], "Host") {
			req.Host = h[1]
			continue
		}
		req.Header.Set(h[0], h[1])
	}
	resp, err := cs.client(r.trusted).Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, 0, ctx.Err()
		}
		if b, ok := netguard.IsBlocked(err); ok {
			return nil, 0, &tool.Error{Code: tool.CodeDenied, Message: b.Error()}
		}
		return nil, 0, &tool.Error{Code: tool.CodeUpstreamUnavailable, Retryable: notSent(err),
			Message: fmt.Sprintf("%s %s failed: %v", r.method, req.URL.Redacted(), unwrapURLError(err))}
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, int64(p.maxBytes)+1))
	if err != nil && ctx.Err() != nil {
		return nil, resp.StatusCode, ctx.Err()
	}
	cut := len(data) > p.maxBytes
	if cut {
		data = data[:p.maxBytes]
	}
	if !p.expected(resp.StatusCode) {
		return nil, resp.StatusCode, statusError(resp, data)
	}
	out := map[string]any{"status": resp.StatusCode}
	var notes []string
	if cut {
		notes = append(notes, fmt.Sprintf("the body was cut at %d bytes (max_bytes)", p.maxBytes))
	}
	var decoded any
	if isJSON(resp.Header.Get("Content-Type"), data) && json.Unmarshal(data, &decoded) == nil {
		if p.sel != nil {
			v, found := p.sel.apply(decoded)
			if !found {
				notes = append(notes, fmt.Sprintf("select %q found nothing in the response", p.sel.src))
			}
			decoded = v
		}
		out["data"] = decoded
	} else if len(data) > 0 {
		out["data"] = strings.ToValidUTF8(string(data), "\uFFFD")
		if p.sel != nil {
			notes = append(notes, "the response is not JSON, so select was not applied")
		}
	}
	if len(notes) > 0 {
		out["note"] = strings.Join(notes, "; ")
	}
	return out, resp.StatusCode, nil
}

// expected reports whether status means success: one of expect, or any
// 2xx when expect is empty.
func (p *httpPlan) expected(status int) bool {
	if len(p.expect) == 0 {
		return status >= 200 && status < 300
	}
	return slices.Contains(p.expect, status)
}

// statusError classifies an unexpected status for the model.
func statusError(resp *http.Response, body []byte) *tool.Error {
	code, retryable := tool.CodeInternal, false
	switch s := resp.StatusCode; {
	case s == 400 || s == 422:
		code = tool.CodeInvalidArguments
	case s == 401 || s == 403:
		code = tool.CodeDenied
	case s == 404:
		code = tool.CodeNotFound
	case s == 408 || s == 429 || s >= 500:
		code, retryable = tool.CodeUpstreamUnavailable, s == 429 || s == 503
	}
	text := strings.TrimSpace(strings.ToValidUTF8(string(body), "\uFFFD"))
	if utf8.RuneCountInString(text) > errorBodyChars {
		text = string([]rune(text)[:errorBodyChars]) + "…"
	}
	msg := "HTTP " + resp.Status
	if text != "" {
		msg += ": " + text
	}
	return &tool.Error{Code: code, Message: msg, Retryable: retryable}
}

// isJSON reports whether a response is JSON by its content type, or,
// without one, by its first byte.
func isJSON(contentType string, data []byte) bool {
	ct := strings.ToLower(contentType)
	if strings.Contains(ct, "json") {
		return true
	}
	if ct != "" && !strings.HasPrefix(ct, "text/plain") {
		return false
	}
	t := bytes.TrimSpace(data)
	return len(t) > 0 && (t[0] == '{' || t[0] == '[')
}

// notSent reports whether a request surely never reached the server: the
// connection was refused or the name did not resolve. Only then may a
// call that is not idempotent be tried again.
func notSent(err error) bool {
	var dnsErr *net.DNSError
	return errors.Is(err, syscall.ECONNREFUSED) || errors.As(err, &dnsErr)
}

// unwrapURLError drops the "Get \"url\": " prefix of a *url.Error, whose
// URL may hold secrets and is shown separately, redacted.
func unwrapURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}
