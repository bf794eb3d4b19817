package declared

import (
	"strings"
	"testing"
)

func TestCheck(t *testing.T) {
	good := "tools:\n  - name: disk_free\n    description: Free disk space.\n    command: {argv: [df, -h]}\n"
	if err := Check([]byte(good)); err != nil {
		t.Errorf("a good file: %v", err)
	}
	bad := "tools:\n  - name: disk free\n    description: Free disk space.\n    command: {argv: [df, -h]}\n"
	if err := Check([]byte(bad)); err == nil || !strings.Contains(err.Error(), "disk free") {
		t.Errorf("a bad tool name: %v, want a problem naming it", err)
	}
}
