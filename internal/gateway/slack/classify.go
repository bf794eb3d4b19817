package slack

import (
	"errors"
	"net/http"

	"github.com/hermes-go/hermes/internal/gateway"
)

// classify turns a failed send or edit into a *gateway.SendError. Slack
// answers most failures with status 200 and {"ok":false,"error":…}, so
// the error string decides; a 429, or "ratelimited", is a rate limit with
// the Retry-After Slack gave, and never a formatting error.
func classify(err error) error {
	var ae *apiError
	if !errors.As(err, &ae) {
		// No answer: a timeout, a reset connection, a refused dial.
		return &gateway.SendError{Kind: gateway.Temporary, Message: err.Error(), Err: err}
	}
	kind := gateway.Permanent
	switch {
	case ae.Status == http.StatusTooManyRequests || ae.Code == "ratelimited" || ae.Code == "rate_limited":
		return &gateway.SendError{Kind: gateway.RateLimited, RetryAfter: ae.RetryAfter, Message: ae.Code, Err: err}
	case badFormat(ae.Code):
		kind = gateway.BadFormat
	case temporary(ae.Code) || ae.Status >= 500:
		kind = gateway.Temporary
	}
	return &gateway.SendError{Kind: kind, Message: ae.Method + ": " + ae.Code, Err: err}
}

// badFormat reports the errors a plain-text resend can cure: Slack could
// not take the blocks or the rich text.
func badFormat(code string) bool {
	switch code {
	case "invalid_blocks", "invalid_blocks_format", "invalid_attachments", "markdown_text_invalid":
		return true
	}
	return false
}

// temporary reports the errors that pass: Slack's own trouble.
func temporary(code string) bool {
	switch code {
	case "internal_error", "fatal_error", "service_unavailable", "request_timeout":
		return true
	}
	return false
}
