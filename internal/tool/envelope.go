package tool

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/hermes-go/hermes/internal/safety/redact"
)

// JSON returns the envelope as the model sees it: compact JSON with the
// keys in the order status, data, error_code, message. Non-ASCII text and
// the characters <, > and & are written as they are, because escaping them
// costs the model tokens and makes Chinese output unreadable in logs.
//
// Data that cannot be encoded (a channel, a cyclic value, invalid
// json.RawMessage) does not reach the model as broken JSON: the result
// becomes an "internal" error envelope that says what went wrong.
func (r Result) JSON() string {
	s, err := r.encode()
	if err != nil {
		fallback := Result{
			Status:    StatusError,
			ErrorCode: CodeInternal,
			Message:   "the tool's result could not be encoded as JSON: " + shortError(err),
		}
		s, _ = fallback.encode()
	}
	return s
}

// encode writes r with HTML escaping off and without the trailing newline
// json.Encoder adds.
func (r Result) encode() (string, error) {
	if r.Status == "" {
		r.Status = StatusOK
		if r.ErrorCode != "" {
			r.Status = StatusError
		}
	}
	b, err := marshalNoEscape(r)
	return string(b), err
}

// marshalNoEscape encodes v like json.Marshal but leaves <, > and & alone.
func marshalNoEscape(v any) ([]byte, error) {
	var buf bytes.Buffer
	buf.Grow(256)
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte{'\n'}), nil
}

// shortError keeps an error message to one reasonably short line, because
// it is shown to the model and long Go error chains waste its context.
func shortError(err error) string {
	s := strings.ReplaceAll(err.Error(), "\n", " ")
	const max = 300
	if len(s) > max {
		cut := max
		for cut > 0 && !isRuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return s
}

// isRuneStart reports whether b begins a UTF-8 sequence.
func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }

// redactResult cleans a result of secrets before it is encoded: its
// message, and its data string by string (redact.JSON), so the envelope
// stays valid JSON and is cut to size after redaction, never through a
// secret. Data that does not encode is left to render, which reports it.
func redactResult(res Result, clean func(string) string) Result {
	if res.Message != "" {
		res.Message = clean(res.Message)
	}
	switch v := res.Data.(type) {
	case nil:
	case string:
		res.Data = clean(v)
	default:
		b, err := marshalNoEscape(v)
		if err != nil {
			return res
		}
		if red := redact.JSON(b, clean); !bytes.Equal(red, b) {
			res.Data = json.RawMessage(red)
		}
	}
	return res
}
