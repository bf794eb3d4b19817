package config

import (
	"errors"
	"reflect"
	"testing"
	"time"
)

// level is a foreign-style TextUnmarshaler whose error is not a problem.
type level int

func (l *level) UnmarshalText(b []byte) error {
	if string(b) != "high" {
		return errors.New("want high")
	}
	*l = 2
	return nil
}

// TestParseLeafKinds covers the kinds future settings will use, so that a
// new bool or float field gets the same checks and messages.
func TestParseLeafKinds(t *testing.T) {
	var s struct {
		B      bool
		U      uint8
		F      float64
		Signed int
		D      time.Duration
		L      level
	}
	v := reflect.ValueOf(&s).Elem()
	cases := []struct {
		field, text, check, problem, formatted string
	}{
		{"B", "yes", "", "", "true"},
		{"B", " off ", "", "", "false"},
		{"B", "maybe", "", "is not accepted; use true or false", ""},
		{"U", "255", "", "", "255"},
		{"U", "256", "", "is too large", ""},
		{"U", "-1", "", "is not accepted; use zero or more", ""},
		{"F", "0.25", "", "", "0.25"},
		{"F", "-0.5", "", "is not accepted; use zero or more", ""},
		{"F", "-0.5", "signed", "", "-0.5"},
		{"F", "warm", "", "is not a number", ""},
		{"Signed", "-3", "signed", "", "-3"},
		{"D", "-2s", "signed", "", "-2s"},
		{"D", "1h0m0s", "", "", "1h"},
		{"D", "99999999999999999", "", `is not a duration; use a Go duration such as "90s" or "2m", or a number of seconds`, ""},
		{"L", "low", "", "is not accepted; want high", ""},
		{"L", "high", "", "", "2"},
	}
	for _, tc := range cases {
		f := v.FieldByName(tc.field)
		before := f.Interface()
		p := parseLeaf(f, tc.text, tc.check)
		if p != tc.problem {
			t.Errorf("%s=%q: problem %q, want %q", tc.field, tc.text, p, tc.problem)
		}
		if p != "" {
			if f.Interface() != before {
				t.Errorf("%s=%q: a rejected value changed the field", tc.field, tc.text)
			}
			continue
		}
		if got := formatLeaf(f); got != tc.formatted {
			t.Errorf("%s=%q: formatted %q, want %q", tc.field, tc.text, got, tc.formatted)
		}
	}
}

func TestLooksSecret(t *testing.T) {
	for _, tc := range []struct {
		name, value string
		want        bool
	}{
		{"Authorization", "anything", true},
		{"X-Api-Key", "k", true},
		{"Cookie", "a=b", true},
		{"X-Custom", "Bearer abc", true},
		{"X-Custom", "a1b2c3d4e5f6g7h8i9j0", true},
		{"X-Title", "hermes", false},
		{"HTTP-Referer", "https://example.com/a1b2c3d4e5f6g7h8i9j0", false},
		{"X-Custom", "all letters no digits here", false},
	} {
		if got := looksSecret(tc.name, tc.value); got != tc.want {
			t.Errorf("looksSecret(%q, %q) = %v", tc.name, tc.value, got)
		}
	}
}
