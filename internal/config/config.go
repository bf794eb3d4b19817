// Package config is hermes's configuration: the typed settings, their
// defaults, and the layers that set them. hermes reads $HERMES_HOME
// (default ~/.hermes, or $HERMES_HOME/profiles/NAME for a profile), which
// holds config.yaml for settings and .env for secrets. Precedence, highest
// first: command-line flags, the process environment, .env, config.yaml,
// defaults.
//
// The package keeps no global state: Load returns a *Loaded that carries the
// Config, the warnings found while reading it, the paths it used and the
// merged environment for later secret lookups. Every problem is reported in
// one style, naming where the value came from, the key, the value and what
// is accepted:
//
//	config.yaml:7: model.api_mode: "chat" is not accepted; use one of chat_completions, responses, anthropic_messages
//
// Adding a setting is adding one struct field with a yaml tag: the loader,
// the HERMES_* environment overrides, Get, Set and Show find it by
// reflection. Keys nobody knows yet only produce warnings, so a newer
// config.yaml still loads in an older binary.
package config

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// Config is the whole of hermes's configuration, one field per top-level key
// of config.yaml. Integer and duration fields must be zero or more unless
// their tag says `check:"signed"`; a `check:"url"` field must be an http(s)
// URL; other checks live in the field's type (see APIMode).
type Config struct {
	// Model chooses the main model and how to reach it.
	Model Model `yaml:"model"`
	// Providers defines named OpenAI-compatible endpoints, or overrides the
	// built-in ones (see BuiltinProviders) by using their name.
	Providers map[string]Provider `yaml:"providers"`
	// FallbackProviders are tried in order when the main model keeps
	// failing.
	FallbackProviders []Fallback `yaml:"fallback_providers"`
	// Agent bounds the loop and its model calls.
	Agent Agent `yaml:"agent"`
	// Timezone is the IANA zone used for dates shown to the model and for
	// schedules; empty means the machine's local zone.
	Timezone string `yaml:"timezone" check:"timezone"`
	// Toolsets lists the toolsets offered to the model; empty or "all"
	// means every toolset whose requirements are met.
	Toolsets []string `yaml:"toolsets"`
	// Approvals says how dangerous shell commands are approved.
	Approvals Approvals `yaml:"approvals"`
	// CommandAllowlist holds the approval rules answered "always": commands
	// they match run without asking.
	CommandAllowlist []string `yaml:"command_allowlist"`
	// Terminal configures the terminal tool.
	Terminal Terminal `yaml:"terminal"`
	// Web configures web_search and web_extract.
	Web Web `yaml:"web"`
	// Security configures the guards of tools that reach the network.
	Security Security `yaml:"security"`
	// Browser configures the browser tools.
	Browser Browser `yaml:"browser"`
	// Auxiliary names models used for side jobs instead of the main one.
	Auxiliary Auxiliary `yaml:"auxiliary"`
	// Tools declares tools in config.yaml, in the shape of a
	// $HERMES_HOME/tools/*.yaml file; the declared-tools loader reads it.
	// ${VAR} in it is resolved when a tool runs, not here, so secrets stay
	// out of the loaded configuration.
	Tools yaml.Node `yaml:"tools"`
	// Connections names the databases declared sql tools use (see Tools).
	Connections yaml.Node `yaml:"connections"`
	// MCPServers are the MCP servers whose tools hermes offers, by name.
	MCPServers map[string]MCPServer `yaml:"mcp_servers"`
	// MCPServe configures "hermes mcp serve".
	MCPServe MCPServe `yaml:"mcp_serve"`
	// Pricing overrides or adds model prices (USD per million tokens) for
	// the cost shown in /usage and hermes sessions stats; keys match model
	// names as the built-in table does ("gpt-4o", "claude-sonnet-4").
	Pricing map[string]ModelPrice `yaml:"pricing"`
	// Schedules are the jobs hermes runs on its own, by name, in seed
	// 003's shape (cron, session_type, prompt, ...); jobs created at run
	// time by the cronjob tool are kept in state.db beside them.
	Schedules map[string]Schedule `yaml:"schedules"`
	// Delivery configures where job results can be sent.
	Delivery Delivery `yaml:"delivery"`
	// Scheduler tunes how hermes serve runs the jobs.
	Scheduler Scheduler `yaml:"scheduler"`
	// Compression keeps long conversations inside the context window.
	Compression Compression `yaml:"compression"`
	// Checkpoints keeps what files held before a turn changed them, for
	// /rollback and hermes checkpoints restore (Hermes Agent's keys).
	Checkpoints Checkpoints `yaml:"checkpoints"`
	// Memory configures MEMORY.md, USER.md and long-term memory.
	Memory Memory `yaml:"memory"`
	// Skills configures the skills the agent reads and writes.
	Skills Skills `yaml:"skills"`
	// Gateway configures the chat platforms hermes serve answers on.
	Gateway Gateway `yaml:"gateway"`
	// API configures the OpenAI-compatible HTTP server of hermes serve.
	API API `yaml:"api"`
	// Delegation limits the child agents delegate_task starts.
	Delegation Delegation `yaml:"delegation"`
	// Agents are the role agents turns can run as, by name (see RoleAgent).
	Agents map[string]RoleAgent `yaml:"agents"`
	// Teams are the teams hermes team run and a job's team: run, by name:
	// a coordinator agent and the role agents it posts tasks to (see
	// Team). A team can also be kept in a file of its own (LoadTeamFile).
	Teams map[string]Team `yaml:"teams"`
	// Hooks are the commands run at events of hermes's life, by event
	// name (see Hook).
	Hooks map[string][]Hook `yaml:"hooks"`
	// Logging configures the logs' level and the log file's rotation.
	Logging Logging `yaml:"logging"`
	// Audit configures how long the audit log keeps tool calls.
	Audit Audit `yaml:"audit"`
	// Tenants are the groups users belong to, by name (see Tenant).
	Tenants map[string]Tenant `yaml:"tenants"`
	// Users are the people who talk to hermes, by id (see User): once
	// any is configured, the gateway and the API serve only the users
	// they recognize, each in their own sessions and within their limits.
	Users map[string]User `yaml:"users"`
	// KB configures the knowledge base.
	KB KB `yaml:"kb"`
	// Observability configures metrics and traces.
	Observability Observability `yaml:"observability"`
	// Storage says where state lives: state.db (the default) or
	// PostgreSQL.
	Storage Storage `yaml:"storage"`
	// Curator tidies the skills the agent wrote (see Curator).
	Curator Curator `yaml:"curator"`
}

// ModelPrice is one entry of pricing, in USD per million tokens. Cache
// prices left zero are billed at the input price.
type ModelPrice struct {
	Input      float64 `yaml:"input"`
	Output     float64 `yaml:"output"`
	CacheRead  float64 `yaml:"cache_read"`
	CacheWrite float64 `yaml:"cache_write"`
}

// Schedule is one entry of schedules.
type Schedule struct {
	// Cron is the schedule: a 5- or 6-field cron expression, a
	// descriptor (@daily, @every 2h, every 30m) or a one-shot time
	// (2026-12-24T09:00, +30m, in 2h).
	Cron string `yaml:"cron"`
	// Timezone is the IANA zone of the schedule; empty means timezone.
	Timezone string `yaml:"timezone" check:"timezone"`
	// SessionType is new (a fresh session per run, the default) or
	// continue (the job's own session, kept across runs).
	SessionType SessionType `yaml:"session_type"`
	// Prompt is the first user message of a run.
	Prompt string `yaml:"prompt"`
	// Skills are loaded before the prompt; Toolsets and Model replace
	// the configured ones for the job.
	Skills   []string `yaml:"skills"`
	Toolsets []string `yaml:"toolsets"`
	Model    string   `yaml:"model"`
	// Agent is the role agent (agents:) the job runs as.
	Agent string `yaml:"agent"`
	// Team is the team (teams:) the job runs; its prompt is the run's
	// goal, and without one the team's goal is.
	Team string `yaml:"team"`
	// Deliver is a target or an ordered fallback chain (wecom:KEY,
	// feishu:URL, dingtalk:URL, slack:URL, telegram:CHAT_ID,
	// email:ADDRESS, webhook:URL, local).
	Deliver []string `yaml:"deliver"`
	// Script runs before the agent; its output goes into the prompt.
	// With NoAgent only the script runs and its output is delivered.
	Script  string `yaml:"script"`
	NoAgent bool   `yaml:"no_agent"`
	// CatchUp is what happens to fires missed while hermes was down:
	// once (the default), skip or all.
	CatchUp CatchUp `yaml:"catch_up"`
	// Memory is extract to have each run's lasting facts extracted into
	// long-term memory after it, or off (the default): a job's prompt is
	// the same every time, and its output is rarely about the user.
	Memory JobMemory `yaml:"memory"`
	// Enabled is true unless set to false.
	Enabled Flag `yaml:"enabled"`
}

// Scheduler is the scheduler section.
type Scheduler struct {
	// InactivityTimeout stops a job run that has shown no progress (no
	// model output, no tool call) for this long, so a hung model or tool
	// cannot hold the job forever. A run that keeps working is not cut.
	InactivityTimeout time.Duration `yaml:"inactivity_timeout"`
	// ShutdownTimeout is how long running jobs may go on after SIGTERM
	// before they are cancelled; their sessions are kept consistent.
	ShutdownTimeout time.Duration `yaml:"shutdown_timeout"`
	// MaxConcurrent bounds the job runs in progress at once.
	MaxConcurrent int `yaml:"max_concurrent"`
}

// Delivery is the delivery section: the accounts delivery targets use.
type Delivery struct {
	// TelegramBotToken sends telegram: targets (usually from .env).
	TelegramBotToken Secret `yaml:"telegram_bot_token"`
	// SMTP sends email: targets.
	SMTP SMTP `yaml:"smtp"`
	// RetryBackoff lists the waits between tries of one target after a
	// transient failure (default 1s, 4s, 15s: four tries); its length is
	// the number of retries. A target that still fails hands the message
	// to the next one in the job's deliver: chain.
	RetryBackoff []time.Duration `yaml:"retry_backoff"`
}

// SMTP is delivery.smtp.
type SMTP struct {
	Host     string `yaml:"host"`
	Port     int    `yaml:"port"`
	Username string `yaml:"username"`
	Password Secret `yaml:"password"`
	From     string `yaml:"from"`
}

// Compression is the compression section (seed 000's compressor).
type Compression struct {
	// Enabled is true unless set to false.
	Enabled Flag `yaml:"enabled"`
	// Threshold is the share of the context window (less the reply
	// budget) past which a conversation is compressed before the next
	// model call.
	Threshold float64 `yaml:"threshold"`
	// TargetRatio is the share of the threshold kept verbatim as the
	// recent tail.
	TargetRatio float64 `yaml:"target_ratio"`
	// ProtectFirstN messages are kept at the start, before the first
	// compression.
	ProtectFirstN int `yaml:"protect_first_n"`
	// ProtectLastN is the fewest recent messages kept uncompressed,
	// however many tokens they hold (3 when unset; Hermes Agent writes 20).
	ProtectLastN int `yaml:"protect_last_n"`
}

// Memory is the memory section.
type Memory struct {
	// MemoryCharLimit and UserCharLimit cap MEMORY.md (the agent's notes)
	// and USER.md (the user's profile), so the snapshot in every system
	// prompt stays small.
	MemoryCharLimit int `yaml:"memory_char_limit"`
	UserCharLimit   int `yaml:"user_char_limit"`
	// MemoryEnabled and UserProfileEnabled turn MEMORY.md and USER.md on
	// (the default) or off: off, the file is left out of the prompt and
	// the memory tool does not write it.
	MemoryEnabled      Flag `yaml:"memory_enabled"`
	UserProfileEnabled Flag `yaml:"user_profile_enabled"`
	// NudgeInterval is how many user turns pass between background
	// reviews of what is worth remembering.
	NudgeInterval int `yaml:"nudge_interval"`
	// LongTerm is long-term memory: facts extracted from finished
	// sessions and recalled at the first message of a later one.
	// `long_term: false` turns it off.
	LongTerm LongTerm `yaml:"long_term"`
	// ExtractAfter is how long a chat stays idle before its lasting facts
	// are extracted into long-term memory (they are also extracted on /new
	// and when the chat ends); zero waits for those.
	ExtractAfter time.Duration `yaml:"extract_after"`
}

// LongTerm is memory.long_term. Written as a bool it is Enabled alone.
type LongTerm struct {
	// Enabled turns long-term memory on (the default) or off.
	Enabled Flag `yaml:"enabled"`
	// MaxExtractionsPerDay caps the extractions of all processes sharing
	// the state in one day (UTC), each one model call, so a busy gateway
	// cannot multiply the model bill; beyond it sessions wait for the
	// next day's idle or end. 0 means no cap.
	MaxExtractionsPerDay int `yaml:"max_extractions_per_day"`
	// ExpireAfter drops a fact neither recalled nor confirmed for this
	// long (180d, say); 0 keeps facts until they are forgotten by hand.
	ExpireAfter time.Duration `yaml:"expire_after"`
	// Recall is what recall goes by: hybrid (the default: words, and with
	// kb.embedding the facts' vectors too), words, or vectors (words when
	// no embedding model is configured).
	Recall RecallMode `yaml:"recall"`
	// MinMargin is how far a fact's vector must beat unrelated text
	// (cosine, 0 to 1) for recall to bring it by meaning alone; 0 means
	// the default, 0.35. go run ./bench/recall measures a model's margins.
	MinMargin float64 `yaml:"min_margin"`
}

// ReasoningEffort is agent.reasoning_effort.
type ReasoningEffort string

// UnmarshalText accepts Hermes Agent's reasoning efforts, or nothing.
func (e *ReasoningEffort) UnmarshalText(text []byte) error {
	return oneOf(e, text, true, "none", "minimal", "low", "medium", "high", "xhigh")
}

// Checkpoints is the checkpoints section: off unless enabled, as in
// Hermes Agent; zero sizes and counts take its defaults.
type Checkpoints struct {
	Enabled Flag `yaml:"enabled"`
	// MaxSnapshots is how many turns are kept (20).
	MaxSnapshots int `yaml:"max_snapshots"`
	// MaxTotalSizeMB bounds $HERMES_HOME/checkpoints (500).
	MaxTotalSizeMB int `yaml:"max_total_size_mb"`
	// MaxFileSizeMB skips larger files (10).
	MaxFileSizeMB int `yaml:"max_file_size_mb"`
	// RetentionDays drops older turns (7).
	RetentionDays int `yaml:"retention_days"`
}

// RecallMode is memory.long_term.recall.
type RecallMode string

// UnmarshalText accepts hybrid, words or vectors, or nothing (hybrid).
func (m *RecallMode) UnmarshalText(text []byte) error {
	return oneOf(m, text, true, "hybrid", "words", "vectors")
}

func (*LongTerm) shorthandKey() string { return "enabled" }

// On reports whether long-term memory is on.
func (l LongTerm) On() bool { return l.Enabled.Or(true) }

// Skills is the skills section.
type Skills struct {
	// ExternalDirs are further skill directories, read but never written.
	ExternalDirs []string `yaml:"external_dirs"`
	// IndexFullLimit is how many skills the system prompt lists with
	// their descriptions; beyond it only names are listed and the
	// skills_search tool finds the right one.
	IndexFullLimit int `yaml:"index_full_limit"`
	// CreationNudgeInterval is how many tool iterations pass between
	// background reviews of whether the work is worth a skill.
	CreationNudgeInterval int `yaml:"creation_nudge_interval"`
}

// MCPServer is one entry of mcp_servers, in the shape Hermes and Claude
// Desktop use: command/args/env for a stdio server, url/headers for a
// streamable HTTP one.
type MCPServer struct {
	Command string            `yaml:"command"`
	Args    []string          `yaml:"args"`
	Env     map[string]string `yaml:"env"`
	URL     string            `yaml:"url" check:"url"`
	Headers map[string]string `yaml:"headers"`
	// Timeout bounds one tool call; ConnectTimeout the connection and
	// listing of tools at start.
	Timeout        time.Duration `yaml:"timeout"`
	ConnectTimeout time.Duration `yaml:"connect_timeout"`
	Tools          MCPToolFilter `yaml:"tools"`
	// SupportsParallelToolCalls lets several calls of this server's tools
	// run at once.
	SupportsParallelToolCalls bool `yaml:"supports_parallel_tool_calls"`
	// Enabled is true unless set to false.
	Enabled Flag `yaml:"enabled"`
}

// MCPToolFilter picks a server's tools by name: Include (when not empty)
// keeps only those, Exclude drops some.
type MCPToolFilter struct {
	Include []string `yaml:"include"`
	Exclude []string `yaml:"exclude"`
}

// MCPServe is the mcp_serve section.
type MCPServe struct {
	// Toolsets are the toolsets "hermes mcp serve" exposes; empty means
	// declared tools, file and web tools. terminal is exposed only when
	// named here.
	Toolsets []string `yaml:"toolsets"`
}

// Auxiliary is the auxiliary section.
type Auxiliary struct {
	// Vision is the model vision_analyze asks, for a main model that
	// cannot see images; empty uses the main model.
	Vision Fallback `yaml:"vision"`
	// Compression is the model that writes the summary of compressed
	// turns; empty uses the main model.
	Compression Fallback `yaml:"compression"`
	// Memory is the model that picks out the lasting facts of a finished
	// session for long-term memory; a small, cheap model does; empty uses
	// the main model.
	Memory Fallback `yaml:"memory"`
	// Curator is the model the skills curator asks to merge duplicate
	// skills; empty uses the main model.
	Curator Fallback `yaml:"curator"`
}

// Browser is the browser section.
type Browser struct {
	// Executable is Chromium's path; empty finds chromium or chrome in PATH.
	Executable string `yaml:"executable"`
	// InactivityTimeout closes the browser after this long without a call.
	InactivityTimeout time.Duration `yaml:"inactivity_timeout"`
}

// Web is the web section.
type Web struct {
	// SearchBackend is searxng, brave or tavily; empty leaves web_search
	// unavailable. Brave and Tavily read BRAVE_API_KEY and TAVILY_API_KEY.
	SearchBackend SearchBackend `yaml:"search_backend"`
	// SearxngURL is the root of a SearXNG instance with the JSON format on.
	SearxngURL string `yaml:"searxng_url" check:"url"`
	// ExtractCharLimit caps the text web_extract returns per page.
	ExtractCharLimit int `yaml:"extract_char_limit"`
}

// Security is the security section.
type Security struct {
	// AllowPrivateURLs lets URL-taking tools reach loopback, private and
	// link-local addresses (a local service); off by default, so a page or
	// a model cannot make hermes probe the network it runs in.
	AllowPrivateURLs bool `yaml:"allow_private_urls"`
	// WebsiteBlocklist is the hosts tools never fetch.
	WebsiteBlocklist Blocklist `yaml:"website_blocklist"`
}

// Blocklist is security.website_blocklist: a list of host globs
// (*.example.com), or Hermes's mapping of them with a switch and files of
// more.
type Blocklist struct {
	// Enabled turns the list on; a list written alone is on.
	Enabled Flag `yaml:"enabled"`
	// Domains are host globs.
	Domains []string `yaml:"domains"`
	// SharedFiles are files of host globs, one a line ("#" starts a
	// comment), read when hermes starts.
	SharedFiles []string `yaml:"shared_files"`
}

func (*Blocklist) shorthandKey() string { return "domains" }

// Hosts are the globs of Domains and SharedFiles when the list is on: on
// when Enabled says so, or, unset, when it names any domain or file.
func (b Blocklist) Hosts(readFile func(string) ([]byte, error)) ([]string, error) {
	if !b.Enabled.Or(len(b.Domains) > 0 || len(b.SharedFiles) > 0) {
		return nil, nil
	}
	hosts := slices.Clone(b.Domains)
	for _, f := range b.SharedFiles {
		data, err := readFile(f)
		if err != nil {
			return nil, fmt.Errorf("security.website_blocklist.shared_files: %w", err)
		}
		for line := range strings.Lines(string(data)) {
			if line, _, _ = strings.Cut(line, "#"); strings.TrimSpace(line) != "" {
				hosts = append(hosts, strings.TrimSpace(line))
			}
		}
	}
	return hosts, nil
}

// Approvals is the approvals section.
type Approvals struct {
	// Mode is manual (ask a person), smart (ask the model first, then a
	// person) or off (run dangerous commands without asking).
	Mode ApprovalMode `yaml:"mode"`
	// Timeout is how long hermes waits for an answer before denying.
	Timeout time.Duration `yaml:"timeout"`
	// Deny lists command globs that never run, even with --yolo.
	Deny []string `yaml:"deny"`
	// NonInteractive is what happens to a dangerous command when nobody
	// can be asked (no terminal, -q without --yolo, cron): deny or allow.
	NonInteractive NonInteractive `yaml:"non_interactive"`
	// CronMode is what happens to a dangerous command in a scheduled job,
	// where nobody can be asked: deny (the default) or allow.
	CronMode NonInteractive `yaml:"cron_mode"`
}

// Terminal is the terminal section.
type Terminal struct {
	// Cwd is where a new session's commands start (Hermes Agent's
	// terminal.cwd): "." or empty is the directory hermes was started in.
	Cwd string `yaml:"cwd"`
	// Timeout is a command's limit when the model does not give one.
	Timeout time.Duration `yaml:"timeout"`
	// MaxTimeout is the most the model may ask for.
	MaxTimeout time.Duration `yaml:"max_timeout"`
	// EnvPassthrough names variables commands keep even though their
	// names look secret (KEY, TOKEN, ...), for tools that need them.
	EnvPassthrough []string `yaml:"env_passthrough"`
	// PersistentShell runs each session's commands in one bash of its
	// own, so variables, exports and functions carry over between calls
	// (default true); false starts a bash per command, and only the
	// working directory carries over. The ssh backend keeps its own way.
	PersistentShell bool `yaml:"persistent_shell"`
	// Backend is where commands run: local (default) or ssh.
	Backend TerminalBackend `yaml:"backend"`
	// SSH is the remote host for the ssh backend.
	SSH SSH `yaml:"ssh"`
}

// SSH is terminal.ssh: one persistent connection to a remote host.
type SSH struct {
	Host string `yaml:"host"`
	Port int    `yaml:"port"`
	User string `yaml:"user"`
	// KeyFile is the private key; ~ is the user's home.
	KeyFile string `yaml:"key_file"`
	// KnownHostsFile must list the host's key (default ~/.ssh/known_hosts).
	KnownHostsFile string `yaml:"known_hosts_file"`
	// InsecureIgnoreHostKey skips the host-key check; only for throwaway
	// machines, since anyone on the path could then read every command.
	InsecureIgnoreHostKey bool `yaml:"insecure_ignore_host_key"`
	// Dir is the remote directory sessions start in (absolute); empty is
	// the login directory.
	Dir string `yaml:"dir"`
	// ConnectTimeout bounds dialing and the SSH handshake.
	ConnectTimeout time.Duration `yaml:"connect_timeout"`
}

// Model is the model section: which provider and model the agent talks to.
// Its connection fields (base_url, api_mode, api_key, api_key_env) override
// those of the provider it names, so a one-provider setup needs no
// providers section at all.
type Model struct {
	// Provider is a built-in provider, one defined under providers, or
	// "auto" to pick the first of anthropic, openai and openrouter whose
	// key is present.
	Provider string `yaml:"provider"`
	// Default is the model name sent to the provider.
	Default string `yaml:"default"`
	// BaseURL replaces the provider's API root.
	BaseURL string `yaml:"base_url" check:"url"`
	// APIMode replaces the provider's wire protocol.
	APIMode APIMode `yaml:"api_mode"`
	// APIKey is the key written into config.yaml; .env is the usual place.
	APIKey Secret `yaml:"api_key"`
	// APIKeyEnv names the variable holding the key, replacing the
	// provider's usual ones.
	APIKeyEnv string `yaml:"api_key_env" check:"envname"`
	// ContextLength is the model's context window in tokens; zero means
	// look it up in the model catalog.
	ContextLength int `yaml:"context_length"`
	// MaxTokens caps each response; zero means the provider's default.
	MaxTokens int `yaml:"max_tokens"`
	// CacheTTL is the lifetime of the prompt-cache breakpoints on
	// Anthropic-protocol endpoints: 5m (default) or 1h.
	CacheTTL CacheTTL `yaml:"cache_ttl"`
}

// Provider is one entry under providers: a custom endpoint, or settings
// that replace those of the built-in provider with the same name.
type Provider struct {
	BaseURL       string            `yaml:"base_url" check:"url"`
	APIMode       APIMode           `yaml:"api_mode"`
	APIKey        Secret            `yaml:"api_key"`
	APIKeyEnv     string            `yaml:"api_key_env" check:"envname"`
	Model         string            `yaml:"model"`
	ContextLength int               `yaml:"context_length"`
	MaxTokens     int               `yaml:"max_tokens"`
	Headers       map[string]string `yaml:"headers"`
	// KeyEnv is Hermes Agent's name for APIKeyEnv, read into it when
	// APIKeyEnv is not set.
	KeyEnv string `yaml:"key_env" check:"envname"`
}

// Fallback is one entry of fallback_providers: a provider and the model to
// ask there.
type Fallback struct {
	Provider string `yaml:"provider"`
	Model    string `yaml:"model"`
}

// Agent bounds the agent loop and the retries of its model calls. Durations
// are written as Go durations ("90s", "2m") or as plain seconds.
type Agent struct {
	// APIMaxRetries is how many times a failed model call is retried.
	APIMaxRetries int `yaml:"api_max_retries"`
	// APIRetryBaseDelay is the first backoff; it doubles on each retry.
	APIRetryBaseDelay time.Duration `yaml:"api_retry_base_delay"`
	// APIRetryMaxDelay caps the backoff.
	APIRetryMaxDelay time.Duration `yaml:"api_retry_max_delay"`
	// FallbackCooldown is how long a provider that failed over is skipped.
	FallbackCooldown time.Duration `yaml:"fallback_cooldown"`
	// ConnectTimeout bounds dialing and the TLS handshake.
	ConnectTimeout time.Duration `yaml:"connect_timeout"`
	// FirstByteTimeout bounds the wait for the first byte of a response.
	FirstByteTimeout time.Duration `yaml:"first_byte_timeout"`
	// IdleTimeout bounds the silence inside a streamed response.
	IdleTimeout time.Duration `yaml:"idle_timeout"`
	// MaxTurns bounds the iterations of one turn of the loop.
	MaxTurns int `yaml:"max_turns"`
	// ReasoningEffort is asked of models that take one: none, minimal,
	// low, medium, high or xhigh (Hermes Agent's names); empty leaves it
	// to the model.
	ReasoningEffort ReasoningEffort `yaml:"reasoning_effort"`
	// DisabledToolsets are never offered, whatever toolsets enables.
	DisabledToolsets []string `yaml:"disabled_toolsets"`
	// ToolTimeouts replaces the limit of one attempt of the named tools
	// (the default is 30 s, or the tool's own).
	ToolTimeouts map[string]time.Duration `yaml:"tool_timeouts"`
}

// Defaults returns the configuration used where nothing else says
// otherwise. It is a function, not a variable, so no caller can change the
// defaults of another.
func Defaults() Config {
	return Config{
		Model: Model{Provider: "auto"},
		Agent: Agent{
			APIMaxRetries:     3,
			APIRetryBaseDelay: 2 * time.Second,
			APIRetryMaxDelay:  60 * time.Second,
			FallbackCooldown:  5 * time.Minute,
			ConnectTimeout:    15 * time.Second,
			FirstByteTimeout:  300 * time.Second,
			IdleTimeout:       120 * time.Second,
			MaxTurns:          90,
		},
		Approvals:   Approvals{Mode: ApprovalManual, Timeout: 60 * time.Second, NonInteractive: NonInteractiveDeny, CronMode: NonInteractiveDeny},
		Terminal:    Terminal{Timeout: 180 * time.Second, MaxTimeout: 600 * time.Second, PersistentShell: true},
		Web:         Web{ExtractCharLimit: 15000},
		Browser:     Browser{InactivityTimeout: 5 * time.Minute},
		Compression: Compression{Threshold: 0.50, TargetRatio: 0.20, ProtectFirstN: 3},
		Memory:      Memory{MemoryCharLimit: 2200, UserCharLimit: 1375, NudgeInterval: 10, ExtractAfter: 30 * time.Minute, LongTerm: LongTerm{MaxExtractionsPerDay: 200}},
		Skills:      Skills{IndexFullLimit: 60, CreationNudgeInterval: 10},
		Scheduler:   Scheduler{InactivityTimeout: 10 * time.Minute, ShutdownTimeout: 20 * time.Second, MaxConcurrent: 4},
		Gateway:     defaultGateway(),
		API:         defaultAPI(),
		Delegation:  defaultDelegation(),
		Curator:     defaultCurator(),
	}
}

// APIMode is the wire protocol spoken with a provider.
type APIMode string

// The wire protocols hermes speaks.
const (
	ChatCompletions   APIMode = "chat_completions"
	Responses         APIMode = "responses"
	AnthropicMessages APIMode = "anthropic_messages"
)

// UnmarshalText accepts the three protocol names, or nothing (meaning the
// provider's own), so that a typo is caught when the file is read rather
// than when the first request fails.
func (m *APIMode) UnmarshalText(text []byte) error {
	return oneOf(m, text, true, ChatCompletions, Responses, AnthropicMessages)
}
