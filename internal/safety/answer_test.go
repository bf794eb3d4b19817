package safety

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/safety/shell"
)

func TestPolicyInvalidMode(t *testing.T) {
	p := &Policy{Mode: "paranoid"}
	denied(t, p.Check(context.Background(), "s", Asker{Prompter: answering(Once)}, dangerousCmd), shell.Dangerous, `"paranoid" is not accepted`)
	if err := p.Validate(); err == nil || !strings.Contains(err.Error(), "manual, smart, off") {
		t.Errorf("Validate: %v", err)
	}
	if err := (&Policy{NonInteractive: "maybe"}).Validate(); err == nil || !strings.Contains(err.Error(), `"maybe"`) {
		t.Errorf("Validate: %v", err)
	}
	if err := (&Policy{Mode: ModeSmart, NonInteractive: NonInteractiveAllow}).Validate(); err != nil {
		t.Errorf("Validate: %v", err)
	}
}

func TestParseAnswerAndMode(t *testing.T) {
	for in, want := range map[string]Answer{"once": Once, "S": Session, " always ": Always, "d": Deny, "yes": Once, "no": Deny} {
		if got, err := ParseAnswer(in); err != nil || got != want {
			t.Errorf("ParseAnswer(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	if _, err := ParseAnswer("maybe"); err == nil || !strings.Contains(err.Error(), `"maybe"`) {
		t.Errorf("ParseAnswer(maybe): %v", err)
	}
	if m, err := ParseMode(""); err != nil || m != ModeManual {
		t.Errorf("ParseMode(\"\") = %v, %v", m, err)
	}
	if got := Session.String(); got != "session" {
		t.Errorf("Session.String() = %q", got)
	}
}

func TestDeniedErrorMessage(t *testing.T) {
	err := &DeniedError{Command: "rm -rf build", Verdict: shell.Classify("rm -rf build"), Reason: "the user denied it (recursive delete)"}
	want := "command denied: the user denied it (recursive delete). Do not retry the same command; ask the user, or choose a safer command."
	if err.Error() != want {
		t.Errorf("got %q\nwant %q", err.Error(), want)
	}
	hard := &DeniedError{Verdict: shell.Classify("reboot"), Reason: "hermes never runs this command (shut down or reboot the machine)"}
	if !strings.Contains(hard.Error(), "command refused") || !strings.Contains(hard.Error(), "run it themselves") {
		t.Errorf("hardline message %q", hard.Error())
	}
	cause := errors.New("cause")
	if !errors.Is(&DeniedError{Err: cause}, cause) {
		t.Error("DeniedError does not unwrap to its cause")
	}
}
