package acp

import (
	"context"
	"testing"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/hermes-go/hermes/internal/agent"
	"github.com/hermes-go/hermes/internal/engine"
	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/safety"
)

// TestPermissionAnswers checks every way the editor can answer a
// permission request against the approval answer it becomes.
func TestPermissionAnswers(t *testing.T) {
	cases := []struct {
		name    string
		outcome acpsdk.RequestPermissionOutcome
		want    safety.Answer
	}{
		{"once", selected("once"), safety.Once},
		{"session", selected("session"), safety.Session},
		{"always", selected("always"), safety.Always},
		{"deny", selected("deny"), safety.Deny},
		{"unknown option", selected("yolo"), safety.Deny},
		{"cancelled", acpsdk.RequestPermissionOutcome{Cancelled: &acpsdk.RequestPermissionOutcomeCancelled{}}, safety.Deny},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var got safety.Answer
			turns := turnFunc(func(ctx context.Context, id string, in engine.Input, sink agent.Sink) (*engine.TurnResult, error) {
				call := llm.ToolCall{ID: "c1", Name: "terminal", Arguments: `{"command":"rm -rf \"build\""}`}
				sink.Event(agent.Event{Kind: agent.EventToolStarted, Tool: &agent.ToolEvent{Call: call}})
				var err error
				got, err = in.Approval.Prompter.Prompt(ctx, safety.Request{SessionID: id, Command: `rm -rf "build"`})
				if err != nil {
					t.Error(err)
				}
				return &engine.TurnResult{SessionID: id, Result: &agent.Result{Stopped: agent.StopDone}}, nil
			})
			r := newRig(t, turns)
			r.cli.choose = func(acpsdk.RequestPermissionRequest) acpsdk.RequestPermissionOutcome { return c.outcome }
			id := r.newSession(t, t.TempDir())
			if _, err := r.prompt(id, "clean"); err != nil {
				t.Fatal(err)
			}
			if got != c.want {
				t.Errorf("answer = %v; want %v", got, c.want)
			}
			if len(r.cli.asked) != 1 {
				t.Fatalf("asked %d times", len(r.cli.asked))
			}
			req := r.cli.asked[0]
			if req.ToolCall.ToolCallId != "c1" || string(req.SessionId) != id || len(req.Options) != 4 {
				t.Errorf("request = %+v; want it to point at call c1 with four options", req)
			}
		})
	}
}

func selected(id string) acpsdk.RequestPermissionOutcome {
	return acpsdk.RequestPermissionOutcome{Selected: &acpsdk.RequestPermissionOutcomeSelected{OptionId: acpsdk.PermissionOptionId(id)}}
}

// TestCancelWhileAskingDenies checks that cancelling the turn while the
// editor has not answered a permission request denies the command.
func TestCancelWhileAskingDenies(t *testing.T) {
	var got safety.Answer
	var gotErr error
	turns := turnFunc(func(ctx context.Context, id string, in engine.Input, _ agent.Sink) (*engine.TurnResult, error) {
		got, gotErr = in.Approval.Prompter.Prompt(ctx, safety.Request{SessionID: id, Command: "rm -rf build"})
		return &engine.TurnResult{SessionID: id, Result: &agent.Result{Stopped: agent.StopInterrupted}}, ctx.Err()
	})
	r := newRig(t, turns)
	asked, release := make(chan struct{}), make(chan struct{})
	defer close(release)
	r.cli.choose = func(acpsdk.RequestPermissionRequest) acpsdk.RequestPermissionOutcome {
		close(asked)
		<-release
		return selected("once")
	}
	id := r.newSession(t, t.TempDir())
	go func() {
		<-asked
		_ = r.conn.Cancel(context.Background(), acpsdk.CancelNotification{SessionId: acpsdk.SessionId(id)})
	}()
	resp, err := r.prompt(id, "clean")
	if err != nil || resp.StopReason != acpsdk.StopReasonCancelled {
		t.Fatalf("prompt = %+v, %v; want cancelled", resp, err)
	}
	if got != safety.Deny || gotErr == nil {
		t.Errorf("answer while cancelled = %v, %v; want a denial with the error", got, gotErr)
	}
}
