package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/llm/llmtest"
)

// -q "/skill instruction" runs the skill as the chat does; the chat's
// other commands are refused with where they work, and a path is sent as
// it is.
func TestChatQuerySlashSkill(t *testing.T) {
	h := newHome(t)
	if err := os.MkdirAll(filepath.Join(h.dir, "skills", "tidy"), 0o700); err != nil {
		t.Fatal(err)
	}
	h.write("skills/tidy/SKILL.md", "---\nname: tidy\ndescription: Tidy the downloads folder.\n---\nMove old files to ~/archive.\n")
	srv := llmtest.New(t)
	srv.Enqueue(llmtest.Reply{Text: "tidied"}, llmtest.Reply{Text: "the hosts file looks fine"})
	q := func(query string) result {
		cmd := chatCommand(h, srv, "-q", query)
		var out, errOut strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &errOut
		err := cmd.Run()
		code := 0
		if err != nil {
			code = cmd.ProcessState.ExitCode()
		}
		return result{stdout: out.String(), stderr: errOut.String(), code: code}
	}
	if r := q("/Tidy only pdfs"); r.code != 0 || !strings.Contains(r.stdout, "tidied") {
		t.Fatalf("-q /tidy: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	reqs := srv.Requests()
	if last := reqs[0].LastUserText(); !strings.Contains(last, "Move old files") || !strings.Contains(last, "only pdfs") {
		t.Errorf("the skill's message: %q", last)
	}
	for _, cmd := range []string{"/help", "/undo", "/new", "/logs 5", "/exit", "/quit"} {
		r := q(cmd)
		if r.code == 0 || !strings.Contains(r.stderr, "is a command of the conversation; run `hermes chat`") {
			t.Errorf("-q %q: exit %d, stderr %q; want a refusal saying where it works", cmd, r.code, r.stderr)
		}
	}
	if r := q("/etc/hosts has a typo?"); r.code != 0 || !strings.Contains(r.stdout, "the hosts file looks fine") {
		t.Errorf("-q with a path: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if got := len(srv.Requests()); got != 2 {
		t.Errorf("%d model calls, want 2: refused commands call no model", got)
	}
}
