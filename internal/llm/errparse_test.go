package llm

import (
	"net/http"
	"testing"
	"time"
)

func TestParseError(t *testing.T) {
	tests := []struct {
		name   string
		status int
		header http.Header
		body   string
		want   Error
	}{
		{"openai envelope", 400, http.Header{"X-Request-Id": {"req_1"}},
			`{"error":{"message":"bad","type":"invalid_request_error","param":"max_tokens","code":"unsupported_parameter"}}`,
			Error{Kind: ErrBadRequest, Status: 400, Type: "invalid_request_error", Code: "unsupported_parameter", Param: "max_tokens", Message: "bad", RequestID: "req_1"}},
		{"anthropic envelope with top-level request id", 529, nil,
			`{"type":"error","error":{"details":null,"type":"overloaded_error","message":"Overloaded"},"request_id":"req_a"}`,
			Error{Kind: ErrOverloaded, Status: 529, Type: "overloaded_error", Message: "Overloaded", RequestID: "req_a"}},
		{"openrouter integer code", 429, http.Header{"Retry-After": {"3"}},
			`{"error":{"message":"Rate limit exceeded","code":429,"metadata":{"headers":{}}},"user_id":"u"}`,
			Error{Kind: ErrRateLimited, Status: 429, Code: "429", Message: "Rate limit exceeded", RetryAfter: 3 * time.Second}},
		{"ollama string error", 404, nil, `{"error":"model \"llama9\" not found, try pulling it first"}`,
			Error{Kind: ErrNotFound, Status: 404, Message: `model "llama9" not found, try pulling it first`}},
		{"fastapi detail", 400, nil, `{"detail":"This model's maximum context length is 4096 tokens"}`,
			Error{Kind: ErrContextOverflow, Status: 400, Message: "This model's maximum context length is 4096 tokens"}},
		{"not json", 502, nil, `<html>Bad Gateway</html>`,
			Error{Kind: ErrServer, Status: 502, Message: "<html>Bad Gateway</html>"}},
		{"empty body", 503, http.Header{"Retry-After-Ms": {"1500"}}, ``,
			Error{Kind: ErrOverloaded, Status: 503, Message: "Service Unavailable", RetryAfter: 1500 * time.Millisecond}},
		{"in-stream groq error carries status_code", 0, nil,
			`{"error":{"message":"Tool call validation failed","type":"invalid_request_error","code":"tool_use_failed","status_code":400}}`,
			Error{Kind: ErrBadRequest, Status: 400, Type: "invalid_request_error", Code: "tool_use_failed", Message: "Tool call validation failed"}},
		{"in-stream openrouter error with code only", 0, nil, `{"error":{"code":400,"message":"Token limit reached"}}`,
			Error{Kind: ErrBadRequest, Code: "400", Message: "Token limit reached"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ParseError("p", tt.status, tt.header, []byte(tt.body))
			tt.want.Provider = "p"
			if *got != tt.want {
				t.Errorf("got  %+v\nwant %+v", *got, tt.want)
			}
		})
	}
}

func TestRetryAfterHTTPDate(t *testing.T) {
	now := time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)
	h := http.Header{"Retry-After": {now.Add(90 * time.Second).Format(http.TimeFormat)}}
	if got := RetryAfter(h, now); got != 90*time.Second {
		t.Errorf("RetryAfter = %v, want 90s", got)
	}
}

func TestErrorString(t *testing.T) {
	e := &Error{Kind: ErrRateLimited, Provider: "openrouter", Status: 429, Code: "429", Message: "slow down", RequestID: "r1"}
	want := "llm: openrouter: rate_limited (429): slow down [request r1]"
	if e.Error() != want {
		t.Errorf("Error() = %q, want %q", e.Error(), want)
	}
}
