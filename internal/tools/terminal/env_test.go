package terminal

import (
	"slices"
	"strings"
	"testing"
)

func TestBuildEnv(t *testing.T) {
	base := []string{"A=1", "TERM=xterm-256color", "SECRET=x", "malformed", "=C:", "PAGER=less", "B=2"}
	got := buildEnv(base, func(name string) bool { return name == "SECRET" })
	want := []string{"A=1", "B=2", "TERM=dumb", "PAGER=cat", "GIT_PAGER=cat", "NO_COLOR=1", "GIT_TERMINAL_PROMPT=0"}
	if !slices.Equal(got, want) {
		t.Fatalf("buildEnv = %q, want %q", got, want)
	}
}

func TestScrubbedEnvNotVisible(t *testing.T) {
	t.Setenv("HERMES_OPENROUTER_API_KEY", "sk-hidden-1")
	t.Setenv("OPENAI_API_KEY", "sk-hidden-2")
	t.Setenv("TELEGRAM_BOT_TOKEN", "hidden-3")
	t.Setenv("HERMES_KEEP_VISIBLE", "shown-1")
	t.Setenv("USER_VISIBLE_VAR", "shown-2")
	t.Setenv("TERM", "xterm-256color")
	modes(t, Options{
		ScrubNames: []string{"OPENAI_API_KEY"},
		Scrub:      func(name string) bool { return strings.HasSuffix(name, "_BOT_TOKEN") },
	}, testScrubbedEnvNotVisible)
}

func testScrubbedEnvNotVisible(t *testing.T, tr *Terminal) {
	res := mustRun(t, tr, "s", t.TempDir(), "env")
	for _, hidden := range []string{"sk-hidden-1", "sk-hidden-2", "hidden-3"} {
		if strings.Contains(res.Output, hidden) {
			t.Errorf("command saw %s", hidden)
		}
	}
	for _, shown := range []string{"HERMES_KEEP_VISIBLE=shown-1", "USER_VISIBLE_VAR=shown-2", "TERM=dumb", "PAGER=cat", "NO_COLOR=1"} {
		if !strings.Contains(res.Output, shown+"\n") {
			t.Errorf("command did not see %s", shown)
		}
	}
	if strings.Contains(res.Output, "xterm-256color") {
		t.Error("inherited TERM was not replaced")
	}
}
