package httpreq

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/hermes-go/hermes/internal/tool"
)

// args are the call's arguments as the model sent them.
type args struct {
	Method  string            `json:"method"`
	URL     string            `json:"url"`
	Headers map[string]string `json:"headers"`
	Query   map[string]any    `json:"query"`
	JSON    json.RawMessage   `json:"json"`
	Body    *string           `json:"body"`
	Timeout *float64          `json:"timeout"`
}

// request is a validated call, ready to send.
type request struct {
	method  string
	url     *url.URL
	header  http.Header
	body    []byte // nil: no body
	timeout time.Duration
}

// methods are the methods the tool sends.
var methods = []string{"GET", "POST", "PUT", "PATCH", "DELETE", "HEAD"}

// schema is the JSON Schema of the arguments.
func schema() json.RawMessage {
	return json.RawMessage(`{
  "type": "object",
  "properties": {
    "method": {"type": "string", "description": "HTTP method: GET (default), POST, PUT, PATCH, DELETE or HEAD."},
    "url": {"type": "string", "description": "Absolute http:// or https:// URL."},
    "headers": {"type": "object", "additionalProperties": {"type": "string"}, "description": "Request headers, name to value."},
    "query": {"type": "object", "additionalProperties": {"type": ["string", "number", "boolean", "array"]}, "description": "Query parameters added to the URL; a list value repeats the parameter."},
    "json": {"description": "Any JSON value, sent as the body with Content-Type: application/json. Not with body."},
    "body": {"type": "string", "description": "Raw request body. Not with json."},
    "timeout": {"type": "number", "minimum": 1, "maximum": ` + strconv.Itoa(int(MaxTimeout.Seconds())) + `, "description": "Seconds to wait for the whole response; default ` + strconv.Itoa(int(DefaultTimeout.Seconds())) + `."}
  },
  "required": ["url"]
}`)
}

// parse validates the arguments and builds the request from them, or
// returns an invalid_arguments *tool.Error saying what to fix.
func parse(raw json.RawMessage) (*request, error) {
	var a args
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, tool.Errorf(tool.CodeInvalidArguments, "arguments must be an object with url and optional method, headers, query, json, body and timeout: %v", err)
	}
	r := &request{method: "GET", timeout: DefaultTimeout, header: http.Header{}}
	if m := strings.ToUpper(strings.TrimSpace(a.Method)); m != "" {
		if !slices.Contains(methods, m) {
			return nil, tool.Errorf(tool.CodeInvalidArguments, "method %q is not supported; use one of %s", a.Method, strings.Join(methods, ", "))
		}
		r.method = m
	}
	u, err := parseURL(a.URL)
	if err != nil {
		return nil, err
	}
	if err := addQuery(u, a.Query); err != nil {
		return nil, err
	}
	r.url = u
	for name, v := range a.Headers {
		if !validHeaderName(name) {
			return nil, tool.Errorf(tool.CodeInvalidArguments, "header name %q is not valid; use letters, digits and dashes, such as \"Accept\" or \"X-Api-Key\"", name)
		}
		if strings.ContainsAny(v, "\r\n\x00") {
			return nil, tool.Errorf(tool.CodeInvalidArguments, "the value of header %q contains a line break or NUL byte, which a header cannot carry", name)
		}
		r.header.Set(name, v)
	}
	hasJSON := len(a.JSON) > 0 && !bytes.Equal(bytes.TrimSpace(a.JSON), []byte("null"))
	switch {
	case hasJSON && a.Body != nil:
		return nil, tool.Errorf(tool.CodeInvalidArguments, "give either json (a JSON value) or body (a raw string), not both")
	case hasJSON:
		var buf bytes.Buffer
		if err := json.Compact(&buf, a.JSON); err != nil {
			return nil, tool.Errorf(tool.CodeInvalidArguments, "json is not valid JSON: %v", err)
		}
		r.body = buf.Bytes()
		if r.header.Get("Content-Type") == "" {
			r.header.Set("Content-Type", "application/json")
		}
	case a.Body != nil:
		r.body = []byte(*a.Body)
	}
	if r.body != nil && r.method == "HEAD" {
		return nil, tool.Errorf(tool.CodeInvalidArguments, "a HEAD request has no body; drop json and body, or use another method")
	}
	if a.Timeout != nil {
		t := *a.Timeout
		if t <= 0 || t > MaxTimeout.Seconds() {
			return nil, tool.Errorf(tool.CodeInvalidArguments, "timeout %g is out of range; give seconds from 1 to %d", t, int(MaxTimeout.Seconds()))
		}
		r.timeout = time.Duration(t * float64(time.Second))
	}
	return r, nil
}

// parseURL accepts an absolute http or https URL. Whether its host may be
// reached is the guard's decision, made when connecting.
func parseURL(s string) (*url.URL, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, tool.Errorf(tool.CodeInvalidArguments, "url is empty; give an absolute URL such as https://api.example.com/v1/items")
	}
	u, err := url.Parse(s)
	if err != nil {
		return nil, tool.Errorf(tool.CodeInvalidArguments, "url is not a valid URL: %v", err)
	}
	switch strings.ToLower(u.Scheme) {
	case "http", "https":
	case "":
		return nil, tool.Errorf(tool.CodeInvalidArguments, "url %q has no scheme; write it with https:// (or http://)", s)
	default:
		return nil, tool.Errorf(tool.CodeInvalidArguments, "url scheme %q is not supported; only http and https URLs can be requested", u.Scheme)
	}
	if u.Host == "" {
		return nil, tool.Errorf(tool.CodeInvalidArguments, "url %q has no host", s)
	}
	return u, nil
}

// addQuery appends the query parameters to u, in name order so a call
// always produces the same URL.
func addQuery(u *url.URL, query map[string]any) error {
	if len(query) == 0 {
		return nil
	}
	q := u.Query()
	names := make([]string, 0, len(query))
	for n := range query {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		vals, ok := query[n].([]any)
		if !ok {
			vals = []any{query[n]}
		}
		for _, v := range vals {
			s, err := queryValue(v)
			if err != nil {
				return tool.Errorf(tool.CodeInvalidArguments, "query parameter %q: %v", n, err)
			}
			q.Add(n, s)
		}
	}
	u.RawQuery = q.Encode()
	return nil
}

func queryValue(v any) (string, error) {
	switch x := v.(type) {
	case string:
		return x, nil
	case bool:
		return strconv.FormatBool(x), nil
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64), nil
	case nil:
		return "", nil
	}
	return "", fmt.Errorf("values must be strings, numbers, booleans or lists of them, not %T", v)
}

// validHeaderName reports whether name is an HTTP token.
func validHeaderName(name string) bool {
	if name == "" {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if c <= ' ' || c >= 0x7f || strings.IndexByte(`"(),/:;<=>?@[\]{}`, c) >= 0 {
			return false
		}
	}
	return true
}
