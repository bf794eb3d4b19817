package tool

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestResolve(t *testing.T) {
	r := newRegistry(t,
		simple("read_file", "files", objSchema),
		simple("write_file", "files", objSchema),
		simple("web_search", "web", objSchema),
		simple("http_request", "web", objSchema),
		simple("todo", "x", objSchema),
		simple("Mixed", "x", objSchema),
		simple("queue_a", "x", objSchema),
		simple("queue_b", "x", objSchema),
	)
	tests := []struct {
		called, want string
	}{
		{"read_file", "read_file"},
		{"READ_FILE", "read_file"},
		{"mixed", "Mixed"},
		{"read-file", "read_file"},
		{"read file", "read_file"},
		{"read.file", "read_file"},
		{"ReadFile", "read_file"},
		{"readFile", "read_file"},
		{"HTTPRequest", "http_request"},
		{"functions.read_file", "read_file"},
		{"functions.WebSearch", "web_search"},
		{"default_api.web_search", "web_search"},
		{"read_file_tool", "read_file"},
		{"tool_web_search", "web_search"},
		{"  web_search ", "web_search"},
		{"read_fiel", "read_file"},
		{"web_serch", "web_search"},
		{"websearch", "web_search"},
		{"todos", "todo"},
		// Misses: too far, ambiguous, or too short to guess.
		{"rite_fil", "write_file"},
		{"queue_c", ""},
		{"rxxe_fxl", ""},
		{"xx_file", ""},
		{"td", ""},
		{"delete_everything", ""},
		{"", ""},
	}
	for _, tt := range tests {
		tl, got, ok := r.Resolve(tt.called)
		if got != tt.want || ok != (tt.want != "") || (ok && tl.Spec().Name != tt.want) {
			t.Errorf("Resolve(%q) = %q, %v; want %q", tt.called, got, ok, tt.want)
		}
	}
}

func TestResolveAmbiguousNormalization(t *testing.T) {
	r := newRegistry(t, simple("read_file", "a", objSchema), simple("read-file", "a", objSchema))
	if _, name, ok := r.Resolve("ReadFile"); ok {
		t.Errorf("Resolve(ReadFile) = %q with two tools of that normalized name, want no match", name)
	}
	if _, name, ok := r.Resolve("read-file"); !ok || name != "read-file" {
		t.Errorf("exact name not preferred: %q", name)
	}
}

func TestNormalizeName(t *testing.T) {
	for in, want := range map[string]string{
		"ReadFile":         "read_file",
		"getHTTPResponse":  "get_http_response",
		"functions.Search": "search",
		"search__tool":     "search",
		"--weird  name--":  "weird_name",
		"tool_tool":        "tool",
		"list_files_v2":    "list_files_v2",
		"listFilesV2":      "list_files_v2",
		"查询订单":             "查询订单",
	} {
		if got := normalizeName(in); got != want {
			t.Errorf("normalizeName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestUnknownToolResult(t *testing.T) {
	r := newRegistry(t, simple("b", "x", objSchema), simple("a", "x", objSchema))
	res := r.UnknownToolResult("nope")
	if res.Status != StatusError || res.ErrorCode != CodeNotFound {
		t.Fatalf("UnknownToolResult = %+v", res)
	}
	if !strings.Contains(res.Message, `"nope"`) || !strings.Contains(res.Message, "a, b") {
		t.Errorf("message %q does not name the call and list the tools in order", res.Message)
	}
	var env map[string]any
	if err := json.Unmarshal([]byte(res.JSON()), &env); err != nil {
		t.Fatal(err)
	}
}
