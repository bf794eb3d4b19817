package engine

import "github.com/hermes-go/hermes/internal/llm"

// Models resolves the model a turn calls. The engine asks once per turn,
// so an implementation caches what it builds.
type Models interface {
	// Model returns the model called name on the configured provider, or
	// the main model when name is empty. The error says why there is no
	// such model (none configured, an unknown provider) in words a user
	// can act on.
	Model(name string) (Model, error)
}

// Model is a provider and the model name sent to it.
type Model struct {
	Provider llm.Provider
	Name     string
	// MaxTokens caps a reply; zero leaves it to the provider.
	MaxTokens int
	// ReasoningEffort is sent to the vendors that take one ("low",
	// "high"…); empty leaves it to the model.
	ReasoningEffort string
}

// background reports whether turns from source are work nobody is
// watching (scheduled jobs, delegated children), which get no background
// review and no long-term fact extraction: nothing a person said is in
// them.
func background(source string) bool {
	return source == "cron" || source == childSource
}
