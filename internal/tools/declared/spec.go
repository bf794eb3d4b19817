package declared

import (
	"time"

	"github.com/hermes-go/hermes/internal/tools/declared/sqlexec"
)

// File is one tools file: $HERMES_HOME/tools/*.yaml, or config.yaml, whose
// top-level tools: and connections: keys have the same shape. Other
// top-level keys are ignored (config.yaml has many).
type File struct {
	Tools       []Spec                        `yaml:"tools"`
	Connections map[string]sqlexec.Connection `yaml:"connections,omitempty"`
}

// Spec is one declared tool. Exactly one of HTTP, Command and SQL is set.
// The key names are seed 003's and must not change: people's files depend
// on them.
type Spec struct {
	Name string `yaml:"name"`
	// Description tells the model what the tool does and when not to use
	// it.
	Description string `yaml:"description"`
	// Parameters is the JSON Schema of the arguments object, written in
	// YAML; it is converted to JSON when the tool is registered.
	Parameters map[string]any `yaml:"parameters,omitempty"`
	// Toolset groups the tool; "declared" when empty.
	Toolset string `yaml:"toolset,omitempty"`
	// Timeout bounds one attempt ("10s"); zero means the dispatcher's
	// default.
	Timeout time.Duration `yaml:"timeout,omitempty"`
	Retry   Retry         `yaml:"retry,omitempty"`
	// Idempotent tools may be retried after any failure, not only after
	// failures that surely did not take effect.
	Idempotent bool `yaml:"idempotent,omitempty"`
	// Approval is "never" (the default) or "always": a person approves
	// every call, as for a dangerous shell command.
	Approval string `yaml:"approval,omitempty"`
	// MaxOutput caps the result in characters; zero means the
	// dispatcher's default.
	MaxOutput int `yaml:"max_output,omitempty"`

	HTTP    *HTTP          `yaml:"http,omitempty"`
	Command *Command       `yaml:"command,omitempty"`
	SQL     *sqlexec.Query `yaml:"sql,omitempty"`
}

// Retry is a declared tool's retry policy: attempts in all, and the waits
// between them ("backoff: [3s, 10s]"; the last wait repeats).
type Retry struct {
	Attempts int             `yaml:"attempts,omitempty"`
	Backoff  []time.Duration `yaml:"backoff,omitempty"`
}

// HTTP is the http: block: one request built from templates.
type HTTP struct {
	// Method is GET when empty.
	Method string `yaml:"method,omitempty"`
	// URL is a template; ${ENV} parts are resolved from the environment
	// at call time, {{.arg}} parts from the arguments (path-escaped).
	URL string `yaml:"url"`
	// Headers are templates too; values usually carry ${ENV} secrets.
	Headers map[string]string `yaml:"headers,omitempty"`
	// Query maps parameter names to templates; a template that renders
	// empty leaves its parameter out.
	Query map[string]string `yaml:"query,omitempty"`
	// Body is either a mapping, sent as a JSON object whose string values
	// are templates (empty ones left out), or a string template sent as
	// is with ContentType.
	Body any `yaml:"body,omitempty"`
	// ContentType of a string Body; application/json when empty.
	ContentType string `yaml:"content_type,omitempty"`
	// Expect lists the status codes that mean success; any 2xx when
	// empty.
	Expect []int `yaml:"expect,omitempty"`
	// Select picks part of a JSON response: ".items", ".data[0].name",
	// ".items[].id".
	Select string `yaml:"select,omitempty"`
	// MaxBytes caps the response body read; zero means 1 MiB.
	MaxBytes int `yaml:"max_bytes,omitempty"`
}

// Command is the command: block: an existing script or program run with
// arguments filled from the tool's arguments.
type Command struct {
	// Argv is the program and its arguments, each a template. Without
	// Shell no shell is involved, so an argument can never become two.
	Argv []string `yaml:"argv"`
	// Shell runs Argv joined by spaces with sh -c; every value a
	// template inserts is shell-quoted first.
	Shell bool `yaml:"shell,omitempty"`
	// Dir is the working directory (relative to the tools file's
	// directory); the session's working directory when empty.
	Dir string `yaml:"dir,omitempty"`
	// Env adds variables (templates, ${ENV} allowed) to a minimal
	// environment.
	Env map[string]string `yaml:"env,omitempty"`
	// Stdin is a template written to the program's standard input.
	Stdin string `yaml:"stdin,omitempty"`
	// Output is "text" (the default) or "json": stdout parsed as JSON.
	Output string `yaml:"output,omitempty"`
}
