package app

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"
)

// chatAgent answers /agent [name] in the chat whose session key is key.
// Binding the chat to another agent starts a new session, since a
// session keeps the agent it began with.
func (a *App) chatAgent(ctx context.Context, key, name string) string {
	names := a.Engine.Agents()
	choices := "No role agents are configured (agents: in config.yaml)."
	if len(names) > 0 {
		choices = "The agents are " + strings.Join(names, ", ") + "."
	}
	current, err := a.Gateway.ChatAgent(ctx, key)
	if err != nil {
		return "agent: " + err.Error()
	}
	switch {
	case name == "" && current == "":
		return "This chat talks to hermes itself, no role agent. " + choices + " `/agent NAME` binds it to one."
	case name == "":
		return fmt.Sprintf("This chat talks to the agent %s. `/agent default` goes back to hermes itself. %s", current, choices)
	case name == "default":
		name = ""
	case !slices.Contains(names, name):
		// %.64q cuts at a character, never inside one.
		return fmt.Sprintf("%.64q is not an agent. %s", name, choices)
	}
	if name == current {
		return "This chat is bound to that already."
	}
	if err := a.Gateway.SetChatAgent(ctx, key, name); err != nil {
		return "agent: " + err.Error()
	}
	if err := a.Gateway.Forget(ctx, key); err != nil {
		return "agent: the chat is bound, but its session was not reset: " + err.Error()
	}
	if name == "" {
		return "This chat talks to hermes itself again; a new session starts with your next message."
	}
	return fmt.Sprintf("This chat now talks to the agent %s; a new session starts with your next message.", name)
}

// chatAgentOf is the agent chat key's new sessions run as.
func (a *App) chatAgentOf(ctx context.Context, key string) string {
	name, err := a.Gateway.ChatAgent(ctx, key)
	if err != nil {
		a.Log.Warn("gateway: the chat's agent could not be read; hermes itself answers", slog.String("error", err.Error()))
	}
	return name
}
