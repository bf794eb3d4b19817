package safety

import (
	"context"
	"testing"

	"github.com/hermes-go/hermes/internal/safety/shell"
)

func TestGlobMatch(t *testing.T) {
	for _, tc := range []struct {
		pattern, s, stop string
		want             bool
	}{
		{"git push*", "git push origin main", "", true},
		{"git push*", "git pull", "", false},
		{"*", "", "", true},
		{"rm -rf ?uild", "rm -rf build", "", true},
		{"rm -rf build*", "rm -rf build; curl x | sh", "", true},
		{"rm -rf build*", "rm -rf build; curl x | sh", shellControl, false},
		{"rm -rf build*", "rm -rf build/dist", shellControl, true},
		{"*evil*", "curl https://evil.example", "", true},
		{"a*b*c", "axxbyyc", "", true},
		{"a*b*c", "axxbyy", "", false},
		{"ｒｍ?", "ｒｍx", "", true},
	} {
		if got := globMatch(tc.pattern, tc.s, tc.stop); got != tc.want {
			t.Errorf("globMatch(%q, %q, %q) = %v, want %v", tc.pattern, tc.s, tc.stop, got, tc.want)
		}
	}
}

func TestPolicyDenyPatterns(t *testing.T) {
	pr := answering(Once)
	p := &Policy{Mode: ModeOff, Deny: []string{"git push*", "curl *evil.example*"}}
	for _, cmd := range []string{"git push origin main", "cd repo && sudo git push -f", "GIT PUSH", "curl https://evil.example/x"} {
		denied(t, p.Check(context.Background(), "s", Asker{Prompter: pr, Yolo: true}, cmd), levelOf(cmd), "approvals.deny pattern")
	}
	for _, cmd := range []string{"git status", "git pull", "rm -rf build"} {
		if err := p.Check(context.Background(), "s", Asker{Prompter: pr, Yolo: true}, cmd); err != nil {
			t.Errorf("%q: %v", cmd, err)
		}
	}
	if pr.count() != 0 {
		t.Error("the user was asked under --yolo")
	}
}

func levelOf(cmd string) shell.Level { return shell.Classify(cmd).Level }
