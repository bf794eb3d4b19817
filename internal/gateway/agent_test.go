package gateway

import (
	"context"
	"testing"
)

// /agent answers through the hook, and the agent the chat is bound to
// reaches its turns.
func TestRunnerAgent(t *testing.T) {
	agents := map[string]string{}
	h := startRunner(t, func(o *Options) {
		o.Agent = func(_ context.Context, key, name string) string {
			if name == "" {
				return "agent: " + agents[key]
			}
			agents[key] = name
			return "bound to " + name
		}
		o.ChatAgent = func(_ context.Context, key string) string { return agents[key] }
	})
	h.say(dm, owner, "/agent analyst", true)
	h.p.waitUntil(t, "the binding", func(sent, _ []string) bool { return containsAny(sent, "bound to analyst") })
	h.say(dm, owner, "/agent", true)
	h.p.waitUntil(t, "the agent", func(sent, _ []string) bool { return containsAny(sent, "agent: analyst") })
	h.say(dm, owner, "hello", true)
	h.p.waitUntil(t, "the answer", func(sent, _ []string) bool { return containsAny(sent, "echo: hello") })
	h.stop()
	h.eng.mu.Lock()
	defer h.eng.mu.Unlock()
	if len(h.eng.inputs) != 1 || h.eng.inputs[0].Agent != "analyst" {
		t.Errorf("turns %+v; want one as the analyst", h.eng.inputs)
	}
}
