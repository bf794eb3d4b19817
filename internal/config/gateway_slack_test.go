package config

import (
	"strings"
	"testing"
)

// gateway.slack: Socket Mode with both tokens, or the Events API with
// the signing secret; every wrong value is refused with its key and what
// is accepted, and a token never appears in the error.
func TestGatewaySlackSection(t *testing.T) {
	l := mustLoad(t, map[string]string{"config.yaml": "gateway:\n  slack:\n    bot_token: ${SLACK_BOT_TOKEN}\n    app_token: ${SLACK_APP_TOKEN}\n    allow: [U024BE7LH]\n    approvers: [W012A3CDE]\n"},
		map[string]string{"SLACK_BOT_TOKEN": "xoxb-1-2-abc", "SLACK_APP_TOKEN": "xapp-1-A1-2-def"}, nil)
	if s := l.Config.Gateway.Slack; string(s.BotToken) != "xoxb-1-2-abc" || string(s.AppToken) != "xapp-1-A1-2-def" || s.Allow[0] != "U024BE7LH" || s.Approvers[0] != "W012A3CDE" {
		t.Errorf("slack = %+v", s)
	}
	mustLoad(t, map[string]string{"config.yaml": "gateway:\n  slack: {bot_token: xoxb-1, signing_secret: abc, events_path: /hooks/slack}\n"}, nil, nil)

	const leaked = "xoxp-9999-8888-user-token-value"
	for _, tt := range []struct{ yaml, want string }{
		{"gateway:\n  slack: {app_token: xapp-1}\n", "gateway.slack.bot_token"},
		{"gateway:\n  slack: {bot_token: " + leaked + ", app_token: xapp-1}\n", "gateway.slack.bot_token: \"xoxp… (31 characters)\" is not accepted; give the Bot User OAuth Token, which starts with xoxb-"},
		{"gateway:\n  slack: {bot_token: xoxb-1, app_token: " + leaked + "}\n", "gateway.slack.app_token: \"xoxp… (31 characters)\" is not accepted; give an app-level token, which starts with xapp-"},
		{"gateway:\n  slack: {bot_token: xoxb-1}\n", "gateway.slack.app_token: \"\" is not accepted without signing_secret"},
		{"gateway:\n  slack: {bot_token: xoxb-1, app_token: xapp-1, allow: [\"@alice\"]}\n", "gateway.slack.allow[0]: \"@alice\" is not accepted; give a Slack member id"},
		{"gateway:\n  slack: {bot_token: xoxb-1, app_token: xapp-1, approvers: [U1, alice]}\n", "gateway.slack.approvers[1]"},
		{"gateway:\n  slack: {bot_token: xoxb-1, signing_secret: s, events_path: slack}\n", "gateway.slack.events_path: \"slack\" is not accepted; use a URL path starting with /"},
		{"gateway:\n  slack: {bot_token: xoxb-1, app_token: xapp-1, base_url: \"ftp://x\"}\n", "gateway.slack.base_url"},
		{"gateway:\n  slack: {bot_token: xoxb-1, signing_secret: s}\n  webhook:\n    routes:\n      a: {path: /slack/events, auth: bearer, secret: s, prompt: p}\n",
			"gateway.webhook.routes.a.path: \"/slack/events\" is not accepted; gateway.slack.events_path answers on that path"},
		{"gateway:\n  telegram: {token: \"1:a\", webhook: {url: \"https://bot.example.com/hooks\"}}\n  slack: {bot_token: xoxb-1, signing_secret: s, events_path: /hooks}\n",
			"gateway.slack.events_path: \"/hooks\" is not accepted; gateway.telegram.webhook.url answers on that path"},
	} {
		_, err := loadFiles(t, map[string]string{"config.yaml": tt.yaml}, nil, nil)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: %v, want an error naming %q", tt.yaml, err, tt.want)
		}
		if err != nil && strings.Contains(err.Error(), leaked) {
			t.Errorf("%q: the error shows the token: %v", tt.yaml, err)
		}
	}
}
