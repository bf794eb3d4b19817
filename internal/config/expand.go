package config

import (
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"
)

// config.yaml may refer to variables, so that a file can be shared while
// secrets and machine-specific values stay in the environment or .env:
//
//	api_key: ${OPENROUTER_API_KEY}
//	base_url: ${LLM_URL:-http://localhost:11434/v1}
//
// ${NAME:-default} uses the default when NAME is unset or empty; an unset
// NAME without a default becomes "" and a warning; $${ writes a literal ${.

// lateExpanded reports the top-level keys whose ${VAR} references are
// resolved when they are used (a declared tool's call, a database
// connection) rather than at load, so the secrets in them never sit in the
// loaded configuration or reach hermes config show.
func lateExpanded(key string) bool { return key == "tools" || key == "connections" }

// lateScript reports whether key is a job's script (schedules.NAME.script):
// it is expanded when the job runs (Loaded.Expand), so a secret it refers
// to is not stored with the job in state.db nor shown by hermes cron show.
func lateScript(key, k string) bool {
	parent, _, ok := strings.Cut(key, ".")
	return ok && parent == "schedules" && strings.Count(key, ".") == 1 && k == "script"
}

// Expand resolves ${NAME} and ${NAME:-default} in s from the environment
// and .env, as config.yaml's values are at load; an unset NAME without a
// default becomes "". It is for the values expanded late (a job's
// script).
func (l *Loaded) Expand(s string) string {
	out, _, _ := expand(s, l.Env)
	return out
}

// substitute expands variables in the string values of the document
// rooted at n. Keys are left alone. Each node is visited once: aliases
// point at nodes that are expanded where their anchor is.
func (d *decoder) substitute(n *yaml.Node, key string, env Lookup, depth int) {
	if depth > maxDepth*10 {
		return
	}
	switch n.Kind {
	case yaml.DocumentNode:
		for _, c := range n.Content {
			d.substitute(c, key, env, depth+1)
		}
	case yaml.SequenceNode:
		for i, c := range n.Content {
			d.substitute(c, fmt.Sprintf("%s[%d]", key, i), env, depth+1)
		}
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i].Value
			if key == "" && lateExpanded(k) || lateScript(key, k) {
				continue
			}
			d.substitute(n.Content[i+1], appendKey(key, k), env, depth+1)
		}
	case yaml.ScalarNode:
		if n.Tag != "!!str" || !strings.Contains(n.Value, "$") {
			return
		}
		out, unset, open := expand(n.Value, env)
		n.Value = out
		for _, name := range unset {
			d.warn(n, "%s: ${%s} is not set; using \"\"", orRoot(key), name)
		}
		if open {
			d.warn(n, "%s: \"${\" without a closing \"}\" is kept as written", orRoot(key))
		}
	}
}

// expand replaces ${NAME} and ${NAME:-default} in s using env. It returns
// the names that were unset and had no default, and whether a "${" was
// left unclosed. Text that is not a well-formed reference is kept as is.
func expand(s string, env Lookup) (out string, unset []string, open bool) {
	var b strings.Builder
	for {
		i := strings.Index(s, "${")
		if i < 0 {
			b.WriteString(s)
			return b.String(), unset, open
		}
		if i > 0 && s[i-1] == '$' {
			b.WriteString(s[:i-1])
			b.WriteString("${")
			s = s[i+2:]
			continue
		}
		b.WriteString(s[:i])
		end := strings.IndexByte(s[i:], '}')
		if end < 0 {
			open = true
			b.WriteString(s[i:])
			return b.String(), unset, open
		}
		ref := s[i+2 : i+end]
		s = s[i+end+1:]
		name, def, hasDef := strings.Cut(ref, ":-")
		if !validEnvName(name) {
			b.WriteString("${" + ref + "}")
			continue
		}
		v, ok := "", false
		if env != nil {
			v, ok = env(name)
		}
		switch {
		case ok && (v != "" || !hasDef):
			b.WriteString(v)
		case hasDef:
			b.WriteString(def)
		default:
			unset = append(unset, name)
		}
	}
}
