package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadTools(t *testing.T) {
	tests := []struct {
		name, content string
		wantNames     []string
		wantErr       string
	}{
		{"canonical", `[{"name":"a","parameters":{"type":"object"}}]`, []string{"a"}, ""},
		{"openai shape", `[{"type":"function","function":{"name":"b","parameters":{"type":"object"}}}]`, []string{"b"}, ""},
		{"anthropic shape", `[{"name":"c","input_schema":{"type":"object"}}]`, []string{"c"}, ""},
		{"not an array", `{"name":"a"}`, nil, "not a JSON array of tool definitions"},
		{"no name", `[{"description":"x"}]`, nil, "tool [0] has no name"},
		{"schema not an object", `[{"name":"d","parameters":"string"}]`, nil, "parameters must be a JSON Schema object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "tools.json")
			if err := os.WriteFile(path, []byte(tt.content), 0o600); err != nil {
				t.Fatal(err)
			}
			tools, err := readTools(path)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !strings.Contains(err.Error(), path) {
					t.Fatalf("err = %v, want one naming %s and saying %q", err, path, tt.wantErr)
				}
				return
			}
			if err != nil || len(tools) != len(tt.wantNames) || tools[0].Name != tt.wantNames[0] || len(tools[0].Parameters) == 0 {
				t.Fatalf("tools = %+v, err %v", tools, err)
			}
		})
	}
}
