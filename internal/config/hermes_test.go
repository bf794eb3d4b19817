package config

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

// A Hermes Agent user's config.yaml, written with every default as Hermes
// writes it, loads with no warning and nothing to tell: the keys hermes
// has it honours, the others are Hermes's and left at their defaults. The
// test counts them for the record.
func TestHermesDefaultConfigLoads(t *testing.T) {
	data, err := os.ReadFile("testdata/hermes/config.yaml")
	if err != nil {
		t.Fatal(err)
	}
	l := mustLoad(t, map[string]string{"config.yaml": string(data)}, nil, nil)
	if len(l.Warnings) != 0 || len(l.Unhonoured) != 0 {
		t.Fatalf("warnings %q, not honoured %q; want none", l.Warnings, l.Unhonoured)
	}
	if !slices.Equal(l.Config.Toolsets, []string{"all"}) {
		t.Errorf("toolsets [hermes-cli] = %q, want every toolset", l.Config.Toolsets)
	}
	root, _, err := parseYAML(data, "config.yaml")
	if err != nil {
		t.Fatal(err)
	}
	c := Defaults()
	d := newDecoder("config.yaml", nil)
	d.decode(root, reflect.ValueOf(&c).Elem(), "", "", 0)
	keys := hermesKeys()
	defaults := 0
	for _, def := range keys {
		if def != "" {
			defaults++
		}
	}
	t.Logf("Hermes's %d default keys: %d honoured under the same name, %d known and not honoured (config check lists them when set), 0 unknown",
		defaults, defaults-d.hermesSeen, d.hermesSeen)
	if d.hermesSeen >= defaults || defaults < 870 {
		t.Errorf("%d of %d keys went to the not-honoured list", d.hermesSeen, defaults)
	}
}

// Hermes's settings changed from its defaults are listed, grouped by why;
// a key Hermes does not know either, in one of its sections, is still a
// warning; Hermes's values hermes writes differently mean the same here.
func TestHermesSettings(t *testing.T) {
	dir := t.TempDir()
	blocked := filepath.Join(dir, "blocked.txt")
	if err := os.WriteFile(blocked, []byte("# shared\nads.example.net\n\n*.tracker.example\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	l := mustLoad(t, map[string]string{"config.yaml": `
toolsets: [hermes-telegram]
agent: {service_tier: fast, max_turns: 40, disabled_toolsets: [cronjob]}
approvals: {cron_mode: approve}
providers: {my-llm: {base_url: "https://llm.example.com/v1", key_env: MY_LLM_KEY}}
fallback_providers: [{provider: openrouter, model: deepseek/deepseek-chat, base_url: "https://openrouter.ai/api/v1"}]
display: {skin: mono, personality: pirate, skn: x}
discord: {require_mention: false}
compression: {summary_model: gpt-4o-mini, protect_last_n: 30}
memory: {memory_enabled: false, user_profile_enabled: true}
delegation: {child_timeout_seconds: 90}
logging: {level: WARNING, max_size_mb: 12, backup_count: 4}
security:
  website_blocklist: {enabled: true, domains: [evil.example], shared_files: [` + blocked + `]}
`}, nil, nil)
	want := []string{"agent.service_tier", "compression.summary_model", "discord.require_mention", "display.personality", "display.skin", "fallback_providers[0].base_url"}
	if !slices.Equal(l.Unhonoured, want) {
		t.Errorf("not honoured %q, want %q", l.Unhonoured, want)
	}
	report := strings.Join(l.UnhonouredReport(), "\n")
	if !strings.Contains(report, "display.personality, display.skin: the look of Hermes's terminal UI") {
		t.Errorf("report does not group the display keys:\n%s", report)
	}
	if len(l.Warnings) != 1 || !strings.Contains(l.Warnings[0], `unknown key "display.skn"`) {
		t.Errorf("warnings %q, want the one typo", l.Warnings)
	}
	c := l.Config
	if c.Agent.MaxTurns != 40 || !slices.Equal(c.Toolsets, []string{"all"}) || !slices.Equal(c.Agent.DisabledToolsets, []string{"cron"}) {
		t.Errorf("agent.max_turns %d, toolsets %q, disabled %q", c.Agent.MaxTurns, c.Toolsets, c.Agent.DisabledToolsets)
	}
	if c.Compression.ProtectLastN != 30 || c.Memory.MemoryEnabled.Or(true) || !c.Memory.UserProfileEnabled.Or(false) {
		t.Errorf("compression.protect_last_n %d, memory_enabled %v, user_profile_enabled %v", c.Compression.ProtectLastN, c.Memory.MemoryEnabled, c.Memory.UserProfileEnabled)
	}
	if c.Providers["my-llm"].APIKeyEnv != "MY_LLM_KEY" {
		t.Errorf("providers.my-llm.key_env: api_key_env %q", c.Providers["my-llm"].APIKeyEnv)
	}
	if c.Approvals.CronMode != NonInteractiveAllow {
		t.Errorf("approvals.cron_mode approve: %q, want allow", c.Approvals.CronMode)
	}
	for _, v := range []string{"unlimited", "none", "-1", "0"} {
		l := mustLoad(t, map[string]string{"config.yaml": "agent: {max_turns: " + v + "}"}, nil, nil)
		if l.Config.Agent.MaxTurns != 1000 {
			t.Errorf("agent.max_turns %s: %d, want 1000", v, l.Config.Agent.MaxTurns)
		}
	}
	if c.Delegation.ChildTimeout != 90*time.Second {
		t.Errorf("delegation.child_timeout_seconds 90: child timeout %v", c.Delegation.ChildTimeout)
	}
	if c.Logging.Level != "warn" || c.Logging.FileMaxMB != 12 || c.Logging.FileKeep != 4 {
		t.Errorf("logging = %+v, want warn, 12 MB, 4 files", c.Logging)
	}
	hosts, err := c.Security.WebsiteBlocklist.Hosts(os.ReadFile)
	if err != nil || !slices.Equal(hosts, []string{"evil.example", "ads.example.net", "*.tracker.example"}) {
		t.Errorf("blocklist hosts %q, %v", hosts, err)
	}
	for _, tc := range []struct {
		yaml string
		want []string
	}{
		{"security: {website_blocklist: [a.example]}", []string{"a.example"}},
		{"security: {website_blocklist: {enabled: false, domains: [a.example]}}", nil},
		{"security: {website_blocklist: {domains: [a.example]}}", []string{"a.example"}},
	} {
		l := mustLoad(t, map[string]string{"config.yaml": tc.yaml}, nil, nil)
		if got, err := l.Config.Security.WebsiteBlocklist.Hosts(os.ReadFile); err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("%s: hosts %q, %v; want %q", tc.yaml, got, err, tc.want)
		}
	}
	l = mustLoad(t, map[string]string{"config.yaml": "security: {website_blocklist: {shared_files: [/nonexistent/list]}}"}, nil, nil)
	if _, err := l.Config.Security.WebsiteBlocklist.Hosts(os.ReadFile); err == nil || !strings.Contains(err.Error(), "security.website_blocklist.shared_files") {
		t.Errorf("a missing shared file: %v", err)
	}
}
