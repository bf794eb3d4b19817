package tool

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// coerceString repairs a string value: stray whitespace, a date in an
// everyday form where the schema says format "date", the wrong case of an
// enum value, a number or boolean written as text, an object or array
// written as JSON text, or one value where a list is expected. The first
// repair that makes sense for the accepted types wins; the caller
// validates the outcome.
func coerceString(s *jsonschema.Schema, want kinds, x string, depth int) (any, bool) {
	t := trimmed(x)
	if want == 0 || want.has(kString) {
		c := t
		if s.Format != nil && s.Format.Name == "date" {
			if d, ok := NormalizeDate(c); ok {
				c = d
			}
		}
		if s.Enum != nil {
			c = foldEnum(s.Enum.Values, c)
		}
		if c != x && s.Validate(c) == nil {
			return c, true
		}
	}
	if want.has(kInteger) {
		if n, ok := parseInteger(t); ok {
			return n, true
		}
	}
	if want.has(kNumber) {
		if n, ok := parseNumber(t); ok {
			return n, true
		}
	}
	if want.has(kBoolean) {
		if b, ok := parseBool(t); ok {
			return b, true
		}
	}
	if want.has(kNull) && strings.EqualFold(t, "null") {
		return nil, true
	}
	if want.has(kObject|kArray) && t != "" && (t[0] == '{' || t[0] == '[') {
		if inner, err := decodeJSON(t); err == nil {
			if _, isStr := inner.(string); !isStr {
				c, _ := coerce(s, inner, depth+1)
				return c, true
			}
		}
	}
	if want.has(kArray) {
		return wrap(s, t, depth)
	}
	if t != x {
		return t, true
	}
	return nil, false
}

// coerceNumber repairs a number sent where text, a flag or a list is
// expected: an id such as 12345 for a string field is the common case.
func coerceNumber(s *jsonschema.Schema, want kinds, n json.Number) (any, bool) {
	switch {
	case want.has(kString) && !want.has(kNumber|kInteger):
		// Where numbers are also accepted the number itself failed a
		// numeric rule; turning it into text would only hide that.
		return n.String(), true
	case want.has(kBoolean) && (n == "0" || n == "1"):
		return n == "1", true
	case want.has(kArray):
		return wrap(s, n, 0)
	}
	return nil, false
}

// coerceBool repairs a boolean sent where text or a list is expected.
func coerceBool(s *jsonschema.Schema, want kinds, b bool) (any, bool) {
	switch {
	case want.has(kString):
		return strconv.FormatBool(b), true
	case want.has(kArray):
		return wrap(s, b, 0)
	}
	return nil, false
}

// parseInteger accepts "5", "+5", "-3" and "5.0" as integers. Text that is
// not a whole number is left for validation to report.
func parseInteger(t string) (json.Number, bool) {
	t = strings.TrimPrefix(t, "+")
	if i, err := strconv.ParseInt(t, 10, 64); err == nil {
		return json.Number(strconv.FormatInt(i, 10)), true
	}
	f, ok := parseFloat(t)
	if !ok || f != math.Trunc(f) || math.Abs(f) > 1<<53 {
		return "", false
	}
	return json.Number(strconv.FormatInt(int64(f), 10)), true
}

// parseNumber accepts decimal numbers written as text; the result keeps
// the model's digits when they are already valid JSON.
func parseNumber(t string) (json.Number, bool) {
	t = strings.TrimPrefix(t, "+")
	f, ok := parseFloat(t)
	if !ok {
		return "", false
	}
	if json.Valid([]byte(t)) {
		return json.Number(t), true
	}
	return json.Number(strconv.FormatFloat(f, 'g', -1, 64)), true
}

// parseFloat accepts plain decimal notation only: strconv alone would also
// take "Inf", "NaN", hex floats and underscores, which no model means as a
// number here.
func parseFloat(t string) (float64, bool) {
	if t == "" {
		return 0, false
	}
	for i := 0; i < len(t); i++ {
		c := t[i]
		if !(c >= '0' && c <= '9' || c == '.' || c == '-' || c == 'e' || c == 'E' || c == '+') {
			return 0, false
		}
	}
	f, err := strconv.ParseFloat(t, 64)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		return 0, false
	}
	return f, true
}

// parseBool accepts the spellings of yes and no that cannot mean anything
// else: true/false, yes/no, on/off, 1/0, in any case.
func parseBool(t string) (bool, bool) {
	switch strings.ToLower(t) {
	case "true", "yes", "on", "1":
		return true, true
	case "false", "no", "off", "0":
		return false, true
	}
	return false, false
}

// foldEnum returns the enum's own spelling of t when exactly one string
// value matches it ignoring case; otherwise t unchanged.
func foldEnum(values []any, t string) string {
	match := ""
	for _, v := range values {
		s, ok := v.(string)
		if !ok || !strings.EqualFold(s, t) {
			continue
		}
		if s == t {
			return t
		}
		if match != "" {
			return t
		}
		match = s
	}
	if match == "" {
		return t
	}
	return match
}
