package main

import (
	"context"
	"sync"

	"github.com/hermes-go/hermes/internal/hooks"
	"github.com/hermes-go/hermes/internal/safety"
	"github.com/hermes-go/hermes/internal/safety/shell"
)

// screenHookAsker asks about a hook's first run in the full-screen
// chat's approval dialog: the hook's command shown whole and escaped,
// with what it can do. Any answer but deny allows it from now on, as the
// line chat's yes does. Until the interface is up nobody can be asked,
// and the hook is skipped as where nobody is.
type screenHookAsker struct {
	mu sync.Mutex
	p  safety.Prompter
}

func (s *screenHookAsker) set(p safety.Prompter) {
	s.mu.Lock()
	s.p = p
	s.mu.Unlock()
}

func (s *screenHookAsker) AskHook(ctx context.Context, h hooks.Hook) (bool, error) {
	s.mu.Lock()
	p := s.p
	s.mu.Unlock()
	if p == nil {
		return false, nil
	}
	a, err := p.Prompt(ctx, safety.Request{Command: showArgv(h.Command), Verdict: shell.Verdict{Level: shell.Dangerous,
		Description: "config.yaml's " + string(h.Event) + " hook has not run here before. " + hookPower(h.Event) + " Allow it from now on?"}})
	return err == nil && a != safety.Deny, err
}
