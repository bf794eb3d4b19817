package tool

import "testing"

// coerceSchema declares one property per kind of coercion.
const coerceSchema = `{
  "type": "object",
  "properties": {
    "limit":   {"type": "integer", "minimum": 1},
    "ratio":   {"type": "number"},
    "flag":    {"type": "boolean"},
    "name":    {"type": "string"},
    "id":      {"type": "string"},
    "day":     {"type": "string", "format": "date"},
    "days":    {"type": "array", "items": {"type": "string", "format": "date"}},
    "tags":    {"type": "array", "items": {"type": "string"}},
    "ids":     {"type": "array", "items": {"type": "integer"}},
    "status":  {"type": "string", "enum": ["pending", "paid", "shipped"]},
    "filter":  {"type": "object", "properties": {"min": {"type": "integer"}, "since": {"type": "string", "format": "date"}}},
    "body":    {"type": "string"},
    "either":  {"anyOf": [{"type": "integer"}, {"type": "boolean"}]},
    "maybe":   {"type": ["integer", "null"]},
    "ref":     {"$ref": "#/$defs/count"},
    "pair":    {"type": "array", "prefixItems": [{"type": "integer"}, {"type": "boolean"}]},
    "word":    {"type": "string", "pattern": "^[a-z]+$"}
  },
  "required": ["name"],
  "$defs": {"count": {"type": "integer"}}
}`

func TestPrepareCoercion(t *testing.T) {
	s := mustSchema(t, coerceSchema)
	tests := []struct {
		name, in, want string
	}{
		// Valid input passes through byte for byte, even where a coercion
		// could apply.
		{"valid untouched", `{"name":" padded ","limit":2}`, `{"name":" padded ","limit":2}`},
		{"valid whitespace kept", ` {"name": "x"} `, `{"name": "x"}`},

		{"integer string", `{"name":"x","limit":"5"}`, `{"limit":5,"name":"x"}`},
		{"integer string padded", `{"name":"x","limit":" 5 "}`, `{"limit":5,"name":"x"}`},
		{"integer with plus", `{"name":"x","limit":"+7"}`, `{"limit":7,"name":"x"}`},
		{"integer written as 5.0", `{"name":"x","limit":"5.0"}`, `{"limit":5,"name":"x"}`},
		{"big integer exact", `{"name":"x","limit":"9007199254740993"}`, `{"limit":9007199254740993,"name":"x"}`},
		{"number string", `{"name":"x","ratio":"0.25"}`, `{"name":"x","ratio":0.25}`},
		{"number string exponent", `{"name":"x","ratio":"1e3"}`, `{"name":"x","ratio":1e3}`},
		{"number leading dot", `{"name":"x","ratio":".5"}`, `{"name":"x","ratio":0.5}`},
		{"boolean true", `{"name":"x","flag":"true"}`, `{"flag":true,"name":"x"}`},
		{"boolean False", `{"name":"x","flag":"False"}`, `{"flag":false,"name":"x"}`},
		{"boolean yes", `{"name":"x","flag":"yes"}`, `{"flag":true,"name":"x"}`},
		{"boolean no", `{"name":"x","flag":"NO"}`, `{"flag":false,"name":"x"}`},
		{"boolean from 1", `{"name":"x","flag":1}`, `{"flag":true,"name":"x"}`},
		{"number to string", `{"name":"x","id":12345}`, `{"id":"12345","name":"x"}`},
		{"bool to string", `{"name":true}`, `{"name":"true"}`},
		{"object as string", `{"name":"x","filter":"{\"min\":\"2\"}"}`, `{"filter":{"min":2},"name":"x"}`},
		{"array as string", `{"name":"x","tags":"[\"a\",\"b\"]"}`, `{"name":"x","tags":["a","b"]}`},
		{"array of ints as string", `{"name":"x","ids":"[1, \"2\"]"}`, `{"ids":[1,2],"name":"x"}`},
		{"single value for array", `{"name":"x","tags":"a"}`, `{"name":"x","tags":["a"]}`},
		{"single number for array", `{"name":"x","ids":"3"}`, `{"ids":[3],"name":"x"}`},
		{"single int for array", `{"name":"x","ids":4}`, `{"ids":[4],"name":"x"}`},
		{"one-item array for scalar", `{"name":["x"]}`, `{"name":"x"}`},
		{"enum case", `{"name":"x","status":"Paid"}`, `{"name":"x","status":"paid"}`},
		{"enum whitespace", `{"name":"x","status":" shipped\n"}`, `{"name":"x","status":"shipped"}`},
		{"pattern whitespace", `{"name":"x","word":" abc "}`, `{"name":"x","word":"abc"}`},
		{"date chinese", `{"name":"x","day":"2024年1月1日"}`, `{"day":"2024-01-01","name":"x"}`},
		{"date slashes", `{"name":"x","day":"2024/1/1"}`, `{"day":"2024-01-01","name":"x"}`},
		{"date dots", `{"name":"x","day":"2024.1.1"}`, `{"day":"2024-01-01","name":"x"}`},
		{"date english", `{"name":"x","day":"January 1, 2024"}`, `{"day":"2024-01-01","name":"x"}`},
		{"dates in array", `{"name":"x","days":["Jan 2 2024","3 Feb 2024"]}`, `{"days":["2024-01-02","2024-02-03"],"name":"x"}`},
		{"single date for array", `{"name":"x","days":"2024年3月5日"}`, `{"days":["2024-03-05"],"name":"x"}`},
		{"nested object", `{"name":"x","filter":{"min":"10","since":"2024/2/29"}}`, `{"filter":{"min":10,"since":"2024-02-29"},"name":"x"}`},
		{"optional null dropped", `{"name":"x","limit":null}`, `{"name":"x"}`},
		{"nullable null kept", `{"name":"x","maybe":null,"limit":"2"}`, `{"limit":2,"maybe":null,"name":"x"}`},
		{"nullable from string", `{"name":"x","maybe":"6"}`, `{"maybe":6,"name":"x"}`},
		{"anyOf picks integer", `{"name":"x","either":"8"}`, `{"either":8,"name":"x"}`},
		{"anyOf picks boolean", `{"name":"x","either":"true"}`, `{"either":true,"name":"x"}`},
		{"through ref", `{"name":"x","ref":"9"}`, `{"name":"x","ref":9}`},
		{"prefix items", `{"name":"x","pair":["1","yes"]}`, `{"name":"x","pair":[1,true]}`},
		{"unknown property kept", `{"name":"x","extra":"1","limit":"1"}`, `{"extra":"1","limit":1,"name":"x"}`},
		{"object for string", `{"name":"x","body":{"a":"<b>"}}`, `{"body":"{\"a\":\"<b>\"}","name":"x"}`},
		{"double-encoded arguments", `"{\"name\":\"x\"}"`, `{"name":"x"}`},
		{"empty", ``, `{}`},
		{"null", `null`, `{}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := s.Prepare(tt.in)
			if tt.name == "empty" || tt.name == "null" {
				// The schema requires name: only the text is checked.
				if err == nil || err.Code != CodeInvalidArguments {
					t.Fatalf("Prepare(%q) error = %v, want missing name", tt.in, err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Prepare(%s) error: %s", tt.in, err.Message)
			}
			if string(got) != tt.want {
				t.Errorf("Prepare(%s) = %s, want %s", tt.in, got, tt.want)
			}
		})
	}
}

func TestPrepareDoesNotCoerce(t *testing.T) {
	s := mustSchema(t, coerceSchema)
	tests := []struct {
		name, in, wantErr string
	}{
		{"not a number", `{"name":"x","limit":"five"}`, "at '/limit': got string, want integer"},
		{"fraction for integer", `{"name":"x","limit":"2.5"}`, "at '/limit'"},
		{"NaN", `{"name":"x","ratio":"NaN"}`, "at '/ratio'"},
		{"hex", `{"name":"x","ratio":"0x10"}`, "at '/ratio'"},
		{"maybe for boolean", `{"name":"x","flag":"maybe"}`, "at '/flag'"},
		{"2 for boolean", `{"name":"x","flag":2}`, "at '/flag'"},
		{"ambiguous date", `{"name":"x","day":"01/02/2024"}`, "at '/day'"},
		{"impossible date", `{"name":"x","day":"2023年2月29日"}`, "at '/day'"},
		{"enum two folds", `{"name":"x","status":"lost"}`, "at '/status': value must be one of"},
		{"coerced but out of range", `{"name":"x","limit":"0"}`, "at '/limit': minimum: got 0, want 1"},
		{"required null", `{"name":null}`, "at '/name': got null, want string"},
		{"long array for scalar", `{"name":["a","b"]}`, "at '/name'"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := s.Prepare(tt.in)
			if err == nil {
				t.Fatalf("Prepare(%s) = %s, want an error containing %q", tt.in, got, tt.wantErr)
			}
			if err.Code != CodeInvalidArguments || !contains(err.Message, tt.wantErr) {
				t.Errorf("Prepare(%s) error = %s, want it to contain %q", tt.in, err.Message, tt.wantErr)
			}
		})
	}
}

func TestEnumFoldAmbiguous(t *testing.T) {
	s := mustSchema(t, `{"type":"object","properties":{"m":{"enum":["Fast","fast","slow"]}}}`)
	if got, err := s.Prepare(`{"m":"FAST"}`); err == nil {
		t.Errorf("Prepare folded an ambiguous enum value to %s", got)
	}
	if got, err := s.Prepare(`{"m":" slow"}`); err != nil || string(got) != `{"m":"slow"}` {
		t.Errorf("Prepare = %s, %v", got, err)
	}
}

func TestNumberNotTurnedIntoText(t *testing.T) {
	s := mustSchema(t, `{"type":"object","properties":{"n":{"type":["string","integer"],"minimum":1}}}`)
	if got, err := s.Prepare(`{"n":0}`); err == nil {
		t.Errorf("Prepare turned a number below the minimum into %s", got)
	}
}
