package acp

import (
	"testing"

	acpsdk "github.com/coder/acp-go-sdk"
)

// TestKind: the search tools, the knowledge base's among them, show as
// searches in the editor.
func TestKind(t *testing.T) {
	for _, name := range []string{"search_files", "session_search", "kb_search"} {
		if got := kind(name); got != acpsdk.ToolKindSearch {
			t.Errorf("kind(%q) = %q, want search", name, got)
		}
	}
}
