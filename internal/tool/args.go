package tool

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// Prepare turns the raw argument text a model produced into the JSON the
// tool receives. Empty text means no arguments ({}). Text that is not JSON
// is refused with a message asking for valid JSON. Otherwise a lenient pass
// guided by the schema repairs the usual slips of models (numbers and
// booleans sent as strings, an object sent as a JSON string, one value
// where a list is expected, stray whitespace, dates in everyday forms);
// arguments that already validate are passed through untouched. What still
// fails validation is reported with every error and its path, so the model
// can fix all of them in one more call.
func (s *Schema) Prepare(raw string) (json.RawMessage, *Error) {
	text := strings.TrimSpace(raw)
	if text == "" || text == "null" {
		text = "{}"
	}
	v, err := decodeJSON(text)
	if err != nil {
		return nil, invalidJSON(s.tool, text, err)
	}
	changed := false
	if str, ok := v.(string); ok {
		// Some models encode the whole arguments object a second time.
		if inner, err := decodeJSON(strings.TrimSpace(str)); err == nil {
			if _, isObj := inner.(map[string]any); isObj {
				v, changed = inner, true
			}
		}
	}
	if _, ok := v.(map[string]any); !ok {
		return nil, Errorf(CodeInvalidArguments,
			"the arguments of %s must be one JSON object such as {\"name\": value}, got %s", s.tool, jsonKind(v))
	}
	root, err := s.compiled()
	if err != nil {
		return nil, Errorf(CodeInternal, "%s cannot be called: %s", s.tool, shortError(err))
	}
	if root.Validate(v) == nil {
		if !changed {
			return json.RawMessage(text), nil
		}
		return s.encode(v)
	}
	v, _ = coerce(root, v, 0)
	if err := root.Validate(v); err != nil {
		return nil, invalidArguments(s.tool, err)
	}
	return s.encode(v)
}

// encode writes coerced arguments back to JSON text for the tool.
func (s *Schema) encode(v any) (json.RawMessage, *Error) {
	b, err := marshalNoEscape(v)
	if err != nil {
		return nil, Errorf(CodeInternal, "the arguments of %s could not be re-encoded: %s", s.tool, shortError(err))
	}
	return b, nil
}

// decodeJSON parses exactly one JSON value, keeping numbers as json.Number
// so large integers survive coercion unchanged.
func decodeJSON(text string) (any, error) {
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("unexpected text after the JSON value at offset %d", dec.InputOffset())
	}
	return v, nil
}

// invalidJSON explains a parse failure in the terms the model can act on.
func invalidJSON(toolName, text string, err error) *Error {
	if LooksTruncated(text) {
		return Errorf(CodeInvalidArguments,
			"the arguments of %s end before the JSON is complete (an open string, object or array); "+
				"the call did not run. Send the complete arguments as one JSON object; if they are long, do the work in smaller calls",
			toolName)
	}
	var syn *json.SyntaxError
	detail := shortError(err)
	if errors.As(err, &syn) {
		detail = fmt.Sprintf("%s at offset %d", syn.Error(), syn.Offset)
	}
	return Errorf(CodeInvalidArguments,
		"the arguments of %s are not valid JSON (%s); the call did not run. "+
			"Send one JSON object that matches the tool's parameters, with double-quoted keys and strings",
		toolName, detail)
}

// LooksTruncated reports whether raw argument text ends inside a string or
// with objects or arrays still open: the mark of a reply cut off by the
// output token limit. The agent loop uses it to stop the turn instead of
// asking the model to resend arguments that will be cut off again.
func LooksTruncated(raw string) bool {
	var stack []byte
	inString, escaped := false, false
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if inString {
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			inString = true
		case '{', '[':
			stack = append(stack, c)
		case '}', ']':
			want := byte('{')
			if c == ']' {
				want = '['
			}
			if len(stack) == 0 || stack[len(stack)-1] != want {
				// A closer that matches nothing is malformed JSON, not a
				// cut-off one.
				return false
			}
			stack = stack[:len(stack)-1]
		}
	}
	return inString || len(stack) > 0
}
