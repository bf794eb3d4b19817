package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/gateway/telegram/telegramtest"
)

// hermes gateway status checks each platform as serve would connect:
// who the bot is and how updates reach it, or why it cannot connect
// (exit 1); webhook routes are listed with their address.
func TestGatewayStatus(t *testing.T) {
	tg := telegramtest.New(telegramtest.Options{})
	t.Cleanup(tg.Close)
	tg.SetWebhook("https://old.example.com/hook")
	h := newHome(t)
	h.write(".env", "HOOK_SECRET=s3cret\n")
	config := func(token string) string {
		return fmt.Sprintf(`gateway:
  telegram: {token: %q, base_url: %q}
  webhook:
    routes:
      deploys: {path: /hooks/deploys, auth: bearer, secret: "${HOOK_SECRET}", prompt: "Deployed {{.service}}."}
`, token, tg.URL)
	}
	h.write("config.yaml", config(tg.Token))
	r := h.hermes("gateway", "status")
	if r.code != 0 {
		t.Fatalf("exit %d: %s%s", r.code, r.stdout, r.stderr)
	}
	for _, want := range []string{"telegram", "ok", "@hermes_bot (id 1000)", "a webhook to old.example.com is set", "webhook deploys", "POST http://127.0.0.1:8644/hooks/deploys, checked by bearer"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("status lacks %q:\n%s", want, r.stdout)
		}
	}
	if strings.Contains(r.stdout, tg.Token) || strings.Contains(r.stdout, "s3cret") {
		t.Errorf("a secret is in the status:\n%s", r.stdout)
	}

	wrong := "123456:WRONG-token"
	h.write("config.yaml", config(wrong))
	r = h.hermes("gateway", "status", "--json")
	if r.code == 0 || !strings.Contains(r.stdout, `"ok":false`) || !strings.Contains(r.stdout, "refused the token") {
		t.Errorf("a wrong token: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if strings.Contains(r.stdout+r.stderr, wrong) {
		t.Errorf("the token is in the output:\n%s%s", r.stdout, r.stderr)
	}
}
