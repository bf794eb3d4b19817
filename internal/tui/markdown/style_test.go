package markdown

import (
	"strings"
	"testing"
)

// TestStyleFromEnv checks the terminal conventions: NO_COLOR and a dumb or
// missing TERM mean no color.
func TestStyleFromEnv(t *testing.T) {
	for _, c := range []struct {
		env   map[string]string
		color bool
	}{
		{map[string]string{"TERM": "xterm-256color"}, true},
		{map[string]string{"TERM": "xterm-256color", "NO_COLOR": "1"}, false},
		{map[string]string{"TERM": "dumb"}, false},
		{map[string]string{}, false},
	} {
		got := StyleFromEnv(func(k string) string { return c.env[k] })
		if (got != NoColor()) != c.color {
			t.Errorf("env %v: color %v, want %v", c.env, got != NoColor(), c.color)
		}
	}
}

// TestNoColorKeepsMarks checks that without color the output has no escape
// sequence at all and emphasis, strong, strikethrough and code keep their
// marks, so they still show.
func TestNoColorKeepsMarks(t *testing.T) {
	out := Render("*em* **strong** ~~gone~~ `code` [text](https://x.example)", 80, NoColor())
	if strings.Contains(out, "\x1b") {
		t.Fatalf("no-color output has escape sequences: %q", out)
	}
	want := "*em* **strong** ~~gone~~ `code` text (https://x.example)"
	if out != want {
		t.Fatalf("got %q, want %q", out, want)
	}
	colored := Render("*em* **strong** `code`", 80, DefaultStyle())
	if strings.Contains(stripSGR(colored), "*") || strings.Contains(stripSGR(colored), "`") {
		t.Fatalf("colored output keeps the marks: %q", colored)
	}
}
