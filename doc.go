// Package hermes embeds the hermes agent runtime in a Go program: the
// same engine the hermes command, its chat gateway and its HTTP API run,
// with the program's own Go functions as tools.
//
// # Opening hermes
//
// Open with a home directory uses what the hermes command uses:
// config.yaml and .env for the model and settings, state.db for
// sessions, the skills and memory files.
//
//	agent, err := hermes.Open(ctx, hermes.Options{Home: "/srv/bot/hermes"})
//
// With InMemory, hermes keeps no files at all. The configuration is
// given as YAML in config.yaml's format, and only Env is its environment.
// Sessions, scheduled jobs and long-term facts live in memory until
// Close. MEMORY.md, USER.md, skills and checkpoints are files, so they
// are off.
//
//	agent, err := hermes.Open(ctx, hermes.Options{
//		InMemory: true,
//		Config:   []byte("model: {provider: openrouter, default: anthropic/claude-sonnet-4}\n"),
//		Env:      map[string]string{"OPENROUTER_API_KEY": key},
//	})
//
// Everything the hermes README says of config.yaml holds for Config:
// providers and fallbacks, toolsets, approvals, compression, limits.
//
// # Turns
//
// Ask sends one message in a new session. Run sends a Turn, which can
// continue a session and choose toolsets or a model, and calls a
// function with each Event as it happens. Stream gives the same events
// as an iterator. A Reply's Session continues the conversation.
//
// # Tools of the program
//
// NewTool makes a tool of a Go function. The JSON Schema of its
// parameters is derived from the function's argument struct: json tags
// name the fields, omitempty makes a field optional, and a jsonschema
// tag describes it to the model. A program's tool runs the way hermes's
// own tools run. Its arguments are validated and coerced before the
// function sees them, and a call that does not fit is sent back to the
// model with what is wrong. Each call has a timeout. Secrets in what the
// tool returns are redacted before the model reads them. Made
// WithApproval, the tool runs only once an approval allows it.
//
// # Approvals
//
// An ApproveFunc decides what hermes would ask a person about: dangerous
// shell commands (approvals.mode decides which, as for the hermes
// command), writes outside the working directory, and calls of tools made
// WithApproval. With no ApproveFunc, nobody can be asked, and each of
// these is denied. Hardline commands (such as deleting the filesystem's
// root) and approvals.deny patterns are refused whatever the function
// answers.
//
// # Sessions
//
// Sessions, Session and Messages read the stored conversations of every
// front (terminal, chat platforms, the HTTP API, programs). Search finds
// messages by their words, in any language.
//
// # Compatibility
//
// This package is the public API of the module, versioned semantically:
// what go doc shows here stays compatible within a major version.
// Everything else is under internal/ and may change in any release.
package hermes
