package httpreq

import (
	"bytes"
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The body formats of a Result.
const (
	FormatJSON   = "json"
	FormatText   = "text"
	FormatBinary = "binary"
	FormatNone   = "none"
)

// Result is the data of a successful call: whatever the status, the
// model reads it to learn what the server said.
type Result struct {
	Status     int    `json:"status"`
	StatusText string `json:"status_text"`
	// FinalURL is where redirects led, when that is not the URL asked
	// for.
	FinalURL string `json:"final_url,omitempty"`
	// Headers are the response headers worth reading (see keptHeaders),
	// by lower-case name.
	Headers map[string]string `json:"headers,omitempty"`
	// BodyFormat says what Body holds: json (a JSON value), text (a
	// string), binary or none (no Body).
	BodyFormat string `json:"body_format"`
	Body       any    `json:"body,omitempty"`
	// BodyBytes is the body's size, or how much of it was read when
	// the server sent more than that and no length.
	BodyBytes int  `json:"body_bytes"`
	Truncated bool `json:"truncated,omitempty"`
	// Note explains a cut or summarized body.
	Note string `json:"note,omitempty"`
}

// keptHeaders are the response headers the model gets: what the body
// is, where a redirect points, and when to retry. Cookies and the rest
// are left out; they are noise at best and session secrets at worst.
var keptHeaders = []string{"content-type", "content-length", "content-encoding", "location", "retry-after", "date", "etag", "last-modified", "www-authenticate"}

// newResult shapes a response for the model. complete is false when the
// body was read only in part.
func newResult(resp *http.Response, method string, body []byte, complete bool) *Result {
	r := &Result{
		Status:     resp.StatusCode,
		StatusText: http.StatusText(resp.StatusCode),
		Headers:    selectHeaders(resp.Header),
		BodyBytes:  len(body),
		BodyFormat: FormatNone,
	}
	if r.StatusText == "" {
		r.StatusText = strings.TrimSpace(strings.TrimPrefix(resp.Status, strconv.Itoa(resp.StatusCode)))
	}
	if !complete && resp.ContentLength > int64(len(body)) {
		r.BodyBytes = int(resp.ContentLength)
	}
	if method == "HEAD" || len(body) == 0 {
		return r
	}
	ctype := resp.Header.Get("Content-Type")
	media, params, _ := mime.ParseMediaType(ctype)
	switch {
	case complete && isJSON(media, body):
		var buf bytes.Buffer
		if err := json.Compact(&buf, body); err == nil && utf8.RuneCount(buf.Bytes()) <= MaxTextChars {
			r.BodyFormat, r.Body = FormatJSON, json.RawMessage(buf.Bytes())
			return r
		}
		setText(r, body, complete, params["charset"])
	case isText(media, body):
		setText(r, body, complete, params["charset"])
	default:
		r.BodyFormat = FormatBinary
		kind := media
		if kind == "" {
			kind = http.DetectContentType(body)
		}
		size := fmt.Sprintf("%d bytes", r.BodyBytes)
		if !complete && r.BodyBytes == len(body) {
			size = fmt.Sprintf("more than %d bytes", len(body))
		}
		r.Note = fmt.Sprintf("binary body (%s, %s) not shown; download it with the terminal if you need the file", kind, size)
	}
	return r
}

// setText puts a text body in r, cut at MaxTextChars.
func setText(r *Result, body []byte, complete bool, charset string) {
	r.BodyFormat = FormatText
	s := string(body)
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	n := utf8.RuneCountInString(s)
	cut := n > MaxTextChars
	if cut {
		s = string([]rune(s)[:MaxTextChars])
	}
	r.Body = s
	if cut || !complete {
		r.Truncated = true
		total := fmt.Sprintf("%d characters", n)
		if !complete {
			total = fmt.Sprintf("more than %d bytes", len(body))
		}
		r.Note = fmt.Sprintf("body cut: showing the first %d characters of %s; ask the API for less (a filter, a smaller page, fewer fields) rather than repeating the request", min(n, MaxTextChars), total)
	}
	if c := strings.ToLower(charset); c != "" && c != "utf-8" && c != "utf8" && c != "us-ascii" {
		extra := "the body's charset is " + charset + "; characters outside ASCII may be shown wrongly"
		if r.Note != "" {
			r.Note += "; " + extra
		} else {
			r.Note = extra
		}
	}
}

// isJSON reports whether a body is JSON: declared so (application/json,
// anything+json) or, when the type says nothing useful, shaped so.
func isJSON(media string, body []byte) bool {
	if media == "application/json" || strings.HasSuffix(media, "+json") || media == "text/json" {
		return json.Valid(body)
	}
	if media == "" || media == "text/plain" || media == "application/octet-stream" {
		t := bytes.TrimSpace(body)
		return len(t) > 0 && (t[0] == '{' || t[0] == '[') && json.Valid(t)
	}
	return false
}

// isText reports whether a body is text to show: a textual media type,
// or, when the type is missing or generic, bytes that read as UTF-8 text.
func isText(media string, body []byte) bool {
	switch {
	case strings.HasPrefix(media, "text/"),
		strings.HasSuffix(media, "+json"), strings.HasSuffix(media, "+xml"),
		media == "application/json", media == "application/xml", media == "application/javascript",
		media == "application/x-www-form-urlencoded", media == "application/yaml", media == "application/x-yaml",
		media == "application/graphql", media == "application/x-ndjson", media == "application/sql":
		return true
	case media == "" || media == "application/octet-stream":
		sample := body[:min(len(body), 4096)]
		return bytes.IndexByte(sample, 0) < 0 && utf8.Valid(trimPartialRune(sample))
	}
	return false
}

// trimPartialRune drops a rune cut in two at the end of a sample.
func trimPartialRune(b []byte) []byte {
	for i := 0; i < 3 && len(b) > 0 && !utf8.Valid(b); i++ {
		b = b[:len(b)-1]
	}
	return b
}

// selectHeaders keeps keptHeaders and rate-limit headers.
func selectHeaders(h http.Header) map[string]string {
	out := map[string]string{}
	for name, vals := range h {
		n := strings.ToLower(name)
		if slices.Contains(keptHeaders, n) || strings.HasPrefix(n, "x-ratelimit-") || strings.HasPrefix(n, "ratelimit") || strings.HasPrefix(n, "x-rate-limit-") {
			out[n] = strings.Join(vals, ", ")
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}
