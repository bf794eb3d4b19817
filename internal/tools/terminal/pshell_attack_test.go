//go:build unix

package terminal

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/safety"
	"github.com/hermes-go/hermes/internal/tool"
)

// The attacks a persistent shell opens: something set in one call — a
// variable, a function, an export, CDPATH, PATH — changes what a later
// call does, which that call's text alone does not show. Each attack is
// a list of calls in one session, judged by the real policy: the first
// runs, a later one is refused (the delete, or a call that would arm
// it), and the home directory (a temporary one, which the shell knows as
// ~ too) survives.

// attackHome returns a home directory holding a file, set as HOME for
// the shells the test starts, and a policy that knows it.
func attackHome(t *testing.T) (home, keep string, p *safety.Policy) {
	t.Helper()
	root := realDir(t, t.TempDir())
	home = filepath.Join(root, "home")
	keep = filepath.Join(home, "keep")
	if err := os.MkdirAll(home, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keep, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", home)
	return home, keep, &safety.Policy{Home: home}
}

// runAttack runs calls in a session of their own with the approver ap
// and returns the error of each.
func runAttack(t *testing.T, tr *Terminal, dir string, ap tool.Approver, calls []string) []error {
	t.Helper()
	sid := strings.Join(calls, "\n")
	defer tr.Forget(sid)
	ctx := tool.WithInvocation(context.Background(), tool.Invocation{SessionID: sid, Workdir: dir, Approver: ap})
	errs := make([]error, len(calls))
	for i, c := range calls {
		raw, _ := json.Marshal(map[string]string{"command": c})
		_, errs[i] = tr.Call(ctx, raw)
	}
	return errs
}

func TestShellStateAttacksRefusedUnderYolo(t *testing.T) {
	home, keep, p := attackHome(t)
	root := filepath.Dir(home)
	work := filepath.Join(root, "work")
	if err := os.Mkdir(work, 0o755); err != nil {
		t.Fatal(err)
	}
	tr := newTerminal(t, Options{})
	yolo := p.For("s", safety.Asker{Yolo: true})
	for _, attack := range [][]string{
		{"D=~", "rm -rf $D"},
		{"D=" + home, `rm -rf "$D"`},
		{"cd ~; cd " + work, `rm -rf "$OLDPWD"`},
		{"f() { rm -rf ./* ./.[!.]*; }", "cd ~ && f"},
		{"ls() { command ls; rm -rf \"$D\"; }", "D=" + home, "ls"},
		{"into() { builtin cd \"$@\" && rm -rf ./* ./.[!.]*; }", "into ~"},
		{"tidy() { rm -rf \"$T\"; }", "T=~", "tidy"},
		{"CMD='rm -rf " + home + "'", `eval "$CMD"`},
		{"CMD='rm -rf " + home + "'", `trap "$CMD" EXIT`},
		{"CMD='rm -rf " + home + "'", `shopt -s expand_aliases; alias ls="$CMD"`},
		{"export GIT_PAGER='rm -rf " + home + "'", "git --no-pager log; git log"},
		{"CDPATH=" + root, "cd home && rm -rf ./* ./.[!.]*"},
		{"declare -n R=D", "D=~", "rm -rf $R"},
		{`X='a[$(rm -rf "$D")]'`, "D=~", "echo $((X))"},
		{`command_not_found_handle() { rm -rf "$D"; }`, "D=~", "no-such-program-here"},
	} {
		errs := runAttack(t, tr, work, yolo, attack)
		refused := false
		for _, err := range errs[1:] {
			te, ok := tool.AsError(err)
			refused = refused || ok && te.Code == tool.CodeDenied
		}
		if errs[0] != nil || !refused {
			t.Errorf("%q: want the first call to run and a later one refused; got %v", attack, errs)
		}
		if _, err := os.Stat(keep); err != nil {
			t.Fatalf("%q deleted the home directory: %v", attack, err)
		}
	}
}

// What cannot be judged by name is at least dangerous: denied when
// nobody can be asked.
func TestShellStateAttacksNeedApproval(t *testing.T) {
	home, keep, p := attackHome(t)
	evil := filepath.Join(t.TempDir(), "evil")
	if err := os.MkdirAll(evil, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(evil, "ls"), []byte("#!/bin/sh\nrm -rf "+home+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	tr := newTerminal(t, Options{})
	nobody := p.For("s", safety.Asker{})
	for _, attack := range [][]string{
		{"PATH=" + evil + ":$PATH", "ls"},
		{"export LD_PRELOAD=" + filepath.Join(evil, "x.so"), "ls"},
		{"export PAGER='sh -c \"rm -rf \\$0\"'", "man ls"},
	} {
		errs := runAttack(t, tr, home, nobody, attack)
		if te, ok := tool.AsError(errs[1]); !ok || te.Code != tool.CodeDenied {
			t.Errorf("%q: the last call was not refused: %v (first: %v)", attack, errs[1], errs[0])
		}
		if _, err := os.Stat(keep); err != nil {
			t.Fatalf("%q deleted the home directory: %v", attack, err)
		}
	}
}
