package udiff

import (
	"strings"
	"testing"
)

func TestUnifiedDiff(t *testing.T) {
	a := "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\n14\n15\n16\n"
	tests := []struct {
		name string
		b    string
		want string
	}{
		{"one change", strings.Replace(a, "8\n", "eight\n", 1),
			"@@ -5,7 +5,7 @@\n 5\n 6\n 7\n-8\n+eight\n 9\n 10\n 11\n"},
		{"two hunks", strings.Replace(strings.Replace(a, "2\n", "two\n", 1), "15\n", "fifteen\n", 1),
			"@@ -1,5 +1,5 @@\n 1\n-2\n+two\n 3\n 4\n 5\n@@ -12,5 +12,5 @@\n 12\n 13\n 14\n-15\n+fifteen\n 16\n"},
		{"merged hunk", strings.Replace(strings.Replace(a, "2\n", "two\n", 1), "8\n", "eight\n", 1),
			"@@ -1,11 +1,11 @@\n 1\n-2\n+two\n 3\n 4\n 5\n 6\n 7\n-8\n+eight\n 9\n 10\n 11\n"},
		{"insert at start", "0\n" + a, "@@ -0,0 +1 @@\n+0\n"},
		{"delete at end", strings.TrimSuffix(a, "16\n"), "@@ -13,4 +13,3 @@\n 13\n 14\n 15\n-16\n"},
	}
	for _, tt := range tests {
		got := Unified("f", a, tt.b, 3)
		want := "--- a/f\n+++ b/f\n" + tt.want
		if tt.name == "insert at start" {
			want = "--- a/f\n+++ b/f\n@@ -1,3 +1,4 @@\n+0\n 1\n 2\n 3\n"
		}
		if got != want {
			t.Errorf("%s:\n%s\nwant:\n%s", tt.name, got, want)
		}
	}
	if got := Unified("f", "a\nb", "a\nc", 3); got != "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+c\n\\ No newline at end of file\n" {
		t.Errorf("no newline:\n%s", got)
	}
	if got := Unified("f", "", "x\n", 3); got != "--- a/f\n+++ b/f\n@@ -0,0 +1 @@\n+x\n" {
		t.Errorf("from empty:\n%s", got)
	}
}
