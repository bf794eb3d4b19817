package app

import (
	"context"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/hermes-go/hermes/internal/clock"
	"github.com/hermes-go/hermes/internal/config"
	"github.com/hermes-go/hermes/internal/engine"
	"github.com/hermes-go/hermes/internal/kb"
	"github.com/hermes-go/hermes/internal/memory"
	"github.com/hermes-go/hermes/internal/safety/netguard"
	"github.com/hermes-go/hermes/internal/safety/redact"
	"github.com/hermes-go/hermes/internal/safety/writeguard"
	"github.com/hermes-go/hermes/internal/session"
	"github.com/hermes-go/hermes/internal/skill"
	"github.com/hermes-go/hermes/internal/tool"
	"github.com/hermes-go/hermes/internal/tools/browser"
	"github.com/hermes-go/hermes/internal/tools/code"
	"github.com/hermes-go/hermes/internal/tools/declared"
	"github.com/hermes-go/hermes/internal/tools/files"
	"github.com/hermes-go/hermes/internal/tools/httpreq"
	"github.com/hermes-go/hermes/internal/tools/mcp"
	"github.com/hermes-go/hermes/internal/tools/terminal"
	"github.com/hermes-go/hermes/internal/tools/terminal/ssh"
	"github.com/hermes-go/hermes/internal/tools/todo"
	"github.com/hermes-go/hermes/internal/tools/vision"
	"github.com/hermes-go/hermes/internal/tools/web"
)

// Tools is every tool hermes has, before toolset selection, and what runs
// behind them: processes, browsers, MCP connections, the declared tools'
// files.
type Tools struct {
	// Registry holds every tool; turns are offered selections of it.
	Registry *tool.Registry
	// Declared loads the YAML-declared tools and keeps their problems.
	Declared *declared.Loader
	// MCP connects the configured MCP servers.
	MCP *mcp.Manager
	// Memory is MEMORY.md and USER.md.
	Memory *memory.Store
	// Skills is the skills library.
	Skills *skill.Library

	terminal *terminal.Terminal
	browser  *browser.Manager
	log      *slog.Logger
}

// close kills the background processes the model started and drops the
// connections.
func (b *Tools) close() {
	b.terminal.Close()
	b.browser.Close()
	b.MCP.Close()
	if b.Declared == nil {
		return
	}
	if err := b.Declared.Close(); err != nil {
		b.log.Warn("closing declared tools' databases", "error", err)
	}
}

// Watch reloads the declared tools files when they change, until ctx
// ends; for fronts that run for long (the chat, mcp serve).
func (b *Tools) Watch(ctx context.Context) {
	if err := b.Declared.Watch(ctx); err != nil && ctx.Err() == nil {
		b.log.Warn("declared tools will not be reloaded when their files change", "error", err)
	}
}

// declaredCredential reports whether a declared tool sends the variable
// name as a credential.
func (b *Tools) declaredCredential(name string) bool {
	return b.Declared != nil && slices.Contains(b.Declared.CredentialNames(), name)
}

// DeclaredToolsets returns the toolsets of the declared tools, sorted.
func (b *Tools) DeclaredToolsets() []string {
	var sets []string
	for _, t := range b.Declared.Tools() {
		if ts := t.Spec().Toolset; !slices.Contains(sets, ts) {
			sets = append(sets, ts)
		}
	}
	slices.Sort(sets)
	return sets
}

// toolDeps is what some tools need from the rest of hermes. The vision
// model may be missing (no model configured), which leaves vision_analyze
// unavailable.
type toolDeps struct {
	store    session.Store
	kb       *kb.KB        // nil: no kb_search
	fallback tool.Approver // approves commands when a call brings no approver
	vision   engine.Model
	log      *slog.Logger
	version  string
	clock    clock.Clock
}

// newTools registers the built-in and the declared tools. MCP servers are
// configured but not connected: fronts that offer their tools call
// App.StartMCP.
func newTools(l *config.Loaded, d toolDeps) (*Tools, error) {
	c := l.Config
	reg := tool.NewRegistry()
	pass := c.Terminal.EnvPassthrough
	var scrub []string
	for _, name := range l.SecretNames(os.Environ()) {
		if !redact.EnvPassed(name, pass) {
			scrub = append(scrub, name)
		}
	}
	backend, remoteFS := sshBackend(c.Terminal)
	b := &Tools{log: d.log}
	term := terminal.New(terminal.Options{
		DefaultTimeout: c.Terminal.Timeout,
		MaxTimeout:     c.Terminal.MaxTimeout,
		ScrubNames:     scrub,
		// The variables declared tools send as credentials are secrets
		// too, whatever their names.
		Scrub: func(name string) bool {
			return (redact.SecretEnvName(name) || b.declaredCredential(name)) && !redact.EnvPassed(name, pass)
		},
		Fallback:     d.fallback,
		Backend:      backend,
		SpawnPerCall: !c.Terminal.PersistentShell,
		Clock:        d.clock,
	})
	guard, err := urlGuard(c)
	if err != nil {
		return nil, err
	}
	webOpts := web.Options{
		Backend:          string(c.Web.SearchBackend),
		SearxURL:         c.Web.SearxngURL,
		BraveKey:         envValue(l, "BRAVE_API_KEY"),
		TavilyKey:        envValue(l, "TAVILY_API_KEY"),
		Client:           guard.Client(0),
		ExtractCharLimit: c.Web.ExtractCharLimit,
	}
	br := browser.New(browser.Options{ExecPath: c.Browser.Executable, Guard: guard, InactivityTimeout: c.Browser.InactivityTimeout,
		ScreenshotDir: homeFile(l, "cache", "screenshots")})
	b.Registry, b.terminal, b.browser = reg, term, br
	b.MCP = NewMCP(l, reg, d.log, d.version)
	b.Memory = memory.Open(homeFile(l, "memories"), homeMemoryLimits(l))
	b.Skills = OpenSkills(l, d.log)
	tools := []tool.Tool{
		term, terminal.NewProcessTool(term), todo.New(), session.NewSearchTool(d.store),
		web.NewSearch(searchOpts(webOpts)), web.NewExtract(webOpts), httpreq.New(guard),
		code.New(code.Options{}),
		vision.New(vision.Options{Provider: d.vision.Provider, Model: d.vision.Name}),
		memory.NewTool(b.Memory),
	}
	// Over the ssh backend the file tools act on the remote host too.
	tools = append(tools, files.New(files.Options{Guard: writeguard.FromEnv(hermesRoot(l)), FS: remoteFS})...)
	tools = append(tools, br.Tools()...)
	tools = append(tools, skillTools(b.Skills, c.Skills.IndexFullLimit)...)
	if d.kb != nil {
		tools = append(tools, kb.NewTool(d.kb))
	}
	for _, t := range tools {
		if err := reg.Register(t); err != nil {
			b.close()
			return nil, err
		}
	}
	// Declared tools come last, so that one named like a built-in is the
	// one refused (and listed as a problem).
	b.Declared = declared.NewLoader(declared.LoaderOptions{
		Dir: homeFile(l, "tools"), ConfigFile: l.Paths.ConfigFile,
		Registry: reg, Env: l.Env, Logger: d.log, Guard: guard, Fallback: d.fallback,
	})
	if err := b.Declared.Load(); err != nil {
		b.close()
		return nil, err
	}
	return b, nil
}

// urlGuard is the guard of every URL the model or an ingest names, by
// the security settings.
func urlGuard(c config.Config) (*netguard.Guard, error) {
	hosts, err := c.Security.WebsiteBlocklist.Hosts(os.ReadFile)
	if err != nil {
		return nil, err
	}
	return &netguard.Guard{AllowPrivate: c.Security.AllowPrivateURLs, Blocklist: hosts}, nil
}

// sshBackend is the ssh backend and the remote host's filesystem when
// terminal.backend is ssh, else nil and nil (commands and files are
// local).
func sshBackend(t config.Terminal) (terminal.Backend, files.FS) {
	if t.Backend != "ssh" {
		return nil, nil
	}
	b := ssh.New(ssh.Config{
		Host: t.SSH.Host, Port: t.SSH.Port, User: t.SSH.User, KeyFile: t.SSH.KeyFile,
		KnownHostsFile: t.SSH.KnownHostsFile, InsecureIgnoreHostKey: t.SSH.InsecureIgnoreHostKey,
		Dir: t.SSH.Dir, ConnectTimeout: t.SSH.ConnectTimeout,
	})
	return b, b.FileSystem()
}

// hermesRoot is the hermes home directory above every profile: the
// profile's home, or for a profile other than the default the directory
// whose profiles/NAME it is. The file tools change nothing under it, so
// one profile cannot rewrite another's memory or keys either.
func hermesRoot(l *config.Loaded) string {
	if l.Profile == "" || l.Profile == "default" {
		return l.Paths.Home
	}
	return filepath.Dir(filepath.Dir(l.Paths.Home))
}

// searchOpts gives web_search a client without the URL guard: it only
// reaches the search service the user configured (often a SearXNG on
// localhost, which the guard would refuse) and the fixed Brave and Tavily
// APIs, never a URL the model chose.
func searchOpts(o web.Options) web.Options {
	o.Client = &http.Client{}
	return o
}

// envValue reads a variable from the environment or .env.
func envValue(l *config.Loaded, name string) string {
	v, _ := l.Env(name)
	return v
}

// memoryLimits is the memory files' sizes, and which are turned off.
func memoryLimits(m config.Memory) memory.Limits {
	return memory.Limits{Memory: m.MemoryCharLimit, User: m.UserCharLimit,
		MemoryOff: !m.MemoryEnabled.Or(true), UserOff: !m.UserProfileEnabled.Or(true)}
}

// homeMemoryLimits are the memory files' limits; with no home there are
// no files to keep MEMORY.md and USER.md in, so both are off.
func homeMemoryLimits(l *config.Loaded) memory.Limits {
	m := memoryLimits(l.Config.Memory)
	if l.Paths.InMemory() {
		m.MemoryOff, m.UserOff = true, true
	}
	return m
}

// homeFile is the path of elem under the home directory, or "" when there
// is no home (config.FromYAML): the component then keeps no file there.
func homeFile(l *config.Loaded, elem ...string) string {
	if l.Paths.InMemory() {
		return ""
	}
	return filepath.Join(append([]string{l.Paths.Home}, elem...)...)
}

// Workdir is where a new session's tools start: terminal.cwd (Hermes
// Agent's key; "~" is the user's home) when it names a directory, else
// the directory hermes was started in.
func (a *App) Workdir() string {
	wd, _ := os.Getwd()
	dir := a.Config.Config.Terminal.Cwd
	switch {
	case dir == "" || dir == ".":
		return wd
	case dir == "~" || strings.HasPrefix(dir, "~/"):
		if home, err := os.UserHomeDir(); err == nil {
			dir = filepath.Join(home, strings.TrimPrefix(dir, "~"))
		}
	case !filepath.IsAbs(dir):
		dir = filepath.Join(wd, dir)
	}
	return dir
}
