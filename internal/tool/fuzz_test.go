package tool

import (
	"encoding/json"
	"testing"
)

// FuzzPrepare feeds arbitrary argument text through Prepare against a
// schema exercising every coercion. Prepare must not panic, must return
// either JSON that validates or an invalid_arguments error, and must leave
// valid arguments untouched.
func FuzzPrepare(f *testing.F) {
	s := mustSchema(f, coerceSchema)
	for _, seed := range []string{
		`{"name":"x","limit":"5"}`,
		`{"name":"x","day":"2024年1月1日","days":"Jan 1 2024"}`,
		`{"name":["x"],"filter":"{\"min\":\"2\"}"}`,
		`"{\"name\":\"x\"}"`,
		`{"name": "a`,
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		out, err := s.Prepare(raw)
		if err != nil {
			if err.Code != CodeInvalidArguments {
				t.Fatalf("Prepare(%q) error code %s, want invalid_arguments", raw, err.Code)
			}
			if err.Message == "" {
				t.Fatalf("Prepare(%q) returned an empty message", raw)
			}
			return
		}
		v, derr := decodeJSON(string(out))
		if derr != nil {
			t.Fatalf("Prepare(%q) = %q, not JSON: %v", raw, out, derr)
		}
		if verr := s.root.Validate(v); verr != nil {
			t.Fatalf("Prepare(%q) = %s, which does not validate: %v", raw, out, verr)
		}
		if json.Valid([]byte(raw)) {
			if orig, derr := decodeJSON(raw); derr == nil {
				if _, isObj := orig.(map[string]any); isObj && s.root.Validate(orig) == nil && json.Valid(out) {
					var a, b any
					_ = json.Unmarshal([]byte(raw), &a)
					_ = json.Unmarshal(out, &b)
					ab, _ := json.Marshal(a)
					bb, _ := json.Marshal(b)
					if string(ab) != string(bb) {
						t.Fatalf("valid arguments %s were changed to %s", raw, out)
					}
				}
			}
		}
	})
}
