package app

import (
	"context"
	"testing"

	"github.com/hermes-go/hermes/internal/config"
)

// gateway.wecom with an app and a bot builds both platforms, the app
// answering its callbacks on its path, and each platform's access comes
// from the one section.
func TestGatewayWeComPlatforms(t *testing.T) {
	home := t.TempDir()
	writeConfig(t, home, `model: {base_url: "http://127.0.0.1:1/v1", default: test-model, api_mode: chat_completions, api_key: sk-test-123456}
memory: {long_term: false}
gateway:
  wecom:
    corp_id: ww5823bf96d3bd56c7
    agent_id: 1000002
    secret: app-secret
    token: QDG6eK
    encoding_aes_key: jWmYm7qr5nMoAUwZRjGtBxmz3KA1tkAj3ykkR6q2B2C
    callback_path: /hooks/wecom
    bot: {bot_id: aib1, secret: bot-secret}
    allow: [zhangsan]
    approvers: [lisi]
`)
	l, err := config.Load(loadOptions(home))
	if err != nil {
		t.Fatal(err)
	}
	if !GatewayConfigured(l.Config) {
		t.Error("a WeCom section does not turn the gateway on")
	}
	a, err := Open(context.Background(), Options{Config: l})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	ps, err := a.GatewayPlatforms()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range ps {
		names = append(names, p.Name())
	}
	if len(ps) != 2 || names[0] != "wecom" || names[1] != "wecombot" {
		t.Fatalf("platforms %q", names)
	}
	if path, h := ps[0].(webhookPlatform).WebhookHandler(); path != "/hooks/wecom" || h == nil {
		t.Errorf("the app answers on %q", path)
	}
	if _, ok := ps[1].(webhookPlatform); ok {
		t.Error("the bot takes callbacks")
	}
	acc := platformAccess(l.Config.Gateway)
	for _, name := range names {
		if a := acc[name]; len(a.allow) != 1 || a.allow[0] != "zhangsan" || len(a.approvers) != 1 || a.approvers[0] != "lisi" {
			t.Errorf("%s's access: %+v", name, a)
		}
	}
	h, _, err := a.GatewayHTTP(context.Background(), ps)
	if err != nil || h == nil {
		t.Errorf("no HTTP handler for the app's callbacks: %v", err)
	}
}
