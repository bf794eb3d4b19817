package llm

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// ErrorKind classifies a failed model call so that callers can branch:
// retry, fall back to another provider, compress the context, or stop.
type ErrorKind string

// The error kinds. The set is closed; adapters map every failure to one.
const (
	ErrRateLimited     ErrorKind = "rate_limited"
	ErrOverloaded      ErrorKind = "overloaded"
	ErrContextOverflow ErrorKind = "context_overflow"
	ErrAuth            ErrorKind = "auth"
	ErrBadRequest      ErrorKind = "bad_request"
	ErrNotFound        ErrorKind = "not_found"
	ErrServer          ErrorKind = "server"
	ErrNetwork         ErrorKind = "network"
	ErrInvalidResponse ErrorKind = "invalid_response"
	// ErrReplyTooLarge says the reply passed the size hermes takes of one
	// reply (Budget) and was cut off.
	ErrReplyTooLarge ErrorKind = "reply_too_large"
)

// Error is a classified model-call failure. It carries what the vendor said
// (status, type, code, message, request id) so a person can look the failure
// up, and what a retry loop needs (Kind, RetryAfter).
type Error struct {
	Kind ErrorKind
	// Provider is the configured provider name, when known.
	Provider string
	// Status is the HTTP status; 0 for transport failures. Errors that
	// arrived inside an HTTP 200 stream carry the status the vendor put in
	// the payload, if any, and set InStream.
	Status int
	// Type and Code are the vendor's error type and code, as text.
	Type string
	Code string
	// Param is the request field the vendor blamed, if it named one.
	Param     string
	Message   string
	RequestID string
	// RetryAfter is the delay the vendor asked for (Retry-After header),
	// zero when it asked for none.
	RetryAfter time.Duration
	// InStream is set when the error arrived inside a streamed response
	// after the HTTP status line said 200.
	InStream bool
	// Err is the underlying cause (a transport error), if any.
	Err error
}

// Error formats the failure as "llm: PROVIDER: KIND (STATUS TYPE/CODE): MESSAGE".
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("llm: ")
	if e.Provider != "" {
		b.WriteString(e.Provider)
		b.WriteString(": ")
	}
	b.WriteString(string(e.Kind))
	var detail []string
	if e.Status != 0 {
		detail = append(detail, fmt.Sprint(e.Status))
	}
	if e.Type != "" {
		detail = append(detail, e.Type)
	}
	if e.Code != "" && e.Code != e.Type && e.Code != fmt.Sprint(e.Status) {
		detail = append(detail, e.Code)
	}
	if len(detail) > 0 {
		b.WriteString(" (")
		b.WriteString(strings.Join(detail, " "))
		b.WriteString(")")
	}
	msg := e.Message
	if msg == "" && e.Err != nil {
		msg = e.Err.Error()
	}
	if msg != "" {
		b.WriteString(": ")
		b.WriteString(msg)
	}
	if e.RequestID != "" {
		b.WriteString(" [request ")
		b.WriteString(e.RequestID)
		b.WriteString("]")
	}
	return b.String()
}

// Unwrap returns the underlying cause.
func (e *Error) Unwrap() error { return e.Err }

// KindOf returns the kind of err if it is or wraps an *Error, else "".
func KindOf(err error) ErrorKind {
	var e *Error
	if errors.As(err, &e) {
		return e.Kind
	}
	return ""
}

// AsError returns err as an *Error if it is or wraps one.
func AsError(err error) (*Error, bool) {
	var e *Error
	ok := errors.As(err, &e)
	return e, ok
}

// Retryable reports whether a call that failed this way may succeed if
// simply tried again after a pause.
func (k ErrorKind) Retryable() bool {
	switch k {
	case ErrRateLimited, ErrOverloaded, ErrServer, ErrNetwork, ErrInvalidResponse:
		return true
	}
	return false
}

// quotaCodes are rate-limit codes that mean the account is out of money or
// quota: waiting a few seconds will not help, another provider might.
var quotaCodes = []string{"insufficient_quota", "billing_hard_limit_reached", "credits", "payment_required"}

// Exhausted reports whether e is a rate limit that retrying cannot cure
// (quota or billing exhausted).
func (e *Error) Exhausted() bool {
	if e.Kind != ErrRateLimited && e.Status != http.StatusPaymentRequired {
		return false
	}
	if e.Status == http.StatusPaymentRequired {
		return true
	}
	s := strings.ToLower(e.Type + " " + e.Code)
	for _, c := range quotaCodes {
		if strings.Contains(s, c) {
			return true
		}
	}
	return false
}

// overflowHints are phrases vendors use when a prompt does not fit the
// model's context window. Matched case-insensitively against type, code and
// message of 400/413 errors.
var overflowHints = []string{
	"context_length_exceeded",
	"context length",
	"context window",
	"maximum context",
	"prompt is too long",
	"prompt too long",
	"too many tokens",
	"input is too long",
	"reduce the length",
	"exceeds the context",
	"string_above_max_length",
	"request too large",
	"model_context_window_exceeded",
	"maximum number of tokens allowed", // Gemini
	"exceed_context_size",              // llama.cpp's type
	"available context size",           // llama.cpp's message
}

// Classify maps an HTTP status and the vendor's error type, code and message
// to an ErrorKind. It is shared by every adapter so that the same failure is
// classified the same way whichever wire protocol reported it.
func Classify(status int, typ, code, message string) ErrorKind {
	lower := strings.ToLower(typ + " " + code + " " + message)
	has := func(subs ...string) bool {
		for _, s := range subs {
			if strings.Contains(lower, s) {
				return true
			}
		}
		return false
	}
	switch {
	case has("overloaded"):
		return ErrOverloaded
	case (status == 0 || status == 400 || status == 413 || status == 422) && has(overflowHints...):
		return ErrContextOverflow
	}
	switch {
	case status == 401 || status == 403:
		return ErrAuth
	case status == 402:
		return ErrRateLimited
	case status == 404:
		return ErrNotFound
	case status == 408:
		return ErrNetwork
	case status == 413:
		return ErrContextOverflow
	case status == 429:
		return ErrRateLimited
	case status == 503 || status == 529:
		return ErrOverloaded
	case status >= 500:
		return ErrServer
	case status >= 400:
		if has("model_not_found", "model not found", "does not exist", "no such model", "unknown model") {
			return ErrNotFound
		}
		if has("authentication", "invalid_api_key", "invalid api key", "permission") {
			return ErrAuth
		}
		return ErrBadRequest
	}
	// No HTTP status: an error object inside a stream with only a type.
	switch {
	case has("rate_limit", "rate limit", "insufficient_quota", "quota"):
		return ErrRateLimited
	case has("authentication", "permission", "invalid_api_key"):
		return ErrAuth
	case has("not_found", "not found"):
		return ErrNotFound
	case has("invalid_request", "invalid request", "bad_request", "tool_use_failed"):
		return ErrBadRequest
	case has("timeout", "timed out"):
		return ErrNetwork
	}
	return ErrServer
}
