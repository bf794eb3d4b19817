package llm

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// vendorError is the union of the error envelopes vendors send:
// OpenAI {"error":{"message","type","param","code"}}, Anthropic
// {"type":"error","error":{"type","message"},"request_id"}, OpenRouter
// {"error":{"code":429,"message"}}, Groq in-stream
// {"error":{...,"status_code":400}}, Ollama {"error":"text"} and FastAPI
// servers (vLLM) {"detail":"text"} or {"message":"text"}.
type vendorError struct {
	Error     json.RawMessage `json:"error"`
	Detail    json.RawMessage `json:"detail"`
	Message   string          `json:"message"`
	Type      string          `json:"type"`
	Code      json.RawMessage `json:"code"`
	RequestID string          `json:"request_id"`
}

type vendorErrorObject struct {
	Message    string          `json:"message"`
	Type       string          `json:"type"`
	Code       json.RawMessage `json:"code"`
	Param      json.RawMessage `json:"param"`
	StatusCode int             `json:"status_code"`
	Status     json.RawMessage `json:"status"`
}

// ParseError builds a classified *Error from an HTTP error response (or
// from the JSON payload of an error that arrived inside a 200 stream, with
// status 0 and a nil header). The body may be any vendor's envelope, or not
// JSON at all; nothing in it is trusted to be present.
func ParseError(provider string, status int, header http.Header, body []byte) *Error {
	e := &Error{Provider: provider, Status: status}
	body = bytes.TrimSpace(body)
	var env vendorError
	if len(body) > 0 && body[0] == '{' && json.Unmarshal(body, &env) == nil {
		e.RequestID = env.RequestID
		switch {
		case len(env.Error) > 0 && env.Error[0] == '{':
			var obj vendorErrorObject
			_ = json.Unmarshal(env.Error, &obj)
			e.Message = obj.Message
			e.Type = obj.Type
			e.Code = rawText(obj.Code)
			e.Param = rawText(obj.Param)
			if e.Status == 0 && obj.StatusCode != 0 {
				e.Status = obj.StatusCode
			}
			if e.Status == 0 {
				if n, err := strconv.Atoi(rawText(obj.Status)); err == nil {
					e.Status = n
				}
			}
		case len(env.Error) > 0:
			e.Message = rawText(env.Error)
		case len(env.Detail) > 0:
			e.Message = rawText(env.Detail)
		default:
			e.Message = env.Message
		}
		if e.Type == "" && env.Type != "error" {
			e.Type = env.Type
		}
		if e.Code == "" {
			e.Code = rawText(env.Code)
		}
	} else if len(body) > 0 {
		e.Message = truncate(string(body), 500)
	}
	if e.Message == "" && status != 0 {
		e.Message = http.StatusText(status)
	}
	if header != nil {
		if e.RequestID == "" {
			e.RequestID = RequestID(header)
		}
		e.RetryAfter = RetryAfter(header, time.Now())
	}
	// In-stream errors from some vendors carry the HTTP-like code only in
	// "code" (OpenRouter sends the integer 400).
	statusForKind := e.Status
	if statusForKind == 0 {
		if n, err := strconv.Atoi(e.Code); err == nil && n >= 400 && n < 600 {
			statusForKind = n
		}
	}
	e.Kind = Classify(statusForKind, e.Type, e.Code, e.Message)
	return e
}

// rawText renders a JSON value as plain text: strings unquoted, null and
// absent as "", anything else as its JSON text.
func rawText(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	if raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return s
		}
	}
	if raw[0] == '{' {
		var obj struct {
			Message string `json:"message"`
		}
		if json.Unmarshal(raw, &obj) == nil && obj.Message != "" {
			return obj.Message
		}
	}
	return string(raw)
}

func firstHeader(h http.Header, names ...string) string {
	for _, n := range names {
		if v := h.Get(n); v != "" {
			return v
		}
	}
	return ""
}

// RetryAfter reads the delay a server asked for: retry-after-ms, then
// Retry-After as seconds or an HTTP date. It returns zero when none is given.
func RetryAfter(h http.Header, now time.Time) time.Duration {
	if v := h.Get("retry-after-ms"); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms > 0 {
			return time.Duration(ms * float64(time.Millisecond))
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0
	}
	if secs, err := strconv.ParseFloat(v, 64); err == nil {
		if secs <= 0 {
			return 0
		}
		return time.Duration(secs * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := t.Sub(now); d > 0 {
			return d
		}
	}
	return 0
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + fmt.Sprintf("… (%d bytes)", len(s))
}

// InvalidResponse returns an invalid_response error for a reply that could
// not be understood, keeping a short excerpt of what arrived.
func InvalidResponse(provider string, reason string, excerpt []byte) *Error {
	msg := reason
	if len(excerpt) > 0 {
		msg += ": " + truncate(string(excerpt), 200)
	}
	return &Error{Kind: ErrInvalidResponse, Provider: provider, Message: msg}
}
