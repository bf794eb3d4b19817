package tool

import (
	"errors"
	"fmt"
)

// Code classifies a failed call so the model (and callers that branch) can
// tell what to do next.
type Code string

// The error codes a Result can carry.
const (
	CodeInvalidArguments    Code = "invalid_arguments"
	CodeNotFound            Code = "not_found"
	CodeTimeout             Code = "timeout"
	CodeDenied              Code = "denied"
	CodeUpstreamUnavailable Code = "upstream_unavailable"
	CodeInternal            Code = "internal"
	// CodeInterrupted answers a call that never ran or was cut off because
	// the turn was cancelled.
	CodeInterrupted Code = "interrupted"
)

// Status is "ok" or "error".
type Status string

// The two statuses of a Result.
const (
	StatusOK    Status = "ok"
	StatusError Status = "error"
)

// Result is the envelope every tool outcome reaches the model as:
// {"status": "ok"|"error", "data": ..., "error_code": "...", "message": "..."}.
type Result struct {
	Status    Status `json:"status"`
	Data      any    `json:"data,omitempty"`
	ErrorCode Code   `json:"error_code,omitempty"`
	Message   string `json:"message,omitempty"`
}

// OK is a successful result carrying data.
func OK(data any) Result { return Result{Status: StatusOK, Data: data} }

// Fail is a failed result with a code and a message for the model.
func Fail(code Code, format string, args ...any) Result {
	return Result{Status: StatusError, ErrorCode: code, Message: fmt.Sprintf(format, args...)}
}

// Error is a classified tool failure. Tools return it to choose the
// envelope's error_code; Retryable marks failures worth another try even
// for a tool that is not idempotent (the call surely did not take effect).
type Error struct {
	Code      Code
	Message   string
	Retryable bool
	// Data, when set, goes into the error envelope's data field (for
	// example the output of a command that exited non-zero).
	Data any
}

func (e *Error) Error() string { return string(e.Code) + ": " + e.Message }

// Errorf returns an *Error with the code and a formatted message.
func Errorf(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// AsError returns err's *Error, if it has one.
func AsError(err error) (*Error, bool) {
	var te *Error
	ok := errors.As(err, &te)
	return te, ok
}
