package terminal

import (
	"os"
	"strings"
)

// FixedEnv returns the variables set for every command, replacing
// inherited values, here and by a remote Backend on its host. Commands
// run without a terminal and their output goes to a model: pagers would
// wait for a key press that never comes, colour codes are noise, and a
// credential prompt from git would stall the call until it times out.
func FixedEnv() []string {
	return []string{
		"TERM=dumb",
		"PAGER=cat",
		"GIT_PAGER=cat",
		"NO_COLOR=1",
		"GIT_TERMINAL_PROMPT=0",
	}
}

// Environ returns the environment commands run with: hermes's own minus
// the variables scrubbed, plus FixedEnv. It is computed per call so
// variables hermes sets while running (for example after loading .env) are
// scrubbed too. Other programs hermes runs for the model or the user's
// jobs (job scripts) take it too, so they see no more than a command.
func (t *Terminal) Environ() []string {
	return buildEnv(os.Environ(), t.scrubbed)
}

// scrubbed reports whether a variable must be hidden from commands:
// it is one of ScrubNames, Scrub says so, or it is named HERMES_*API_KEY*,
// hermes's own naming for keys it was given.
func (t *Terminal) scrubbed(name string) bool {
	if strings.HasPrefix(name, "HERMES_") && strings.Contains(name, "API_KEY") {
		return true
	}
	for _, n := range t.opt.ScrubNames {
		if n == name {
			return true
		}
	}
	return t.opt.Scrub != nil && t.opt.Scrub(name)
}

// buildEnv filters base (NAME=value entries) with drop, removes the names
// FixedEnv sets, and appends FixedEnv, so each name appears once.
func buildEnv(base []string, drop func(string) bool) []string {
	extra := FixedEnv()
	fixed := make(map[string]bool, len(extra))
	for _, kv := range extra {
		fixed[envName(kv)] = true
	}
	env := make([]string, 0, len(base)+len(extra))
	for _, kv := range base {
		name := envName(kv)
		if name == "" || fixed[name] || drop(name) {
			continue
		}
		env = append(env, kv)
	}
	return append(env, extra...)
}

// envName returns the NAME of a NAME=value entry. Entries without "=" are
// malformed and yield "", so they are dropped.
func envName(kv string) string {
	i := strings.IndexByte(kv, '=')
	if i <= 0 {
		return ""
	}
	return kv[:i]
}
