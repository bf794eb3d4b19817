package main

import (
	"context"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/hooks"
	"github.com/hermes-go/hermes/internal/safety"
)

type answering struct {
	a   safety.Answer
	got safety.Request
}

func (p *answering) Prompt(_ context.Context, r safety.Request) (safety.Answer, error) {
	p.got = r
	return p.a, nil
}

// The full-screen chat asks about a hook's first run in its dialog, with
// the command escaped; before the interface is up, and on deny, the hook
// is not allowed.
func TestScreenHookAsker(t *testing.T) {
	h := hooks.Hook{Event: hooks.PreToolCall, Command: []string{"/usr/local/bin/guard", "--note", "a\x1b]0;owned\x07b"}}
	s := &screenHookAsker{}
	if ok, err := s.AskHook(context.Background(), h); ok || err != nil {
		t.Fatalf("asked with no interface: %v %v", ok, err)
	}
	for _, tc := range []struct {
		a    safety.Answer
		want bool
	}{{safety.Once, true}, {safety.Always, true}, {safety.Deny, false}} {
		p := &answering{a: tc.a}
		s.set(p)
		ok, err := s.AskHook(context.Background(), h)
		if ok != tc.want || err != nil {
			t.Errorf("answer %v: allowed %v, %v", tc.a, ok, err)
		}
		if strings.ContainsAny(p.got.Command, "\x1b\x07") || !strings.Contains(p.got.Command, "/usr/local/bin/guard") ||
			!strings.Contains(p.got.Verdict.Description, "pre_tool_call hook has not run here before") {
			t.Errorf("the dialog was asked %+v", p.got)
		}
	}
}
