package config

import (
	"strings"
	"testing"
)

// gateway.discord loads from YAML and .env; what cannot work is refused
// with the key, the value (redacted for the token, which never shows)
// and what is accepted.
func TestGatewayDiscordSection(t *testing.T) {
	const token = "MTA0NTY3ODkw.GhXyZa.abcdefghijklmnopqrstuvwxyz0123"
	l := mustLoad(t, map[string]string{"config.yaml": "gateway:\n  discord:\n    token: ${DISCORD_BOT_TOKEN}\n    allow: [\"80351110224678912\"]\n    approvers: [\"80351110224678912\"]\n    gateway_url: wss://gateway.example.com\n"},
		map[string]string{"DISCORD_BOT_TOKEN": token}, nil)
	if d := l.Config.Gateway.Discord; string(d.Token) != token || len(d.Allow) != 1 || d.GatewayURL != "wss://gateway.example.com" || d.AllowAll {
		t.Errorf("discord = %+v", d)
	}
	for _, tt := range []struct{ yaml, want string }{
		{"gateway:\n  discord: {token: \"Bot " + token + "\"}\n", `gateway.discord.token: "Bot…0123" is not accepted; give the token alone`},
		{"gateway:\n  discord: {token: \"abcdefghijklmnopqrst\"}\n", "gateway.discord.token: \"abc…qrst\" is not accepted (20 characters); a bot token is three parts"},
		{"gateway:\n  discord: {base_url: \"ftp://x\"}\n", "gateway.discord.base_url"},
		{"gateway:\n  discord: {gateway_url: \"https://gateway.discord.gg\"}\n", `gateway.discord.gateway_url: "https://gateway.discord.gg" is not accepted; give a ws:// or wss:// address`},
		{"gateway:\n  discord: {allow: [\"80351110224678912\", \"alice#1234\"]}\n", `gateway.discord.allow[1]: "alice#1234" is not accepted; give the user's id`},
		{"gateway:\n  discord: {approvers: [\"@bob\"]}\n", `gateway.discord.approvers[0]: "@bob"`},
	} {
		_, err := loadFiles(t, map[string]string{"config.yaml": tt.yaml}, nil, nil)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: %v, want an error naming %q", tt.yaml, err, tt.want)
		}
		if err != nil && strings.Contains(err.Error(), "defghijklmnop") {
			t.Errorf("%q: the token is in the error: %v", tt.yaml, err)
		}
	}
}
