package config

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/hermes-go/hermes/internal/lazy"
)

// A Hermes Agent user's config.yaml works here as it is. The keys hermes
// has under the same name it honours; every other key Hermes knows loads
// without a warning, since it is not a mistake, and is listed as not
// honoured (Loaded.Unhonoured) by hermes config check and hermes doctor,
// so nothing is silently ignored. A key neither knows stays a warning: a
// typo is still caught.

//go:embed hermeskeys.txt
var hermesKeysText string

// hermesKeys returns Hermes's keys (hermeskeys.txt), each with its
// default as JSON ("" for the keys it reads without a default).
func hermesKeys() map[string]string {
	keys := map[string]string{}
	for line := range strings.Lines(hermesKeysText) {
		if line = strings.TrimRight(line, "\n"); line != "" && !strings.HasPrefix(line, "#") {
			key, def, _ := strings.Cut(line, "\t")
			keys[key] = def
		}
	}
	return keys
}

// isDefault reports whether the value of n, as JSON, is def.
func isDefault(n *yaml.Node, def string) bool {
	if def == "" {
		return false
	}
	var v, w any
	if n.Decode(&v) != nil || json.Unmarshal([]byte(def), &w) != nil {
		return false
	}
	a, err1 := json.Marshal(v)
	b, err2 := json.Marshal(w)
	return err1 == nil && err2 == nil && string(a) == string(b)
}

// listIndex is a list index in a key ("[0]"): hermeskeys.txt writes an
// entry's keys with "[]".
var listIndex = lazy.Regexp{Expr: `\[[0-9]+\]`}

// hermesSection reports whether key is a section of Hermes's: a prefix of
// some key of it.
func hermesSection(keys map[string]string, key string) bool {
	prefix := key + "."
	for k := range keys {
		if strings.HasPrefix(k, prefix) {
			return true
		}
	}
	return false
}

// hermesUnused says, by the longest matching prefix, why hermes does not
// honour a Hermes key.
func hermesUnused(key string) string {
	best, why := "", "Hermes's setting; hermes has no counterpart"
	for _, r := range hermesReasons() {
		if (key == r[0] || strings.HasPrefix(key, r[0]+".")) && len(r[0]) > len(best) {
			best, why = r[0], r[1]
		}
	}
	return why
}

// hermesReasons are the reasons by key or section.
func hermesReasons() [][2]string {
	return [][2]string{
		{"agent", "Hermes's agent-loop tuning; hermes's loop has its own guards (agent.max_turns, the agent.*_timeout keys)"},
		{"terminal", "Hermes's terminal tool tuning; hermes runs commands locally or over SSH (terminal.backend, terminal.timeout)"},
		{"terminal.docker_image", "container terminal backends are not part of hermes"},
		{"web", "Hermes's web backends; hermes searches with web.search_backend"},
		{"browser", "Hermes's browser backends; hermes drives a local Chromium (browser.executable)"},
		{"checkpoints", "hermes prunes its checkpoints each time a turn records one"},
		{"compression", "Hermes's compression tuning; hermes compresses by compression.threshold, target_ratio and protect_first_n"},
		{"auxiliary", "auxiliary models for tasks hermes does not have, or settings beyond provider and model"},
		{"display", "the look of Hermes's terminal UI; hermes's has its own"},
		{"dashboard", "Hermes's dashboard; hermes serves its own at /ui"},
		{"desktop", "not part of hermes"}, {"computer_use", "not part of hermes"},
		{"tts", "hermes has no voice"}, {"stt", "hermes has no voice"}, {"voice", "hermes has no voice"}, {"wake_word", "hermes has no voice"},
		{"human_delay", "not part of hermes"},
		{"memory.provider", "external memory providers are not part of hermes; long-term memory is memory.long_term"},
		{"honcho", "external memory providers are not part of hermes; long-term memory is memory.long_term"},
		{"delegation", "Hermes's delegation tuning; hermes delegates by delegation.max_iterations, max_concurrent_children, max_spawn_depth and child_timeout_seconds"},
		{"delegation.subagent_auto_approve", "children's dangerous commands are approved as the parent's are (delegation.approvals); hermes does not approve them unasked"},
		{"slack", "hermes reads its platforms from gateway.slack"}, {"discord", "hermes reads its platforms from gateway.discord"},
		{"telegram", "hermes reads its platforms from gateway.telegram"}, {"mattermost", "not a platform of hermes's gateway"},
		{"matrix", "hermes reads its platforms from gateway.matrix"}, {"whatsapp", "not a platform of hermes's gateway"},
		{"cron", "hermes's scheduler is set under scheduler:"},
		{"kanban", "hermes's teams (teams:) take this role"},
		{"security", "Hermes's security tuning; hermes's are approvals:, security.allow_private_urls and security.website_blocklist"},
		{"security.redact_secrets", "hermes always redacts secrets from logs and from what the model sees; it cannot be turned off"},
		{"logging.max_size_mb", "hermes logs to stderr; rotation belongs to the service manager"},
		{"logging.backup_count", "hermes logs to stderr; rotation belongs to the service manager"},
		{"gateway", "Hermes's gateway process tuning"},
		{"streaming", "hermes streams on every platform that can edit a message"},
		{"sessions", "Hermes's session housekeeping; hermes keeps sessions in state.db until deleted"},
		{"plugins", "hermes has no plugins; tools are declared (tools:) or MCP servers (mcp_servers:)"},
		{"moa", "not part of hermes"}, {"goals", "not part of hermes"}, {"loops", "not part of hermes"},
		{"curator.backup", "the curator keeps no backups: it never deletes a skill, it moves it to skills/.archive, from where hermes skills restore brings it back"},
		{"auxiliary.curator", "hermes's curator takes the provider and model of auxiliary.curator"},
		{"skills", "Hermes's skill tuning; hermes reads skills.external_dirs and skills.index_full_limit"},
		{"approvals", "Hermes's approval tuning; hermes's are approvals.mode, timeout, cron_mode and deny"},
		{"model_catalog", "hermes's model catalog is built in"}, {"models_dev", "hermes's model catalog is built in"},
		{"bedrock", "not a provider of hermes"}, {"vertex", "not a provider of hermes"}, {"nous", "Nous Portal settings"},
		{"openrouter", "OpenRouter tuning beyond its provider entry"},
		{"updates", "hermes is updated by replacing its binary"}, {"onboarding", "not part of hermes"}, {"telemetry", "hermes sends no telemetry"},
		{"vault", "hermes reads secrets from the environment and .env"}, {"secrets", "hermes reads secrets from the environment and .env"},
		{"proxy", "hermes uses the standard HTTPS_PROXY variables"}, {"network", "hermes uses the standard HTTPS_PROXY variables"},
		{"_config_version", "Hermes's own migration stamp"},
		{"custom_providers", "an old Hermes form; write providers: as a mapping"},
		{"fallback_providers", "hermes takes a fallback's provider and model; its endpoint comes from providers:"},
		{"max_turns", "an old Hermes form; write agent.max_turns"},
		{"provider", "an old Hermes form; write model.provider"}, {"base_url", "an old Hermes form; write model.base_url"},
		{"api_base", "an old Hermes form; write model.base_url"}, {"context_length", "an old Hermes form; write model.context_length"},
	}
}

// hermesKey decides about a key the configuration does not have: a key of
// Hermes's is recorded as not honoured and true is returned; a section of
// Hermes's is walked, each key of it decided the same way, and the ones
// Hermes does not know either are warnings. Anything else is left to the
// caller (false).
func (d *decoder) hermesKey(key string, n *yaml.Node, depth int) bool {
	if d.hermes == nil {
		d.hermes = hermesKeys()
	}
	if def, ok := d.hermes[listIndex.Get().ReplaceAllString(key, "[]")]; ok {
		d.hermesSeen++
		// A setting left at Hermes's default says nothing the user
		// wanted: only the ones changed are told.
		if !isDefault(n, def) {
			d.unhonoured = append(d.unhonoured, key)
		}
		return true
	}
	if !hermesSection(d.hermes, key) {
		return false
	}
	if n.Kind != yaml.MappingNode {
		d.unhonoured = append(d.unhonoured, key)
		return true
	}
	d.pairs(n, key, depth, func(k, val *yaml.Node) {
		full := appendKey(key, k.Value)
		if !d.hermesKey(full, val, depth+1) {
			d.warn(k, "%s", unknownKeyText(full, nil))
		}
	})
	return true
}

// UnhonouredReport is Unhonoured as lines, one for the keys that share a
// reason, in the order of the reasons' first keys:
//
//	agent.budget_warning_ratio, agent.service_tier: Hermes's agent-loop tuning; …
func (l *Loaded) UnhonouredReport() []string {
	keys := l.Unhonoured
	var order []string
	byWhy := map[string][]string{}
	for _, k := range keys {
		why := hermesUnused(k)
		if _, ok := byWhy[why]; !ok {
			order = append(order, why)
		}
		byWhy[why] = append(byWhy[why], k)
	}
	out := make([]string, 0, len(order))
	for _, why := range order {
		out = append(out, fmt.Sprintf("%s: %s", strings.Join(byWhy[why], ", "), why))
	}
	return out
}

// hermesValues rewrites the values Hermes Agent writes differently from
// hermes, so its config.yaml means the same here: a provider's key_env is
// api_key_env, its child timeout is in
// seconds under another name, its hooks name tools by a matcher and run a
// shell line, its toolset presets
// (hermes-cli, hermes-telegram, …: a platform's default tools) are every
// toolset, and its cronjob toolset is cron.
func hermesValues(c *Config) {
	for name, p := range c.Providers {
		if p.APIKeyEnv == "" && p.KeyEnv != "" {
			p.APIKeyEnv = p.KeyEnv
			c.Providers[name] = p
		}
	}
	if d := &c.Delegation; d.ChildTimeoutSeconds > 0 {
		d.ChildTimeout = time.Duration(d.ChildTimeoutSeconds) * time.Second
	}
	for _, hooks := range c.Hooks {
		for i := range hooks {
			hermesHook(&hooks[i])
		}
	}
	for _, list := range []*[]string{&c.Toolsets, &c.Agent.DisabledToolsets} {
		for i, name := range *list {
			switch {
			case strings.HasPrefix(name, "hermes-") && list == &c.Toolsets:
				(*list)[i] = "all"
			case name == "cronjob":
				(*list)[i] = "cron"
			}
		}
	}
}

// hermesHook reads a hook's matcher, as Hermes Agent writes it, as tool
// globs: its alternatives, ".*" made "*".
func hermesHook(h *Hook) {
	if len(h.Tools) == 0 && h.Matcher != "" {
		for _, alt := range strings.Split(h.Matcher, "|") {
			if alt = strings.TrimSpace(strings.ReplaceAll(alt, ".*", "*")); alt != "" {
				h.Tools = append(h.Tools, alt)
			}
		}
	}
}

// hermesUnlimitedTurns is what Hermes Agent's unlimited agent.max_turns
// (unlimited, none, inf, 0 or -1) is here: a runaway loop still ends.
const hermesUnlimitedTurns = "1000"

// hermesNodes rewrites, in the parsed config.yaml before it is decoded,
// the values Hermes Agent writes that hermes's types would refuse:
// agent.max_turns given as unlimited, and a hook's command given as one
// line, which Hermes runs through the shell: it becomes [sh, -c, line]
// (a list of one line is still refused, as a mistake of hermes's form).
func hermesNodes(root *yaml.Node) {
	if hooks := mappingValue(root, "hooks"); hooks != nil && hooks.Kind == yaml.MappingNode {
		for i := 1; i < len(hooks.Content); i += 2 {
			for _, h := range hooks.Content[i].Content {
				if c := mappingValue(h, "command"); c != nil && c.Kind == yaml.ScalarNode && strings.ContainsAny(c.Value, " \t;|&$<>") {
					line := *c
					*c = yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Line: c.Line, Column: c.Column, Content: []*yaml.Node{
						{Kind: yaml.ScalarNode, Tag: "!!str", Value: "sh", Line: c.Line},
						{Kind: yaml.ScalarNode, Tag: "!!str", Value: "-c", Line: c.Line},
						&line,
					}}
				}
			}
		}
	}
	n := mappingValue(mappingValue(root, "agent"), "max_turns")
	if n == nil || n.Kind != yaml.ScalarNode {
		return
	}
	switch strings.ToLower(strings.TrimSpace(n.Value)) {
	case "unlimited", "none", "inf", "infinite", "0", "-1":
		n.Value, n.Tag, n.Style = hermesUnlimitedTurns, "!!int", 0
	}
}

// mappingValue is the value of key in the mapping n (a document's root
// mapping too), or nil.
func mappingValue(n *yaml.Node, key string) *yaml.Node {
	if n != nil && n.Kind == yaml.DocumentNode && len(n.Content) == 1 {
		n = n.Content[0]
	}
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}
