package acp

import (
	"context"
	"slices"
	"strings"
	"testing"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/hermes-go/hermes/internal/agent"
	"github.com/hermes-go/hermes/internal/engine"
)

// TestModelSelection checks that the models are announced with a new
// session, both as the session's models and as a config option of the
// model category, and that the one picked either way is the model of the
// session's next turns; the main one is asked for as no model, so that its
// overrides and fallbacks stay.
func TestModelSelection(t *testing.T) {
	var models []string
	turns := turnFunc(func(_ context.Context, id string, in engine.Input, _ agent.Sink) (*engine.TurnResult, error) {
		models = append(models, in.Model)
		return &engine.TurnResult{SessionID: id, Result: &agent.Result{Stopped: agent.StopDone}}, nil
	})
	r := newRig(t, turns)
	r.srv.opt.Models = []string{"main-model", "cheap-model"}
	ctx := context.Background()
	resp, err := r.conn.NewSession(ctx, acpsdk.NewSessionRequest{Cwd: t.TempDir(), McpServers: []acpsdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	if m := resp.Models; m == nil || m.CurrentModelId != "main-model" || len(m.AvailableModels) != 2 || m.AvailableModels[1].ModelId != "cheap-model" {
		t.Errorf("models = %+v", resp.Models)
	}
	if got := optionValues(resp.ConfigOptions); got != "mode=ask model=main-model" {
		t.Errorf("config options = %s", got)
	}
	id := resp.SessionId
	if _, err := r.prompt(string(id), "one"); err != nil {
		t.Fatal(err)
	}
	if _, err := r.conn.UnstableSetSessionModel(ctx, acpsdk.UnstableSetSessionModelRequest{SessionId: id, ModelId: "cheap-model"}); err != nil {
		t.Fatal(err)
	}
	if _, err := r.prompt(string(id), "two"); err != nil {
		t.Fatal(err)
	}
	set, err := r.conn.SetSessionConfigOption(ctx, acpsdk.SetSessionConfigOptionRequest{ValueId: &acpsdk.SetSessionConfigOptionValueId{SessionId: id, ConfigId: configModel, Value: "main-model"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := optionValues(set.ConfigOptions); got != "mode=ask model=main-model" {
		t.Errorf("config options after setting the model = %s", got)
	}
	if _, err := r.prompt(string(id), "three"); err != nil {
		t.Fatal(err)
	}
	set, err = r.conn.SetSessionConfigOption(ctx, acpsdk.SetSessionConfigOptionRequest{ValueId: &acpsdk.SetSessionConfigOptionValueId{SessionId: id, ConfigId: configMode, Value: ModeYolo}})
	if err != nil || optionValues(set.ConfigOptions) != "mode=yolo model=main-model" {
		t.Errorf("setting the mode option = %s, %v", optionValues(set.ConfigOptions), err)
	}
	if want := []string{"", "cheap-model", ""}; !slices.Equal(models, want) {
		t.Errorf("turns called %q; want %q", models, want)
	}
	for _, c := range []struct {
		call func() error
		want string
	}{
		{func() error {
			_, err := r.conn.UnstableSetSessionModel(ctx, acpsdk.UnstableSetSessionModelRequest{SessionId: id, ModelId: "gpt-9"})
			return err
		}, `model "gpt-9" is not offered; the models are main-model, cheap-model`},
		{func() error {
			_, err := r.conn.SetSessionConfigOption(ctx, acpsdk.SetSessionConfigOptionRequest{ValueId: &acpsdk.SetSessionConfigOptionValueId{SessionId: id, ConfigId: "temperature", Value: "hot"}})
			return err
		}, `config option "temperature" is not one of hermes's; use mode or model`},
		{func() error {
			_, err := r.conn.SetSessionConfigOption(ctx, acpsdk.SetSessionConfigOptionRequest{ValueId: &acpsdk.SetSessionConfigOptionValueId{SessionId: id, ConfigId: configMode, Value: "careful"}})
			return err
		}, `mode "careful" is not one of hermes's modes`},
		{func() error {
			_, err := r.conn.UnstableSetSessionModel(ctx, acpsdk.UnstableSetSessionModelRequest{SessionId: "nope", ModelId: "cheap-model"})
			return err
		}, `session "nope" is not open`},
	} {
		if err := c.call(); err == nil || !strings.Contains(errString(err), c.want) {
			t.Errorf("got %v; want %q", err, c.want)
		}
	}
}

// TestNoModelsNoModelOption checks that without a configured model no
// model is offered and picking one says there is none.
func TestNoModelsNoModelOption(t *testing.T) {
	r := newRig(t, nil)
	ctx := context.Background()
	resp, err := r.conn.NewSession(ctx, acpsdk.NewSessionRequest{Cwd: t.TempDir(), McpServers: []acpsdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Models != nil || optionValues(resp.ConfigOptions) != "mode=ask" {
		t.Errorf("models %+v, options %s; want none and the mode only", resp.Models, optionValues(resp.ConfigOptions))
	}
	_, err = r.conn.UnstableSetSessionModel(ctx, acpsdk.UnstableSetSessionModelRequest{SessionId: resp.SessionId, ModelId: "x"})
	if err == nil || !strings.Contains(errString(err), "none: no model is configured") {
		t.Errorf("picking a model: %v", err)
	}
}

// optionValues is config options as "id=value" words.
func optionValues(opts []acpsdk.SessionConfigOption) string {
	var out []string
	for _, o := range opts {
		if o.Select != nil {
			out = append(out, string(o.Select.Id)+"="+string(o.Select.CurrentValue))
		}
	}
	return strings.Join(out, " ")
}
