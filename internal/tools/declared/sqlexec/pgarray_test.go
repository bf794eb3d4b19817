package sqlexec

import (
	"testing"
	"time"
)

func TestPGArray(t *testing.T) {
	tests := []struct {
		text, elem string
		want       string // JSON, or "" when the text is kept
	}{
		{"{1,2,3}", "INT4", `[1,2,3]`},
		{"{1,NULL,3}", "INT8", `[1,null,3]`},
		{"{}", "TEXT", `[]`},
		{`{a,"b c","q\"r","back\\slash","NULL",null,""}`, "TEXT", `["a","b c","q\"r","back\\slash","NULL",null,""]`},
		{"{{1,2},{3,4}}", "INT2", `[[1,2],[3,4]]`},
		{"{t,f,NULL}", "BOOL", `[true,false,null]`},
		{"{1.50,NaN,-2e3}", "NUMERIC", `[1.50,"NaN",-2e3]`},
		{"{Infinity,0.5}", "FLOAT8", `["Infinity",0.5]`},
		{`{"{\"k\": [1]}",null}`, "JSONB", `[{"k":[1]},null]`},
		{`{"not json"}`, "JSON", `["not json"]`},
		{"{a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11}", "UUID", `["a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"]`},
		// Kept as text: explicit bounds, element types not taken apart,
		// and anything malformed.
		{"[0:1]={1,2}", "INT4", ""},
		{`{"2026-01-02 03:04:05+00"}`, "TIMESTAMPTZ", ""},
		{"{(0,0),(1,1);(2,2),(3,3)}", "BOX", ""},
		{"{1,2", "INT4", ""},
		{"{1,,2}", "INT4", ""},
		{`{"open}`, "TEXT", ""},
		{"{1,2}x", "INT4", ""},
		{`{a"b}`, "TEXT", ""},
		{"", "TEXT", ""},
	}
	for _, tt := range tests {
		got, ok := pgArray(tt.text, tt.elem)
		switch {
		case tt.want == "" && ok:
			t.Errorf("pgArray(%q, %s) = %s; want the text kept", tt.text, tt.elem, asJSON(t, got))
		case tt.want != "" && !ok:
			t.Errorf("pgArray(%q, %s) failed; want %s", tt.text, tt.elem, tt.want)
		case tt.want != "" && asJSON(t, got) != tt.want:
			t.Errorf("pgArray(%q, %s) = %s; want %s", tt.text, tt.elem, asJSON(t, got), tt.want)
		}
	}
}

// Values as lib/pq hands them over, without a server.
func TestJSONValueOfPostgresText(t *testing.T) {
	clock := time.Date(0, 1, 1, 3, 4, 5, 250_000_000, time.FixedZone("", 2*3600))
	stamp := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	tests := []struct {
		v    any
		kind string
		want string
	}{
		{[]byte("1.50"), "NUMERIC", `1.50`},
		{[]byte("NaN"), "NUMERIC", `"NaN"`},
		{[]byte(`{"k": 1}`), "JSONB", `{"k":1}`},
		{[]byte(`[1, 2]`), "JSON", `[1,2]`},
		{[]byte("{a,b}"), "_TEXT", `["a","b"]`},
		{[]byte("{a,b}"), "_INTERVAL", `"{a,b}"`},
		{[]byte("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"), "UUID", `"a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"`},
		{[]byte{0, 0xff}, "BYTEA", `"AP8="`},
		{clock, "TIME", `"03:04:05.25"`},
		{clock, "TIMETZ", `"03:04:05.25+02:00"`},
		{stamp, "DATE", `"2026-01-02"`},
		{stamp, "TIMESTAMPTZ", `"2026-01-02T03:04:05Z"`},
		// A TIME column from elsewhere (SQLite's declared types) holding a
		// full date keeps it.
		{stamp, "TIME", `"2026-01-02T03:04:05Z"`},
		{int64(7), "INT2", `7`},
		{true, "BOOL", `true`},
	}
	for _, tt := range tests {
		if got := asJSON(t, jsonValue(tt.v, tt.kind)); got != tt.want {
			t.Errorf("jsonValue(%#v, %s) = %s; want %s", tt.v, tt.kind, got, tt.want)
		}
	}
}
