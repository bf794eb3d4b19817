package mcpserver

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hermes-go/hermes/internal/tool"
)

func TestToResult(t *testing.T) {
	outcome := func(r tool.Result) tool.Outcome { return tool.Outcome{Result: r, Content: r.JSON()} }
	tests := []struct {
		name       string
		out        tool.Outcome
		isError    bool
		texts      []string
		structured string // JSON of StructuredContent; "" means none
		image      string // MIME type of an image part; "" means none
	}{
		{
			name:       "object data",
			out:        outcome(tool.OK(map[string]any{"id": 7, "note": "a<b"})),
			texts:      []string{`{"id":7,"note":"a<b"}`},
			structured: `{"id":7,"note":"a<b"}`,
		},
		{
			name:  "string data",
			out:   outcome(tool.OK("line one\nline two")),
			texts: []string{"line one\nline two"},
		},
		{
			name:  "array data is text only",
			out:   outcome(tool.OK([]int{1, 2})),
			texts: []string{`[1,2]`},
		},
		{
			name:  "no data",
			out:   outcome(tool.OK(nil)),
			texts: []string{""},
		},
		{
			name:       "ok with a cut note",
			out:        outcome(tool.Result{Status: tool.StatusOK, Data: map[string]any{"x": "…"}, Message: "output cut: ask for less"}),
			texts:      []string{`{"x":"…"}`, "output cut: ask for less"},
			structured: `{"x":"…"}`,
		},
		{
			name:    "error",
			out:     outcome(tool.Fail(tool.CodeNotFound, "no order %q", "A-9")),
			isError: true,
			texts:   []string{`not_found: no order "A-9"`},
		},
		{
			name:    "error with data",
			out:     outcome(tool.Result{Status: tool.StatusError, ErrorCode: tool.CodeInternal, Message: "exit 2", Data: "stderr: boom"}),
			isError: true,
			texts:   []string{"internal: exit 2", "stderr: boom"},
		},
		{
			name:       "image",
			out:        outcome(tool.OK(map[string]any{"path": "p.png", "image_data_url": "data:image/png;base64," + tinyPNG})),
			texts:      []string{`{"path":"p.png"}`},
			structured: `{"path":"p.png"}`,
			image:      "image/png",
		},
		{
			name:       "not an image URL stays data",
			out:        outcome(tool.OK(map[string]any{"image_data_url": "https://example.com/a.png"})),
			texts:      []string{`{"image_data_url":"https://example.com/a.png"}`},
			structured: `{"image_data_url":"https://example.com/a.png"}`,
		},
		{
			name:    "content cut to plain text",
			out:     tool.Outcome{Result: tool.Result{Status: tool.StatusError}, Content: `{"status":"error","data":[1,2,` + "\n[output cut]"},
			isError: true,
			texts:   []string{`{"status":"error","data":[1,2,` + "\n[output cut]"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := toResult(tt.out)
			if res.IsError != tt.isError {
				t.Errorf("IsError = %v, want %v", res.IsError, tt.isError)
			}
			var texts []string
			image := ""
			for _, c := range res.Content {
				switch c := c.(type) {
				case *mcp.TextContent:
					texts = append(texts, c.Text)
				case *mcp.ImageContent:
					image = c.MIMEType
					if len(c.Data) == 0 {
						t.Errorf("image part without data")
					}
				}
			}
			if strings.Join(texts, "|") != strings.Join(tt.texts, "|") {
				t.Errorf("texts = %q, want %q", texts, tt.texts)
			}
			if image != tt.image {
				t.Errorf("image MIME type = %q, want %q", image, tt.image)
			}
			structured := ""
			if res.StructuredContent != nil {
				b, err := json.Marshal(res.StructuredContent)
				if err != nil {
					t.Fatal(err)
				}
				structured = string(b)
			}
			if structured != tt.structured && (structured == "" || tt.structured == "" || !sameJSON(t, json.RawMessage(structured), json.RawMessage(tt.structured))) {
				t.Errorf("structured = %s, want %s", structured, tt.structured)
			}
		})
	}
}

func TestObjectSchema(t *testing.T) {
	tests := []struct{ in, want string }{
		{`{"type":"object","properties":{"a":{"type":"string"}}}`, `{"type":"object","properties":{"a":{"type":"string"}}}`},
		{`{"properties":{"a":{"type":"string"}}}`, `{"properties":{"a":{"type":"string"}},"type":"object"}`},
		{`{"type":["object","null"]}`, `{"type":"object"}`},
		{`not json`, `{"type":"object"}`},
	}
	for _, tt := range tests {
		if got := string(objectSchema(json.RawMessage(tt.in))); got != tt.want {
			t.Errorf("objectSchema(%s) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

// TestSync checks that a sync changes only what changed in the registry.
func TestSync(t *testing.T) {
	reg, err := testRegistry()
	if err != nil {
		t.Fatal(err)
	}
	srv, err := newServerOn(reg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if n := srv.Sync(); n != 0 {
		t.Errorf("Sync right after New changed %d tools, want 0", n)
	}
	loose := funcTool{spec: tool.Spec{Name: "loose", Description: "Schema without a type.", Parameters: json.RawMessage(`{"properties":{"q":{"type":"string"}}}`)}, call: greet}
	if err := reg.Swap([]string{"greet", "whoami"}, []tool.Tool{loose}); err != nil {
		t.Fatal(err)
	}
	if n := srv.Sync(); n != 3 {
		t.Errorf("Sync after removing two tools and adding one changed %d, want 3", n)
	}
	if n := srv.Sync(); n != 0 {
		t.Errorf("second Sync changed %d, want 0", n)
	}
	var listed []string
	for _, name := range []string{"loose", "greet", "whoami", "lookup_order"} {
		if _, ok := srv.offered[name]; ok {
			listed = append(listed, name)
		}
	}
	if strings.Join(listed, ",") != "loose,lookup_order" {
		t.Errorf("offered %v, want loose and lookup_order", listed)
	}
}
