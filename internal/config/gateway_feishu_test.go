package config

import (
	"strings"
	"testing"
)

// gateway.feishu is read with its secrets from .env, and each key that is
// wrong is refused with its name and what is accepted, never with a
// secret's value.
func TestGatewayFeishuSection(t *testing.T) {
	l := mustLoad(t, map[string]string{"config.yaml": "gateway:\n  feishu:\n    app_id: cli_a1b2c3\n    app_secret: ${FEISHU_APP_SECRET}\n    verification_token: ${FEISHU_VERIFICATION_TOKEN}\n    encrypt_key: ${FEISHU_ENCRYPT_KEY}\n    base_url: https://open.larksuite.com\n    allow: [ou_1]\n    approvers: [ou_1]\n"},
		map[string]string{"FEISHU_APP_SECRET": "s3cr3t-app", "FEISHU_VERIFICATION_TOKEN": "v3rif", "FEISHU_ENCRYPT_KEY": "3ncrypt"}, nil)
	f := l.Config.Gateway.Feishu
	if f.AppID != "cli_a1b2c3" || string(f.AppSecret) != "s3cr3t-app" || string(f.VerificationToken) != "v3rif" ||
		string(f.EncryptKey) != "3ncrypt" || f.BaseURL != "https://open.larksuite.com" || len(f.Allow) != 1 || len(f.Approvers) != 1 {
		t.Errorf("feishu = %+v", f)
	}
	l = mustLoad(t, map[string]string{"config.yaml": "gateway:\n  feishu: {app_id: cli_1, app_secret: s, long_connection: true, path: /taken}\n  webhook:\n    routes:\n      a: {path: /taken, auth: bearer, secret: s, prompt: p}\n"}, nil, nil)
	if !l.Config.Gateway.Feishu.LongConnection {
		t.Errorf("long_connection not read")
	}
	for _, tt := range []struct{ yaml, want string }{
		{"gateway:\n  feishu: {app_secret: s3cr3t-app}\n", "gateway.feishu.app_id: \"\" is not accepted while other gateway.feishu keys are set"},
		{"gateway:\n  feishu: {app_id: a1b2, app_secret: s3cr3t-app, verification_token: v3rif}\n", "gateway.feishu.app_id: \"a1b2\" is not accepted; give the app's id from the developer console, which starts with cli_"},
		{"gateway:\n  feishu: {app_id: cli_1, verification_token: v3rif}\n", "gateway.feishu.app_secret: \"\" is not accepted"},
		{"gateway:\n  feishu: {app_id: cli_1, app_secret: s3cr3t-app}\n", "gateway.feishu.verification_token: \"\" is not accepted"},
		{"gateway:\n  feishu: {app_id: cli_1, app_secret: s3cr3t-app, verification_token: v3rif, path: feishu}\n", "gateway.feishu.path: \"feishu\" is not accepted; use a URL path starting with /"},
		{"gateway:\n  feishu: {app_id: cli_1, app_secret: s3cr3t-app, verification_token: v3rif, base_url: \"ftp://x\"}\n", "gateway.feishu.base_url"},
		{"gateway:\n  telegram: {webhook: {url: \"https://bot.example.com/feishu/events\"}}\n  feishu: {app_id: cli_1, app_secret: s3cr3t-app, verification_token: v3rif}\n",
			"gateway.feishu.path: \"/feishu/events\" is not accepted; gateway.telegram.webhook.url answers on that path already"},
		{"gateway:\n  feishu: {app_id: cli_1, app_secret: s3cr3t-app, verification_token: v3rif, path: /hooks/a}\n  webhook:\n    routes:\n      a: {path: /hooks/a, auth: bearer, secret: s, prompt: p}\n",
			"gateway.webhook.routes.a.path: \"/hooks/a\" is not accepted; gateway.feishu.path answers on that path already"},
	} {
		_, err := loadFiles(t, map[string]string{"config.yaml": tt.yaml}, nil, nil)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: %v, want an error holding %q", tt.yaml, err, tt.want)
			continue
		}
		for _, secret := range []string{"s3cr3t-app", "v3rif"} {
			if strings.Contains(err.Error(), secret) {
				t.Errorf("%q: the error shows a secret: %v", tt.yaml, err)
			}
		}
	}
}
