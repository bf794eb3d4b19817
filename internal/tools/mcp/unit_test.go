package mcp

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hermes-go/hermes/internal/tool"
)

func TestToolName(t *testing.T) {
	long := strings.Repeat("x", 70)
	tests := []struct{ server, tool, want string }{
		{"everything", "get-sum", "mcp__everything__get-sum"},
		{"my server", "files.read/v2", "mcp__my_server__files_read_v2"},
		{"é", "ü", "mcp______"},
	}
	for _, tc := range tests {
		if got := ToolName(tc.server, tc.tool); got != tc.want {
			t.Errorf("ToolName(%q, %q) = %q, want %q", tc.server, tc.tool, got, tc.want)
		}
	}
	a, b := ToolName("s", long+"a"), ToolName("s", long+"b")
	if len(a) != maxToolName || len(b) != maxToolName || a == b || ToolName("s", long+"a") != a {
		t.Errorf("long names %q and %q must be 64 characters, distinct and stable", a, b)
	}
	for _, name := range []string{a, ToolName("é", "ü"), ToolName("a b", "c:d")} {
		if _, err := tool.CompileSchema(name, nil); err != nil {
			t.Errorf("%q: %v", name, err)
		}
		if err := tool.NewRegistry().Register(&remoteTool{spec: tool.Spec{Name: name}}); err != nil {
			t.Errorf("the registry refuses %q: %v", name, err)
		}
	}
	if Toolset("a b") != "mcp-a_b" {
		t.Errorf("Toolset = %q", Toolset("a b"))
	}
}

func TestWanted(t *testing.T) {
	cfg := ServerConfig{Include: []string{"a", "b"}, Exclude: []string{"b"}}
	var got []string
	for _, n := range []string{"a", "b", "c"} {
		if wanted(cfg, n) {
			got = append(got, n)
		}
	}
	if !slices.Equal(got, []string{"a"}) {
		t.Errorf("kept %v, want [a]", got)
	}
	if !wanted(ServerConfig{}, "anything") {
		t.Errorf("no filters must keep every tool")
	}
}

func TestServerEnv(t *testing.T) {
	environ := []string{"PATH=/bin", "HOME=/home/h", "OPENAI_API_KEY=sk-x", "AWS_SECRET_ACCESS_KEY=y", "LANG=C", "EDITOR=vi"}
	got := serverEnv(environ, map[string]string{"LANG": "de_DE.UTF-8", "GITHUB_TOKEN": "ghp"})
	want := []string{"PATH=/bin", "HOME=/home/h", "GITHUB_TOKEN=ghp", "LANG=de_DE.UTF-8"}
	if !slices.Equal(got, want) {
		t.Errorf("serverEnv = %v, want %v", got, want)
	}
}

func TestObjectSchema(t *testing.T) {
	tests := []struct {
		in      any
		want    string
		wantErr string
	}{
		{nil, `{"type":"object","properties":{}}`, ""},
		{map[string]any{"properties": map[string]any{}}, `{"properties":{},"type":"object"}`, ""},
		{map[string]any{"type": "object"}, `{"type":"object"}`, ""},
		{[]any{1}, "", "not a JSON object"},
	}
	for _, tc := range tests {
		got, err := objectSchema(tc.in)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("objectSchema(%v) error = %v, want %q", tc.in, err, tc.wantErr)
			}
			continue
		}
		if err != nil || string(got) != tc.want {
			t.Errorf("objectSchema(%v) = %s, %v; want %s", tc.in, got, err, tc.want)
		}
	}
	srv := &server{name: "s", cfg: ServerConfig{}.withDefaults()}
	if _, err := newRemoteTool(srv, &sdk.Tool{Name: "x", InputSchema: map[string]any{"type": "string"}}); err == nil {
		t.Errorf("a tool whose arguments are a string was accepted")
	}
}

func TestToData(t *testing.T) {
	tests := []struct {
		name string
		res  *sdk.CallToolResult
		want string
	}{
		{"text", &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "a"}, &sdk.TextContent{Text: "b"}}}, `"a\nb"`},
		{"empty", &sdk.CallToolResult{}, `""`},
		{"structured echoed as JSON", &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: `{"n": 1}`}},
			StructuredContent: map[string]any{"n": 1}}, `{"n":1}`},
		{"structured and other text", &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "one"}},
			StructuredContent: map[string]any{"n": 1}}, `{"structured":{"n":1},"text":"one"}`},
		{"image, audio, resources", &sdk.CallToolResult{Content: []sdk.Content{
			&sdk.ImageContent{MIMEType: "image/png", Data: []byte("PNG")},
			&sdk.ImageContent{MIMEType: "image/gif", Data: []byte("GIF")},
			&sdk.AudioContent{MIMEType: "audio/wav", Data: []byte("RIFF")},
			&sdk.EmbeddedResource{Resource: &sdk.ResourceContents{URI: "file:///a", Text: "inside"}},
			&sdk.EmbeddedResource{Resource: &sdk.ResourceContents{URI: "file:///b", MIMEType: "application/zip", Blob: []byte("PK")}},
			&sdk.ResourceLink{URI: "file:///c", Name: "c"},
		}}, `{"image_data_url":"data:image/png;base64,UE5H","omitted":["image (image/gif, 3 bytes)","audio (audio/wav, 4 bytes)","binary resource file:///b (application/zip, 2 bytes)"],"resources":[{"uri":"file:///c","name":"c"}],"text":"inside"}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			data, err := toData(tc.res)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := json.Marshal(data)
			if string(b) != tc.want {
				t.Errorf("data = %s\nwant   %s", b, tc.want)
			}
		})
	}
	_, err := toData(&sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: "boom"}}})
	if te, ok := tool.AsError(err); !ok || te.Code != tool.CodeInternal || te.Message != "boom" || te.Retryable {
		t.Errorf("isError result = %#v", err)
	}
}

func TestDefaultBackoff(t *testing.T) {
	for attempt, want := range map[int]time.Duration{1: time.Second, 2: 2 * time.Second, 4: 8 * time.Second, 7: time.Minute, 30: time.Minute} {
		got := DefaultBackoff(attempt)
		if got < want*8/10 || got > want*12/10 {
			t.Errorf("DefaultBackoff(%d) = %v, want %v ± 20%%", attempt, got, want)
		}
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		cfg  ServerConfig
		want string
	}{
		{ServerConfig{Command: "x"}, ""},
		{ServerConfig{URL: "https://mcp.example.com/mcp"}, ""},
		{ServerConfig{}, "mcp_servers.s: neither command nor url"},
		{ServerConfig{URL: "ftp://user:pw@host/x"}, `mcp_servers.s.url: "ftp://host/x" is not`},
		{ServerConfig{Command: "x", Timeout: -time.Second}, "mcp_servers.s.timeout"},
	}
	for _, tc := range tests {
		err := tc.cfg.validate("s")
		if (tc.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("validate(%+v) = %v, want %q", tc.cfg, err, tc.want)
		}
	}
}
