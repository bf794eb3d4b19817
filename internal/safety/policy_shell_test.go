package safety

import (
	"context"
	"testing"

	"github.com/hermes-go/hermes/internal/safety/shell"
)

// The session's directory decides what a relative path names: after
// cd ~, rm -rf ./* is the home directory, refused even under --yolo.
func TestSessionApproverJudgesRelativePathsInDir(t *testing.T) {
	p := &Policy{Home: "/home/alice"}
	yolo := p.For("s", Asker{Yolo: true})
	ctx := context.Background()
	denied(t, yolo.ApproveCommandIn(ctx, "/home/alice", "rm -rf ./* ./.[!.]*"), shell.Hardline, "never runs")
	if err := yolo.ApproveCommandIn(ctx, "/home/alice/src/app", "rm -rf ./build"); err != nil {
		t.Errorf("rm -rf ./build in a project: %v", err)
	}
	pr := answering(Deny)
	ask := p.For("s", Asker{Prompter: pr})
	denied(t, ask.ApproveCommandIn(ctx, "/home/alice/.ssh", "echo ssh-ed25519 AAAA >> authorized_keys"), shell.Dangerous, "user denied")
	if pr.count() != 1 || pr.asked[0].Dir != "/home/alice/.ssh" || pr.asked[0].Verdict.Rule != "write_ssh" {
		t.Errorf("asked %+v", pr.asked)
	}
	if err := ask.ApproveCommandIn(ctx, "/home/alice/.ssh", "cat authorized_keys"); err != nil {
		t.Errorf("reading authorized_keys: %v", err)
	}
}

// A persistent shell's variables and functions decide what a command
// does: after D=~ in an earlier call, rm -rf $D is the home directory,
// refused even under --yolo; a function defined earlier is judged where
// it is called; approvals.deny patterns see through both.
func TestSessionApproverJudgesWithShellState(t *testing.T) {
	p := &Policy{Home: "/home/alice", Deny: []string{"*terraform destroy*"}}
	yolo := p.For("s", Asker{Yolo: true})
	ctx := context.Background()
	st := shell.State{
		Vars:      map[string]string{"D": "/home/alice", "T": "terraform destroy"},
		Functions: map[string]string{"tidy": "tidy () \n{ \n    rm -rf ./*\n}"},
	}
	denied(t, yolo.ApproveShellCommand(ctx, "/home/alice/src", st, "rm -rf $D"), shell.Hardline, "never runs")
	denied(t, yolo.ApproveShellCommand(ctx, "/home/alice", st, "tidy"), shell.Hardline, "never runs")
	denied(t, yolo.ApproveShellCommand(ctx, "/home/alice/src", st, "$T -auto-approve"), shell.Dangerous, "approvals.deny")
	if err := yolo.ApproveCommandIn(ctx, "/home/alice/src", "rm -rf $D"); err != nil {
		t.Errorf("without the shell's state rm -rf $D is only dangerous, allowed under --yolo: %v", err)
	}
	if err := yolo.ApproveShellCommand(ctx, "/home/alice/src", st, "echo $D"); err != nil {
		t.Errorf("echo $D: %v", err)
	}
}

// Writes to hermes's own home need approval, wherever it is configured.
func TestPolicyHermesHome(t *testing.T) {
	ctx := context.Background()
	for _, p := range []*Policy{{HermesHome: "/srv/hermes"}, {}} {
		if p.HermesHome == "" {
			t.Setenv("HERMES_HOME", "/srv/hermes")
		}
		for _, cmd := range []string{
			"echo 'mode: off' > /srv/hermes/config.yaml",
			"cd /srv/hermes && cp /tmp/evil.yaml tools/",
			"sqlite3 /srv/hermes/state.db 'delete from sessions'",
		} {
			d := denied(t, p.Check(ctx, "s", Asker{}, cmd), shell.Dangerous, "nobody can be asked")
			_ = d
		}
		if err := p.Check(ctx, "s", Asker{}, "cat /srv/hermes/config.yaml"); err != nil {
			t.Errorf("reading the config: %v", err)
		}
	}
}

// approvals.deny patterns hold against the commands a payload decodes
// to, builds from variables or writes to a file and runs.
func TestPolicyDenyPatternsSeeThroughObfuscation(t *testing.T) {
	p := &Policy{Mode: ModeOff, Deny: []string{"*terraform destroy*"}}
	for _, cmd := range []string{
		"terraform destroy -auto-approve",
		"echo dGVycmFmb3JtIGRlc3Ryb3kgLWF1dG8tYXBwcm92ZQ== | base64 -d | sh",
		"X='terraform destroy'; $X -auto-approve",
		"printf 'terraform destroy' > /tmp/t.sh; sh /tmp/t.sh",
		"echo destroy | xargs terraform",
		"bash -c \"$(echo 'yortsed mrofarret' | rev)\"",
	} {
		denied(t, p.Check(context.Background(), "s", Asker{Yolo: true}, cmd), levelOf(cmd), "approvals.deny pattern")
	}
}
