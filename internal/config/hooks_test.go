package config

import (
	"strings"
	"testing"
	"time"
)

// hooks: a section read, and every wrong value refused with its key and
// what is accepted.
func TestHooksSection(t *testing.T) {
	l := mustLoad(t, map[string]string{"config.yaml": `hooks:
  pre_tool_call:
    - command: [/usr/local/bin/guard, --strict]
      tools: [terminal, "web_*"]
      timeout: 5s
      fail: open
  on_turn_end:
    - command: [logger, -t, hermes]
`}, nil, nil)
	pre := l.Config.Hooks["pre_tool_call"]
	if len(pre) != 1 || strings.Join(pre[0].Command, " ") != "/usr/local/bin/guard --strict" || strings.Join(pre[0].Tools, ",") != "terminal,web_*" ||
		pre[0].Timeout != 5*time.Second || pre[0].Fail != HookFailOpen {
		t.Errorf("pre_tool_call = %+v", pre)
	}
	if end := l.Config.Hooks["on_turn_end"]; len(end) != 1 || end[0].Command[0] != "logger" {
		t.Errorf("on_turn_end = %+v", end)
	}
	// Hermes Agent's form: a shell line, the tools by a matcher.
	l = mustLoad(t, map[string]string{"config.yaml": "hooks: {pre_tool_call: [{matcher: \"terminal|web_.*\", command: \"/bin/guard --x\", timeout: 5}]}\n"}, nil, nil)
	if h := l.Config.Hooks["pre_tool_call"]; len(h) != 1 || strings.Join(h[0].Command, "|") != "sh|-c|/bin/guard --x" ||
		strings.Join(h[0].Tools, ",") != "terminal,web_*" || h[0].Timeout != 5*time.Second {
		t.Errorf("a Hermes hook: %+v", h)
	}
	for _, tt := range []struct{ yaml, want string }{
		{"hooks: {before_tool: [{command: [x]}]}\n", `hooks: "before_tool" is not accepted as an event; use one of on_session_start`},
		{"hooks: {on_turn_end: [{command: []}]}\n", `hooks.on_turn_end[0].command: "" is not accepted; give the program`},
		{"hooks: {on_turn_end: [{command: [\"./guard.sh --x\"]}]}\n", "not a shell line; write"},
		{"hooks: {on_turn_end: [{command: [bin/guard]}]}\n", `hooks.on_turn_end[0].command: "bin/guard" is not accepted: a relative path`},
		{"hooks: {on_turn_end: [{command: [x], tools: [terminal]}]}\n", `hooks.on_turn_end[0].tools: "terminal" is not accepted on on_turn_end`},
		{"hooks: {pre_tool_call: [{command: [x], tools: [\"[\"]}]}\n", `hooks.pre_tool_call[0].tools: "[" is not accepted; use a tool name or a glob`},
		{"hooks: {pre_tool_call: [{command: [x], timeout: 1h}]}\n", `hooks.pre_tool_call[0].timeout: "1h0m0s" is not accepted; use a duration from 1ms to 10m`},
		{"hooks: {pre_tool_call: [{command: [x], fail: maybe}]}\n", `hooks.pre_tool_call[0].fail: "maybe" is not accepted; use closed`},
		{"hooks: {on_delivery: [{command: [x], fail: open}]}\n", `hooks.on_delivery[0].fail: "open" is not accepted on on_delivery`},
	} {
		_, err := loadFiles(t, map[string]string{"config.yaml": tt.yaml}, nil, nil)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: %v, want an error naming %q", tt.yaml, err, tt.want)
		}
	}
}
