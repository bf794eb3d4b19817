package config

import (
	"fmt"
	"maps"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Hook is one command of the hooks section, which maps an event name to
// the hooks that run at it, in order:
//
//	hooks:
//	  pre_tool_call:
//	    - command: [/usr/local/bin/guard, --strict]
//	      tools: [terminal, "web_*"]
//	      timeout: 5s
//	      fail: closed
//
// The command is an argv list, run without a shell, so nothing a payload
// holds can change what runs; a shell line is written out as
// [sh, -c, "..."] by whoever wants one.
type Hook struct {
	// Command is the program (absolute, ~/..., or a name on PATH) and its
	// arguments.
	Command []string `yaml:"command"`
	// Tools, for pre_tool_call and post_tool_call, are the tool names or
	// globs the hook runs for; empty means every tool.
	Tools []string `yaml:"tools"`
	// Timeout stops the hook after this long (10s).
	Timeout time.Duration `yaml:"timeout"`
	// Fail is what a pre_tool_call hook that crashes, times out or
	// answers nonsense means: closed (the default) blocks the call, open
	// lets it run.
	Fail string `yaml:"fail"`
	// Matcher is Hermes Agent's way of naming the tools: names or simple
	// patterns joined by "|" ("terminal|web_.*"), read into Tools when
	// Tools is empty.
	Matcher string `yaml:"matcher"`
}

// HookEvents are the event names hooks: takes, Hermes's.
var HookEvents = []string{"on_session_start", "pre_llm_call", "pre_tool_call", "post_tool_call", "on_turn_end", "on_delivery", "on_session_end"}

// The values of a hook's fail.
const (
	HookFailClosed = "closed"
	HookFailOpen   = "open"
)

// maxHookTimeout bounds a hook's timeout: a hook holds the turn it runs in.
const maxHookTimeout = 10 * time.Minute

// validateHooks checks each hook's event, command, tools, timeout and
// fail.
func validateHooks(c *Config, where func(key string) string) []error {
	var errs []error
	bad := func(key, value, prob string) {
		errs = append(errs, badValue(where(key), key, value, prob))
	}
	for _, event := range slices.Sorted(maps.Keys(c.Hooks)) {
		if !slices.Contains(HookEvents, event) {
			bad("hooks", event, "is not accepted as an event; use one of "+strings.Join(HookEvents, ", "))
			continue
		}
		for i, h := range c.Hooks[event] {
			key := fmt.Sprintf("hooks.%s[%d]", event, i)
			switch {
			case len(h.Command) == 0 || h.Command[0] == "":
				bad(key+".command", strings.Join(h.Command, " "), "is not accepted; give the program and its arguments as a list, like [/usr/local/bin/guard, --strict]")
			case len(h.Command) == 1 && strings.ContainsAny(h.Command[0], " \t"):
				bad(key+".command", h.Command[0], "is not accepted: command is a list of the program and its arguments, not a shell line; "+
					"write [/path/to/program, arg] or, for a shell line, [sh, -c, \"...\"]")
			case strings.Contains(h.Command[0], "/") && !filepath.IsAbs(h.Command[0]) && !strings.HasPrefix(h.Command[0], "~/"):
				bad(key+".command", h.Command[0], "is not accepted: a relative path depends on where hermes was started; use an absolute path, ~/..., or a program name on PATH")
			}
			if len(h.Tools) > 0 && event != "pre_tool_call" && event != "post_tool_call" {
				bad(key+".tools", strings.Join(h.Tools, ", "), "is not accepted on "+event+"; only pre_tool_call and post_tool_call hooks run for some tools")
			}
			for _, p := range h.Tools {
				if _, err := path.Match(p, ""); err != nil || p == "" {
					bad(key+".tools", p, "is not accepted; use a tool name or a glob like web_*")
				}
			}
			if h.Timeout < 0 || h.Timeout > maxHookTimeout {
				bad(key+".timeout", h.Timeout.String(), "is not accepted; use a duration from 1ms to 10m, like 5s (10s when not set)")
			}
			switch h.Fail {
			case "", HookFailClosed:
			case HookFailOpen:
				if event != "pre_tool_call" {
					bad(key+".fail", h.Fail, "is not accepted on "+event+"; only a pre_tool_call hook's failure decides anything (a failed hook of other events is logged)")
				}
			default:
				bad(key+".fail", h.Fail, "is not accepted; use closed (a failing hook blocks the call; the default) or open (the call runs)")
			}
		}
	}
	return errs
}
