package acp

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/hermes-go/hermes/internal/engine"
	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/llm/llmtest"
	"github.com/hermes-go/hermes/internal/llm/openai"
	"github.com/hermes-go/hermes/internal/safety"
	"github.com/hermes-go/hermes/internal/safety/writeguard"
	"github.com/hermes-go/hermes/internal/tool"
	"github.com/hermes-go/hermes/internal/tools/files"
	"github.com/hermes-go/hermes/internal/tools/todo"
)

// oneModel is engine.Models with the model of an llmtest server.
type oneModel struct{ m engine.Model }

func (o oneModel) Model(string) (engine.Model, error) { return o.m, nil }

// newEngineRig serves turns of a real engine to an in-process client:
// srv is the model, and the file tools and the todo tool are offered,
// guarded as hermes guards them with home as the home directory.
func newEngineRig(t *testing.T, srv *llmtest.Server, home string) *rig {
	t.Helper()
	guard := writeguard.Guard{Home: home, HermesHome: filepath.Join(home, ".hermes")}
	return newEngineRigWith(t, srv, home, engine.Tools{}, append(files.New(files.Options{Guard: guard}), todo.New())...)
}

// newEngineRigWith is newEngineRig offering tools, run as opt says
// (its Registry is made here).
func newEngineRigWith(t *testing.T, srv *llmtest.Server, home string, opt engine.Tools, tools ...tool.Tool) *rig {
	t.Helper()
	store := openStore(t)
	opt.Registry = tool.NewRegistry()
	for _, tl := range tools {
		if err := opt.Registry.Register(tl); err != nil {
			t.Fatal(err)
		}
	}
	model := openai.NewChat(llm.Endpoint{Name: "test", BaseURL: srv.URL() + "/v1", APIKey: "k", Model: "m"})
	eng := engine.New(engine.Options{
		Store:  store,
		Models: oneModel{engine.Model{Provider: model, Name: "m"}},
		Tools:  opt,
		Policy: &safety.Policy{Home: home, HermesHome: filepath.Join(home, ".hermes")},
	})
	t.Cleanup(eng.Close)
	return serveRig(t, New(Options{Turns: eng, Store: store, Version: "test"}), store)
}

// call is a tool call of the scripted model.
func call(id, name string, args map[string]any) llm.ToolCall {
	raw, _ := json.Marshal(args)
	return llm.ToolCall{ID: id, Name: name, Arguments: string(raw)}
}

// toolResult is the result of the tool call id the model was sent last.
func toolResult(srv *llmtest.Server, id string) string {
	reqs := srv.Requests()
	for i := len(reqs) - 1; i >= 0; i-- {
		for _, m := range reqs[i].Messages {
			if m.Role == llm.RoleTool && m.ToolCallID == id {
				return m.Text()
			}
		}
	}
	return ""
}
