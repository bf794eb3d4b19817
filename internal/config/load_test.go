package config

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// home writes the given files into a fresh temporary hermes home.
func home(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// loadFiles loads a home made of files with env as the process environment.
func loadFiles(t *testing.T, files map[string]string, env map[string]string, flags map[string]string) (*Loaded, error) {
	t.Helper()
	if env == nil {
		env = map[string]string{}
	}
	return Load(LoadOptions{Home: home(t, files), Env: MapLookup(env), Overrides: flags})
}

// mustLoad is loadFiles for cases that must succeed.
func mustLoad(t *testing.T, files map[string]string, env map[string]string, flags map[string]string) *Loaded {
	t.Helper()
	l, err := loadFiles(t, files, env, flags)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	return l
}

func TestLoadMissingFilesGivesDefaults(t *testing.T) {
	dir := t.TempDir()
	l, err := Load(LoadOptions{Home: dir, Env: MapLookup(nil)})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(l.Config, Defaults()) {
		t.Errorf("Config = %+v, want the defaults", l.Config)
	}
	if len(l.Warnings) != 0 {
		t.Errorf("Warnings = %q", l.Warnings)
	}
	want := PathsFor(dir)
	if l.Paths != want || want.ConfigFile != filepath.Join(dir, "config.yaml") || want.EnvFile != filepath.Join(dir, ".env") {
		t.Errorf("Paths = %+v", l.Paths)
	}
	if got := l.Config.Agent; got.MaxTurns != 90 || got.APIRetryBaseDelay != 2*time.Second || got.FirstByteTimeout != 300*time.Second {
		t.Errorf("agent defaults = %+v", got)
	}
}

// TestPrecedence sets one key in every layer and removes the layers from
// the top: flags > process environment > .env > config.yaml > defaults.
func TestPrecedence(t *testing.T) {
	cases := []struct {
		name              string
		yaml, dotenv, env bool
		flag              bool
		want              int
		origin            string
	}{
		{"all layers", true, true, true, true, 20, "command line"},
		{"no flag", true, true, true, false, 30, "env HERMES_AGENT_MAX_TURNS"},
		{"no process env", true, true, false, false, 40, ".env:2 HERMES_AGENT_MAX_TURNS"},
		{"no .env", true, false, false, false, 50, "config.yaml:3"},
		{"nothing", false, false, false, false, 90, "default"},
		{"flag over yaml only", true, false, false, true, 20, "command line"},
		{".env over yaml", true, true, false, false, 40, ".env:2 HERMES_AGENT_MAX_TURNS"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			files := map[string]string{}
			if tc.yaml {
				files["config.yaml"] = "# agent limits\nagent:\n  max_turns: 50\n"
			}
			if tc.dotenv {
				files[".env"] = "# secrets\nHERMES_AGENT_MAX_TURNS=40\n"
			}
			env := map[string]string{}
			if tc.env {
				env["HERMES_AGENT_MAX_TURNS"] = "30"
			}
			var flags map[string]string
			if tc.flag {
				flags = map[string]string{"agent.max_turns": "20"}
			}
			l := mustLoad(t, files, env, flags)
			if got := l.Config.Agent.MaxTurns; got != tc.want {
				t.Errorf("max_turns = %d, want %d", got, tc.want)
			}
			if got := l.Origin("agent.max_turns"); got != tc.origin {
				t.Errorf("Origin = %q, want %q", got, tc.origin)
			}
		})
	}
}

func TestSubstitution(t *testing.T) {
	cases := []struct {
		name    string
		value   string
		env     map[string]string
		dotenv  string
		want    string
		warning string
	}{
		{"process env", "${HOST}", map[string]string{"HOST": "a.example"}, "", "a.example", ""},
		{"from .env", "${HOST}", nil, "HOST=b.example\n", "b.example", ""},
		{"process env beats .env", "${HOST}", map[string]string{"HOST": "a.example"}, "HOST=b.example\n", "a.example", ""},
		{"default when unset", "${HOST:-c.example}", nil, "", "c.example", ""},
		{"default when empty", "${HOST:-c.example}", map[string]string{"HOST": ""}, "", "c.example", ""},
		{"set beats default", "${HOST:-c.example}", map[string]string{"HOST": "a.example"}, "", "a.example", ""},
		{"inside text", "http://${HOST}:${PORT:-8080}/v1", map[string]string{"HOST": "h"}, "", "http://h:8080/v1", ""},
		{"unset without default", "x${NOPE}y", nil, "", "xy", `config.yaml:2: model.default: ${NOPE} is not set; using ""`},
		{"escaped", "$${HOST}", map[string]string{"HOST": "a"}, "", "${HOST}", ""},
		{"not a name", "${1X}", nil, "", "${1X}", ""},
		{"unclosed", "${HOST", nil, "", "${HOST", `config.yaml:2: model.default: "${" without a closing "}" is kept as written`},
		{"quoted", `"${HOST}"`, map[string]string{"HOST": "q"}, "", "q", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			files := map[string]string{"config.yaml": "model:\n  default: " + tc.value + "\n"}
			if tc.dotenv != "" {
				files[".env"] = tc.dotenv
			}
			l := mustLoad(t, files, tc.env, nil)
			if got := l.Config.Model.Default; got != tc.want {
				t.Errorf("model.default = %q, want %q", got, tc.want)
			}
			if tc.warning == "" && len(l.Warnings) > 0 {
				t.Errorf("Warnings = %q, want none", l.Warnings)
			}
			if tc.warning != "" && (len(l.Warnings) != 1 || l.Warnings[0] != tc.warning) {
				t.Errorf("Warnings = %q, want [%q]", l.Warnings, tc.warning)
			}
		})
	}
}

func TestSubstitutionTypedAndKeys(t *testing.T) {
	l := mustLoad(t, map[string]string{"config.yaml": "agent:\n  max_turns: ${TURNS:-12}\n  idle_timeout: ${IDLE}\nproviders:\n  ${NAME}:\n    base_url: http://x/v1\n"},
		map[string]string{"IDLE": "45", "NAME": "zzz"}, nil)
	if l.Config.Agent.MaxTurns != 12 || l.Config.Agent.IdleTimeout != 45*time.Second {
		t.Errorf("agent = %+v", l.Config.Agent)
	}
	if _, ok := l.Config.Providers["${NAME}"]; !ok {
		t.Errorf("keys must not be substituted: providers = %v", l.Config.Providers)
	}
}

func TestHome(t *testing.T) {
	cases := []struct {
		name    string
		env     map[string]string
		profile string
		want    string
		err     string
	}{
		{"HERMES_HOME", map[string]string{"HERMES_HOME": "/srv/h", "HOME": "/home/u"}, "", "/srv/h", ""},
		{"default home", map[string]string{"HOME": "/home/u"}, "", "/home/u/.hermes", ""},
		{"profile", map[string]string{"HOME": "/home/u"}, "work", "/home/u/.hermes/profiles/work", ""},
		{"profile under HERMES_HOME", map[string]string{"HERMES_HOME": "/srv/h"}, "bot-2", "/srv/h/profiles/bot-2", ""},
		{"default profile is the home", map[string]string{"HOME": "/home/u"}, "default", "/home/u/.hermes", ""},
		{"tilde in HERMES_HOME", map[string]string{"HERMES_HOME": "~/alt", "HOME": "/home/u"}, "", "/home/u/alt", ""},
		{"no home at all", map[string]string{}, "", "", "config: cannot find the home directory: set HERMES_HOME or HOME"},
		{"escaping profile", map[string]string{"HOME": "/home/u"}, "../x", "", `config: profile "../x" is not accepted; use letters, digits, "-", "_" and ".", starting with a letter or digit`},
		{"hidden profile", map[string]string{"HOME": "/home/u"}, ".x", "", `config: profile ".x" is not accepted; use letters, digits, "-", "_" and ".", starting with a letter or digit`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Home(MapLookup(tc.env), tc.profile)
			if tc.err != "" {
				if err == nil || err.Error() != tc.err {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("Home = %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}

func TestLoadProfile(t *testing.T) {
	base := home(t, map[string]string{
		"config.yaml":                "model:\n  default: base-model\n",
		"profiles/work/config.yaml":  "model:\n  default: work-model\n",
		"profiles/work/.env":         "HERMES_AGENT_MAX_TURNS=7\n",
		"profiles/other/config.yaml": "model:\n  default: other-model\n",
	})
	for _, tc := range []struct{ profile, model string }{{"", "base-model"}, {"work", "work-model"}, {"other", "other-model"}, {"empty", ""}} {
		l, err := Load(LoadOptions{Env: MapLookup(map[string]string{"HERMES_HOME": base}), Profile: tc.profile})
		if err != nil {
			t.Fatal(err)
		}
		if l.Config.Model.Default != tc.model {
			t.Errorf("profile %q: model.default = %q, want %q", tc.profile, l.Config.Model.Default, tc.model)
		}
		if tc.profile == "work" && (l.Config.Agent.MaxTurns != 7 || l.Paths.Home != filepath.Join(base, "profiles", "work") || l.Profile != "work") {
			t.Errorf("work profile: turns %d, paths %+v", l.Config.Agent.MaxTurns, l.Paths)
		}
	}
}

func TestEnvOverrides(t *testing.T) {
	l := mustLoad(t, map[string]string{
		"config.yaml": "providers:\n  local:\n    base_url: http://localhost:9/v1\n    headers: {X-Team: a}\nfallback_providers:\n  - {provider: local, model: m1}\n",
		".env":        "HERMES_AGENT_IDLE_TIMEOUT=3m\n",
	}, map[string]string{
		"HERMES_MODEL_DEFAULT":                  "gpt-x",
		"HERMES_AGENT_API_MAX_RETRIES":          "5",
		"HERMES_MODEL_API_MODE":                 "responses",
		"HERMES_PROVIDERS_LOCAL_BASE_URL":       "http://localhost:10/v1",
		"HERMES_PROVIDERS_LOCAL_HEADERS_X_TEAM": "b",
		"HERMES_FALLBACK_PROVIDERS_0_MODEL":     "m2",
		"HERMES_TIMEZONE":                       "UTC",
	}, nil)
	c := l.Config
	switch {
	case c.Model.Default != "gpt-x", c.Agent.APIMaxRetries != 5, c.Model.APIMode != Responses,
		c.Agent.IdleTimeout != 3*time.Minute, c.Providers["local"].BaseURL != "http://localhost:10/v1",
		c.Providers["local"].Headers["X-Team"] != "b", c.FallbackProviders[0].Model != "m2", c.Timezone != "UTC":
		t.Errorf("overrides not applied: %+v", c)
	}
	if got := EnvName("fallback_providers[0].model"); got != "HERMES_FALLBACK_PROVIDERS_0_MODEL" {
		t.Errorf("EnvName = %q", got)
	}
}

// The persistent shell is on unless config.yaml or the environment turns
// it off.
func TestPersistentShellSwitch(t *testing.T) {
	if !Defaults().Terminal.PersistentShell {
		t.Error("the persistent shell is off by default")
	}
	for _, l := range []*Loaded{
		mustLoad(t, map[string]string{"config.yaml": "terminal:\n  persistent_shell: false\n"}, nil, nil),
		mustLoad(t, nil, map[string]string{"HERMES_TERMINAL_PERSISTENT_SHELL": "false"}, nil),
	} {
		if l.Config.Terminal.PersistentShell {
			t.Errorf("persistent_shell stayed on (from %s)", l.Origin("terminal.persistent_shell"))
		}
	}
}

// errorLines splits a joined error into its lines.
func errorLines(err error) []string {
	if err == nil {
		return nil
	}
	return strings.Split(err.Error(), "\n")
}

func TestLoadErrorsAreAllReported(t *testing.T) {
	_, err := loadFiles(t, map[string]string{"config.yaml": "model:\n  api_mode: chat\nagent:\n  api_max_retries: three\n  max_turns: -5\n"}, nil, nil)
	got := errorLines(err)
	want := []string{
		`config.yaml:2: model.api_mode: "chat" is not accepted; use one of chat_completions, responses, anthropic_messages`,
		`config.yaml:4: agent.api_max_retries: "three" is not an integer`,
		`config.yaml:5: agent.max_turns: "-5" is not accepted; use zero or more`,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("errors:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	var fe *FieldError
	if !errors.As(err, &fe) || fe.Key != "model.api_mode" || fe.Source != "config.yaml:2" || fe.Value != "chat" {
		t.Errorf("errors.As FieldError = %+v", fe)
	}
}

// The gateway section: its defaults, its words and its ranges, each
// refused with the key and what is accepted.
func TestGatewaySection(t *testing.T) {
	l := mustLoad(t, nil, nil, nil)
	g := l.Config.Gateway
	if g.UnauthorizedDMBehavior != DMPair || g.Busy != BusyInterrupt || g.Reset.Mode != ResetNone ||
		!g.GroupSessionsPerUser.Or(true) || !g.RequireMention.Or(true) || g.MaxInboundMediaBytes != 20<<20 {
		t.Errorf("defaults = %+v", g)
	}
	l = mustLoad(t, map[string]string{"config.yaml": "gateway:\n  telegram:\n    token: ${TELEGRAM_BOT_TOKEN}\n    allow: [\"42\"]\n  reset: {mode: idle, idle_minutes: 30}\n"},
		map[string]string{"TELEGRAM_BOT_TOKEN": "123:abc"}, nil)
	if tg := l.Config.Gateway.Telegram; string(tg.Token) != "123:abc" || len(tg.Allow) != 1 || l.Config.Gateway.Reset.IdleMinutes != 30 {
		t.Errorf("telegram = %+v, reset = %+v", tg, l.Config.Gateway.Reset)
	}
	for _, tt := range []struct{ yaml, want string }{
		{"gateway:\n  unauthorized_dm_behavior: answer\n", "pair, ignore"},
		{"gateway:\n  busy: wait\n", "interrupt, queue"},
		{"gateway:\n  reset: {mode: weekly}\n", "none, idle, daily"},
		{"gateway:\n  reset: {mode: daily, at_hour: 24}\n", "gateway.reset.at_hour"},
		{"gateway:\n  reset: {mode: idle, idle_minutes: 0}\n", "gateway.reset.idle_minutes"},
		{"gateway:\n  telegram: {base_url: \"ftp://x\"}\n", "gateway.telegram.base_url"},
		{"gateway:\n  telegram: {webhook: {url: \"https://bot.example.com\"}}\n", "gateway.telegram.webhook.url"},
		{"gateway:\n  telegram: {webhook: {url: \"https://bot.example.com/hooks/a\"}}\n  webhook:\n    routes:\n      a: {path: /hooks/a, auth: bearer, secret: s, prompt: p}\n",
			"gateway.webhook.routes.a.path: \"/hooks/a\" is not accepted; gateway.telegram.webhook.url answers on that path"},
		{"gateway:\n  webhook:\n    routes:\n      a: {path: /x, auth: bearer, secret: s, prompt: p}\n      b: {path: /x, auth: bearer, secret: s, prompt: p}\n",
			"gateway.webhook.routes.b.path"},
	} {
		_, err := loadFiles(t, map[string]string{"config.yaml": tt.yaml}, nil, nil)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: %v, want an error naming %q", tt.yaml, err, tt.want)
		}
	}
}
