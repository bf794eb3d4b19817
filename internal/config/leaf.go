package config

import (
	"encoding"
	"errors"
	"net/url"
	"reflect"
	"strconv"
	"strings"
	"time"
)

// One parser serves every layer: a value from config.yaml, from a HERMES_*
// variable, from a flag or from Set is parsed and checked by the same code,
// so the same mistake gets the same message wherever it was made.

var (
	durationType        = reflect.TypeOf(time.Duration(0))
	secretType          = reflect.TypeOf(Secret(""))
	textUnmarshalerType = reflect.TypeOf((*encoding.TextUnmarshaler)(nil)).Elem()
)

// isLeaf reports whether values of t are written as one scalar.
func isLeaf(t reflect.Type) bool {
	if t == durationType || reflect.PointerTo(t).Implements(textUnmarshalerType) {
		return true
	}
	switch t.Kind() {
	case reflect.String, reflect.Bool, reflect.Float32, reflect.Float64,
		reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return true
	}
	return false
}

// parseLeaf parses text into the addressable leaf v and applies the
// field's check tag. It returns the problem phrase that follows the quoted
// value in a FieldError, or "" when the value is accepted; v is changed only
// on success.
func parseLeaf(v reflect.Value, text, check string) string {
	t := v.Type()
	nv := reflect.New(t)
	switch {
	case t == durationType:
		d, ok := parseDuration(text)
		if !ok {
			return `is not a duration; use a Go duration such as "90s" or "2m", or a number of seconds`
		}
		if d < 0 && check != "signed" {
			return "is not accepted; use zero or more"
		}
		nv.Elem().SetInt(int64(d))
	case reflect.PointerTo(t).Implements(textUnmarshalerType):
		if err := nv.Interface().(encoding.TextUnmarshaler).UnmarshalText([]byte(text)); err != nil {
			var p problem
			if errors.As(err, &p) {
				return string(p)
			}
			return "is not accepted; " + err.Error()
		}
	default:
		if p := parseKind(nv.Elem(), strings.TrimSpace(text), text, check); p != "" {
			return p
		}
	}
	if p := checkValue(nv.Elem(), check); p != "" {
		return p
	}
	v.Set(nv.Elem())
	return ""
}

// parseKind parses the basic kinds. Strings keep their text as written;
// numbers and booleans ignore surrounding space.
func parseKind(v reflect.Value, trimmed, raw, check string) string {
	switch v.Kind() {
	case reflect.String:
		v.SetString(raw)
	case reflect.Bool:
		switch strings.ToLower(trimmed) {
		case "true", "yes", "on", "1":
			v.SetBool(true)
		case "false", "no", "off", "0":
			v.SetBool(false)
		default:
			return "is not accepted; use true or false"
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n, err := strconv.ParseInt(trimmed, 10, v.Type().Bits())
		if err != nil {
			if errors.Is(err, strconv.ErrRange) {
				return "is too large"
			}
			return "is not an integer"
		}
		if n < 0 && check != "signed" {
			return "is not accepted; use zero or more"
		}
		v.SetInt(n)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		n, err := strconv.ParseUint(trimmed, 10, v.Type().Bits())
		if err != nil {
			if errors.Is(err, strconv.ErrRange) {
				return "is too large"
			}
			return "is not accepted; use zero or more"
		}
		v.SetUint(n)
	case reflect.Float32, reflect.Float64:
		f, err := strconv.ParseFloat(trimmed, v.Type().Bits())
		if err != nil {
			return "is not a number"
		}
		if f < 0 && check != "signed" {
			return "is not accepted; use zero or more"
		}
		v.SetFloat(f)
	default:
		return "cannot be set from text"
	}
	return ""
}

// parseDuration reads a Go duration or a plain number of seconds.
func parseDuration(text string) (time.Duration, bool) {
	s := strings.TrimSpace(text)
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		if n > int64(1<<63-1)/int64(time.Second) || n < -int64(1<<63-1)/int64(time.Second) {
			return 0, false
		}
		return time.Duration(n) * time.Second, true
	}
	d, err := time.ParseDuration(s)
	return d, err == nil
}

// checkValue applies a field's check tag to a parsed value.
func checkValue(v reflect.Value, check string) string {
	if v.Kind() != reflect.String {
		return ""
	}
	s := v.String()
	if s == "" {
		return ""
	}
	switch check {
	case "url":
		u, err := url.Parse(s)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return "is not accepted; use an http:// or https:// URL"
		}
	case "envname":
		if !validEnvName(s) {
			return `is not accepted; use a variable name such as "OPENROUTER_API_KEY"`
		}
	case "timezone":
		if s != "Local" {
			if _, err := time.LoadLocation(s); err != nil {
				return `is not accepted; use an IANA time zone such as "Asia/Shanghai" or "UTC"`
			}
		}
	}
	return ""
}

// validEnvName reports whether s can name an environment variable.
func validEnvName(s string) bool {
	if s == "" {
		return false
	}
	for i, c := range s {
		if c != '_' && !(c >= 'A' && c <= 'Z') && !(c >= 'a' && c <= 'z') && !(i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// formatLeaf writes a leaf the way a person would type it back: durations
// as "2m" rather than "2m0s", secrets in full (callers redact).
func formatLeaf(v reflect.Value) string {
	if m, ok := v.Interface().(encoding.TextMarshaler); ok && v.Kind() != reflect.String {
		if b, err := m.MarshalText(); err == nil {
			return string(b)
		}
	}
	switch {
	case v.Type() == durationType:
		return formatDuration(time.Duration(v.Int()))
	case v.Kind() == reflect.String:
		return v.String()
	case v.Kind() == reflect.Bool:
		return strconv.FormatBool(v.Bool())
	case v.CanInt():
		return strconv.FormatInt(v.Int(), 10)
	case v.CanUint():
		return strconv.FormatUint(v.Uint(), 10)
	case v.CanFloat():
		return strconv.FormatFloat(v.Float(), 'g', -1, v.Type().Bits())
	}
	if m, ok := v.Interface().(encoding.TextMarshaler); ok {
		if b, err := m.MarshalText(); err == nil {
			return string(b)
		}
	}
	return ""
}

// formatDuration trims the zero units time.Duration.String leaves behind.
func formatDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// yamlTag is the tag a leaf's scalar carries when written, so that "123"
// stays a string and 123 stays a number.
func yamlTag(t reflect.Type) string {
	if t == durationType || reflect.PointerTo(t).Implements(textUnmarshalerType) {
		return "!!str"
	}
	switch t.Kind() {
	case reflect.Bool:
		return "!!bool"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "!!int"
	case reflect.Float32, reflect.Float64:
		return "!!float"
	}
	return "!!str"
}
