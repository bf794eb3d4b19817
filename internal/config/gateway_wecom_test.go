package config

import (
	"strings"
	"testing"
)

const wecomKey = "jWmYm7qr5nMoAUwZRjGtBxmz3KA1tkAj3ykkR6q2B2C"

// gateway.wecom: the app and the bot load with their secrets from .env,
// and what either needs is refused by key, value and what is accepted,
// without echoing a secret.
func TestWeComSection(t *testing.T) {
	l := mustLoad(t, map[string]string{"config.yaml": `gateway:
  wecom:
    corp_id: ww5823bf96d3bd56c7
    agent_id: 1000002
    secret: ${WECOM_SECRET}
    token: QDG6eK
    encoding_aes_key: ${WECOM_AES_KEY}
    bot: {bot_id: aibXYZ, secret: "${WECOM_BOT_SECRET}"}
    allow: [zhangsan]
    approvers: [zhangsan]
`}, map[string]string{"WECOM_SECRET": "app-secret", "WECOM_AES_KEY": wecomKey, "WECOM_BOT_SECRET": "bot-secret"}, nil)
	w := l.Config.Gateway.WeCom
	if !w.AppOn() || !w.BotOn() || w.AgentID != 1000002 || string(w.EncodingAESKey) != wecomKey || string(w.Bot.Secret) != "bot-secret" ||
		len(w.Allow) != 1 || len(w.Approvers) != 1 {
		t.Errorf("wecom = %+v", w)
	}
	if w := mustLoad(t, nil, nil, nil).Config.Gateway.WeCom; w.AppOn() || w.BotOn() {
		t.Errorf("wecom is on by default: %+v", w)
	}
	app := "gateway:\n  wecom: {corp_id: ww1, agent_id: 1000002, secret: s, token: t, encoding_aes_key: " + wecomKey + "%s}\n"
	for _, tt := range []struct{ yaml, want string }{
		{"gateway:\n  wecom: {corp_id: ww1}\n", `gateway.wecom.agent_id: "0" is not accepted; give the app's AgentId`},
		{"gateway:\n  wecom: {corp_id: ww1}\n", `gateway.wecom.secret: "" is not accepted`},
		{"gateway:\n  wecom: {corp_id: ww1}\n", `gateway.wecom.token: "" is not accepted`},
		{"gateway:\n  wecom: {corp_id: ww1}\n", `gateway.wecom.encoding_aes_key: "(not set)" is not accepted; give the 43 letters`},
		{"gateway:\n  wecom: {secret: s}\n", `gateway.wecom.corp_id: "" is not accepted`},
		{strings.Replace(app, "corp_id: ww1", "corp_id: \"ww 1\"", 1), `gateway.wecom.corp_id: "ww 1"`},
		{strings.Replace(app, wecomKey, wecomKey[:42]+"!", 1), "encoding_aes_key: \"jWm…2B2!\" is not accepted; give the 43 letters and digits"},
		{strings.Replace(app, wecomKey, wecomKey+"X", 1), "(this one has 44 characters)"},
		{strings.Replace(app, "%s", ", callback_path: wecom", 1), `gateway.wecom.callback_path: "wecom" is not accepted; give the URL path`},
		{strings.Replace(app, "%s", ", base_url: \"ftp://x\"", 1), "gateway.wecom.base_url"},
		{strings.Replace(app, "%s", "", 1) + "  webhook:\n    routes:\n      a: {path: /wecom, auth: bearer, secret: s, prompt: p}\n",
			`gateway.wecom.callback_path: "/wecom" is not accepted; gateway.webhook.routes.a.path answers on that path already`},
		{strings.Replace(app, "%s", ", callback_path: /dingtalk", 1) + "  dingtalk: {client_id: dingx, client_secret: s, mode: http}\n",
			`gateway.wecom.callback_path: "/dingtalk" is not accepted; gateway.dingtalk.path answers on that path already`},
		{strings.Replace(app, "%s", ", callback_path: /feishu/events", 1) + "  feishu: {app_id: cli_x, app_secret: s, verification_token: v}\n",
			`gateway.wecom.callback_path: "/feishu/events" is not accepted; gateway.feishu.path answers on that path already`},
		{"gateway:\n  wecom: {bot: {bot_id: b}}\n", `gateway.wecom.bot.secret: "" is not accepted`},
		{"gateway:\n  wecom: {bot: {secret: s}}\n", `gateway.wecom.bot.bot_id: "" is not accepted`},
		{"gateway:\n  wecom: {bot: {bot_id: b, secret: s, ws_url: \"https://x\"}}\n", `gateway.wecom.bot.ws_url: "https://x" is not accepted; use a wss:// URL`},
	} {
		_, err := loadFiles(t, map[string]string{"config.yaml": strings.Replace(tt.yaml, "%s", "", 1)}, nil, nil)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: %v\nwant an error holding %q", tt.yaml, err, tt.want)
		}
		if err != nil && strings.Contains(err.Error(), wecomKey[3:39]) {
			t.Errorf("the error shows the key: %v", err)
		}
	}
	for _, ok := range []string{strings.Replace(app, "%s", "", 1), "gateway:\n  wecom: {bot: {bot_id: b, secret: s}}\n"} {
		if _, err := loadFiles(t, map[string]string{"config.yaml": ok}, nil, nil); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
}
