package llmtest

import (
	"net/http"
	"strconv"
	"time"
)

// writeHTTPError answers with status and e in p's error envelope, setting
// Retry-After (and, for OpenAI, retry-after-ms) when e asks for a delay.
func writeHTTPError(w http.ResponseWriter, p protocol, status int, e ErrorReply, requestID string) {
	if e.RetryAfter > 0 {
		secs := (e.RetryAfter + time.Second - 1) / time.Second
		w.Header().Set("Retry-After", strconv.FormatInt(int64(secs), 10))
		if _, anthropic := p.(anthropicProtocol); !anthropic {
			w.Header().Set("retry-after-ms", strconv.FormatInt(e.RetryAfter.Milliseconds(), 10))
		}
	}
	if requestID != "" {
		w.Header().Set(p.requestIDHeader(), requestID)
	}
	writeJSON(w, status, p.errorBody(status, e, requestID))
}

// errorMessage is e's message, or the status text when it has none.
func errorMessage(status int, e ErrorReply) string {
	if e.Message != "" {
		return e.Message
	}
	if t := http.StatusText(status); t != "" {
		return t
	}
	return "The server had an error while processing your request."
}

// openAIErrorObject is OpenAI's error object, fields in OpenAI's order.
type openAIErrorObject struct {
	Message string  `json:"message"`
	Type    string  `json:"type"`
	Param   *string `json:"param"`
	Code    *string `json:"code"`
}

// openAIError returns OpenAI's error object with the type and code OpenAI
// uses for status when e names none.
func openAIError(status int, e ErrorReply) openAIErrorObject {
	typ, code := e.Type, e.Code
	if typ == "" {
		switch {
		case status == http.StatusTooManyRequests:
			typ = "requests"
			if code == "" {
				code = "rate_limit_exceeded"
			}
		case status == 0 || status >= 500:
			typ = "server_error"
		default:
			typ = "invalid_request_error"
		}
		if code == "" {
			switch status {
			case http.StatusUnauthorized:
				code = "invalid_api_key"
			case http.StatusNotFound:
				code = "model_not_found"
			}
		}
	}
	obj := openAIErrorObject{Message: errorMessage(status, e), Type: typ}
	if code != "" {
		obj.Code = &code
	}
	return obj
}

// openAIErrorBody is OpenAI's HTTP error envelope.
func openAIErrorBody(status int, e ErrorReply) any {
	return struct {
		Error openAIErrorObject `json:"error"`
	}{openAIError(status, e)}
}

// anthropicErrorType is the error type Anthropic documents for status.
func anthropicErrorType(status int) string {
	switch status {
	case http.StatusBadRequest:
		return "invalid_request_error"
	case http.StatusUnauthorized:
		return "authentication_error"
	case http.StatusPaymentRequired:
		return "billing_error"
	case http.StatusForbidden:
		return "permission_error"
	case http.StatusNotFound:
		return "not_found_error"
	case http.StatusRequestEntityTooLarge:
		return "request_too_large"
	case http.StatusTooManyRequests:
		return "rate_limit_error"
	case http.StatusGatewayTimeout:
		return "timeout_error"
	case http.StatusServiceUnavailable, 529:
		return "overloaded_error"
	}
	if status >= 400 && status < 500 {
		return "invalid_request_error"
	}
	return "api_error"
}

// anthropicErrorObject is Anthropic's inner error object.
type anthropicErrorObject struct {
	Type    string `json:"type"`
	Message string `json:"message"`
}

// anthropicError returns Anthropic's error object for status and e.
func anthropicError(status int, e ErrorReply) anthropicErrorObject {
	typ := e.Type
	if typ == "" {
		typ = anthropicErrorType(status)
	}
	return anthropicErrorObject{Type: typ, Message: errorMessage(status, e)}
}

// anthropicErrorBody is Anthropic's HTTP error envelope.
func anthropicErrorBody(status int, e ErrorReply, requestID string) any {
	return struct {
		Type      string               `json:"type"`
		Error     anthropicErrorObject `json:"error"`
		RequestID string               `json:"request_id,omitempty"`
	}{"error", anthropicError(status, e), requestID}
}
