package acp

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/hermes-go/hermes/internal/agent"
	"github.com/hermes-go/hermes/internal/engine"
	"github.com/hermes-go/hermes/internal/safety"
	"github.com/hermes-go/hermes/internal/safety/shell"
)

// TestModesDecideWhoApproves runs the real approval policy (approvals.mode
// manual) with the Asker each mode gives a turn: ask puts a dangerous
// command to the editor's user, who refuses it; yolo runs it without
// asking; smart without a judge asks. A hardline command is refused in
// every mode, without asking.
func TestModesDecideWhoApproves(t *testing.T) {
	policy := &safety.Policy{Mode: safety.ModeManual}
	var errs []error
	turns := turnFunc(func(ctx context.Context, id string, in engine.Input, _ agent.Sink) (*engine.TurnResult, error) {
		errs = nil
		for _, c := range []string{"rm -rf build", "sudo rm -rf /", "mkfs.ext4 /dev/sda1"} {
			errs = append(errs, policy.Check(ctx, id, in.Approval, c))
		}
		return &engine.TurnResult{SessionID: id, Result: &agent.Result{Stopped: agent.StopDone}}, nil
	})
	r := newRig(t, turns)
	r.cli.choose = func(acpsdk.RequestPermissionRequest) acpsdk.RequestPermissionOutcome { return selected("deny") }
	ctx := context.Background()
	resp, err := r.conn.NewSession(ctx, acpsdk.NewSessionRequest{Cwd: t.TempDir(), McpServers: []acpsdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	id := string(resp.SessionId)
	if resp.Modes == nil || resp.Modes.CurrentModeId != ModeAsk || len(resp.Modes.AvailableModes) != 3 {
		t.Fatalf("modes = %+v; want ask of three", resp.Modes)
	}
	for _, c := range []struct {
		mode      string
		asked     int
		dangerous bool // whether the dangerous command ran
	}{
		{ModeAsk, 1, false},
		{ModeYolo, 0, true},
		{ModeSmart, 1, false},
		{ModeAsk, 1, false},
	} {
		if _, err := r.conn.SetSessionMode(ctx, acpsdk.SetSessionModeRequest{SessionId: resp.SessionId, ModeId: acpsdk.SessionModeId(c.mode)}); err != nil {
			t.Fatal(err)
		}
		before := len(r.cli.asked)
		if _, err := r.prompt(id, "clean up"); err != nil {
			t.Fatal(err)
		}
		if got := len(r.cli.asked) - before; got != c.asked {
			t.Errorf("%s: asked %d times; want %d", c.mode, got, c.asked)
		}
		if ran := errs[0] == nil; ran != c.dangerous {
			t.Errorf("%s: dangerous command ran = %v (%v); want %v", c.mode, ran, errs[0], c.dangerous)
		}
		for _, err := range errs[1:] {
			var d *safety.DeniedError
			if !errors.As(err, &d) || d.Verdict.Level != shell.Hardline {
				t.Errorf("%s: hardline command: %v; want refused as hardline", c.mode, err)
			}
		}
	}
	var modes []string
	for _, u := range r.cli.seen() {
		if strings.HasPrefix(u, "mode: ") {
			modes = append(modes, strings.TrimPrefix(u, "mode: "))
		}
	}
	if want := []string{ModeAsk, ModeYolo, ModeSmart, ModeAsk}; !slices.Equal(modes, want) {
		t.Errorf("current_mode_update sent for %q; want %q", modes, want)
	}
}

func TestSetModeRefusesBadInput(t *testing.T) {
	r := newRig(t, nil)
	id := r.newSession(t, t.TempDir())
	ctx := context.Background()
	for _, c := range []struct{ id, mode, want string }{
		{id, "careful", `mode "careful" is not one of hermes's modes; use one of ask, smart, yolo`},
		{id, "", `mode "" is not one of`},
		{"nope", ModeYolo, `session "nope" is not open`},
	} {
		_, err := r.conn.SetSessionMode(ctx, acpsdk.SetSessionModeRequest{SessionId: acpsdk.SessionId(c.id), ModeId: acpsdk.SessionModeId(c.mode)})
		if err == nil || !strings.Contains(errString(err), c.want) {
			t.Errorf("set_mode(%q, %q) = %v; want %q", c.id, c.mode, err, c.want)
		}
	}
}

func TestDefaultMode(t *testing.T) {
	for _, c := range []struct {
		approvals safety.Mode
		yolo      bool
		want      string
	}{
		{"", false, ModeAsk},
		{safety.ModeManual, false, ModeAsk},
		{safety.ModeSmart, false, ModeSmart},
		{safety.ModeOff, false, ModeYolo},
		{safety.ModeManual, true, ModeYolo},
	} {
		if got := DefaultMode(c.approvals, c.yolo); got != c.want {
			t.Errorf("DefaultMode(%q, %v) = %q; want %q", c.approvals, c.yolo, got, c.want)
		}
	}
	r := newRig(t, nil)
	r.srv.opt.Yolo = true
	ctx := context.Background()
	if _, err := r.conn.Initialize(ctx, acpsdk.InitializeRequest{ProtocolVersion: acpsdk.ProtocolVersionNumber}); err != nil {
		t.Fatal(err)
	}
	resp, err := r.conn.NewSession(ctx, acpsdk.NewSessionRequest{Cwd: t.TempDir(), McpServers: []acpsdk.McpServer{}})
	if err != nil || resp.Modes == nil || resp.Modes.CurrentModeId != ModeYolo {
		t.Errorf("with --yolo new session = %+v, %v; want mode yolo", resp.Modes, err)
	}
}
