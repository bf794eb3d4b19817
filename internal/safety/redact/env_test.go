package redact

import (
	"slices"
	"testing"
)

func TestSecretEnvName(t *testing.T) {
	secret := []string{
		"OPENAI_API_KEY", "ANTHROPIC_API_KEY", "openrouter_api_key", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY",
		"AWS_SESSION_TOKEN", "GITHUB_TOKEN", "GH_TOKEN", "HF_TOKEN", "NPM_AUTH_TOKEN", "NODE_AUTH_TOKEN",
		"DB_PASSWORD", "PGPASSWORD", "MYSQL_PWD_PASSWD", "SMTP_PASS", "GPG_PASSPHRASE", "GOOGLE_APPLICATION_CREDENTIALS",
		"STRIPE_KEY", "APIKEY", "TAVILY_APIKEY", "SENTRY_DSN", "SLACK_WEBHOOK_URL", "DISCORD_WEBHOOK",
		"AUTH_HEADER", "BASIC_AUTH", "OAUTH_CLIENT_SECRET", "AUTHTOKEN", "SESSION_COOKIE",
		"DATABASE_URL", "REDIS_URL", "MONGODB_URI", "CELERY_BROKER_URL", "JWT_SECRET", "PRIVATE_KEY", "SSH_PRIVATE_KEY",
	}
	public := []string{
		"PATH", "HOME", "USER", "SHELL", "TERM", "LANG", "PWD", "OLDPWD", "EDITOR", "KEYBOARD", "XKB_KEYMAP",
		"XDG_SESSION_TYPE", "XDG_RUNTIME_DIR", "SSH_AUTH_SOCK", "XAUTHORITY", "GPG_AGENT_INFO",
		"GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "AUTHOR", "MAX_TOKENS", "API_BASE_URL", "OPENAI_BASE_URL",
		"HTTP_PROXY", "GOPATH", "DISPLAY", "HOSTNAME",
	}
	for _, n := range secret {
		if !SecretEnvName(n) {
			t.Errorf("SecretEnvName(%q) = false, want true", n)
		}
	}
	for _, n := range public {
		if SecretEnvName(n) {
			t.Errorf("SecretEnvName(%q) = true, want false", n)
		}
	}
}

func TestScrubEnv(t *testing.T) {
	env := []string{"PATH=/bin", "GITHUB_TOKEN=ghp_x", "HOME=/root", "AWS_SECRET_ACCESS_KEY=abc", "AWS_ACCESS_KEY_ID=AKIA", "DB_PASSWORD=pw", "SSH_AUTH_SOCK=/tmp/agent", "EMPTY"}
	tests := []struct {
		passthrough []string
		want        []string
	}{
		{nil, []string{"PATH=/bin", "HOME=/root", "SSH_AUTH_SOCK=/tmp/agent", "EMPTY"}},
		{[]string{"GITHUB_TOKEN"}, []string{"PATH=/bin", "GITHUB_TOKEN=ghp_x", "HOME=/root", "SSH_AUTH_SOCK=/tmp/agent", "EMPTY"}},
		{[]string{"AWS_*"}, []string{"PATH=/bin", "HOME=/root", "AWS_SECRET_ACCESS_KEY=abc", "AWS_ACCESS_KEY_ID=AKIA", "SSH_AUTH_SOCK=/tmp/agent", "EMPTY"}},
	}
	for _, tt := range tests {
		before := slices.Clone(env)
		got := ScrubEnv(env, tt.passthrough)
		if !slices.Equal(got, tt.want) {
			t.Errorf("ScrubEnv(passthrough %v) = %v, want %v", tt.passthrough, got, tt.want)
		}
		if !slices.Equal(env, before) {
			t.Fatal("ScrubEnv modified its input")
		}
	}
}
