package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"sync/atomic"

	"github.com/hermes-go/hermes/config"
	"github.com/hermes-go/hermes/cron"
	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/memory"
	"github.com/hermes-go/hermes/safety"
	"github.com/hermes-go/hermes/session"
	"github.com/hermes-go/hermes/skill"
	"github.com/hermes-go/hermes/tool"
	"github.com/hermes-go/hermes/tools/browser"
	"github.com/hermes-go/hermes/tools/code"
	"github.com/hermes-go/hermes/tools/declared"
	"github.com/hermes-go/hermes/tools/files"
	"github.com/hermes-go/hermes/tools/httpreq"
	"github.com/hermes-go/hermes/tools/mcp"
	"github.com/hermes-go/hermes/tools/terminal"
	"github.com/hermes-go/hermes/tools/todo"
	"github.com/hermes-go/hermes/tools/vision"
	"github.com/hermes-go/hermes/tools/web"
)

// builtinTools is every tool hermes has, before toolset selection, and
// what must be released when the command ends.
type builtinTools struct {
	registry *tool.Registry
	todo     *todo.Todo
	terminal *terminal.Terminal
	browser  *browser.Manager
	mcp      *mcp.Manager
	declared *declared.Loader
	memory   *memory.Store
	skills   *skill.Library
	jobs     *cron.Store
	// runJob runs a scheduled job now, for the cronjob tool; it is set once
	// the engine exists (newWiring).
	runJob func(ctx context.Context, name string) (string, error)
	log    *slog.Logger
	// caller is bound to the dispatcher once it exists (bind).
	caller *lateCaller
}

// bind gives execute_code the dispatcher its programs call tools through.
func (b *builtinTools) bind(d *tool.Dispatcher) { b.caller.d = d }

// close kills the background processes the model started; a process
// outlives hermes only under a future ` + "`hermes serve`" + ` that keeps it.
func (b *builtinTools) close() {
	b.terminal.Close()
	b.browser.Close()
	b.mcp.Close()
	if err := b.declared.Close(); err != nil {
		b.log.Warn("closing declared tools' databases", "error", err)
	}
}

// watch reloads the declared tools files when they change, until ctx
// ends; for commands that run for long (the chat, mcp serve).
func (b *builtinTools) watch(ctx context.Context) {
	if err := b.declared.Watch(ctx); err != nil && ctx.Err() == nil {
		b.log.Warn("declared tools will not be reloaded when their files change", "error", err)
	}
}

// declaredToolsets returns the toolsets of the declared tools, sorted.
func (b *builtinTools) declaredToolsets() []string {
	var sets []string
	for _, t := range b.declared.Tools() {
		if ts := t.Spec().Toolset; !slices.Contains(sets, ts) {
			sets = append(sets, ts)
		}
	}
	slices.Sort(sets)
	return sets
}

// toolDeps is what some tools need from the rest of hermes. Provider may
// be nil (no model configured), which leaves vision_analyze unavailable.
type toolDeps struct {
	store    session.Store
	fallback tool.Approver // approves commands when a turn brings no approver
	provider llm.Provider
	model    string
	log      *slog.Logger
}

func (d toolDeps) logger() *slog.Logger {
	if d.log == nil {
		return slog.New(slog.DiscardHandler)
	}
	return d.log
}

// newTools registers the built-in tools. MCP servers are configured but
// not connected: commands that offer their tools call startMCP.
func newTools(a *app, l *config.Loaded, d toolDeps) (*builtinTools, error) {
	c := l.Config
	reg := tool.NewRegistry()
	td := todo.New()
	pass := c.Terminal.EnvPassthrough
	var scrub []string
	for _, name := range l.SecretNames(os.Environ()) {
		if !safety.EnvPassed(name, pass) {
			scrub = append(scrub, name)
		}
	}
	term := terminal.New(terminal.Options{
		DefaultTimeout: c.Terminal.Timeout,
		MaxTimeout:     c.Terminal.MaxTimeout,
		ScrubNames:     scrub,
		Scrub:          func(name string) bool { return safety.SecretEnvName(name) && !safety.EnvPassed(name, pass) },
		Fallback:       d.fallback,
		SSH:            sshConfig(c.Terminal),
	})
	guard := &safety.URLGuard{AllowPrivate: c.Security.AllowPrivateURLs, Blocklist: c.Security.WebsiteBlocklist}
	webOpts := web.Options{
		Backend:          string(c.Web.SearchBackend),
		SearxURL:         c.Web.SearxngURL,
		BraveKey:         envValue(l, "BRAVE_API_KEY"),
		TavilyKey:        envValue(l, "TAVILY_API_KEY"),
		Client:           guard.Client(0),
		ExtractCharLimit: c.Web.ExtractCharLimit,
	}
	br := browser.New(browser.Options{ExecPath: c.Browser.Executable, Guard: guard, InactivityTimeout: c.Browser.InactivityTimeout,
		ScreenshotDir: filepath.Join(l.Paths.Home, "cache", "screenshots")})
	b := &builtinTools{registry: reg, todo: td, terminal: term, browser: br, caller: &lateCaller{},
		mcp: newMCP(l, reg, d.logger()), log: d.logger(),
		memory: memory.Open(filepath.Join(l.Paths.Home, "memories"),
			memory.Limits{Memory: c.Memory.MemoryCharLimit, User: c.Memory.UserCharLimit}),
		skills: openSkills(l, d.logger())}
	tools := []tool.Tool{
		term, terminal.NewProcessTool(term), td, session.NewSearchTool(d.store),
		web.NewSearch(searchOpts(webOpts)), web.NewExtract(webOpts), httpreq.New(guard),
		code.New(code.Options{Caller: b.caller, Tools: b.caller.names}),
		vision.New(vision.Options{Provider: d.provider, Model: d.model}),
		memory.NewTool(b.memory),
	}
	// Over the ssh backend the file tools act on the remote host too
	// (FileSystem is nil for the local backend).
	tools = append(tools, files.New(files.Options{Guard: safety.WriteGuardFromEnv(l.Paths.Home), FS: term.FileSystem()})...)
	tools = append(tools, br.Tools()...)
	tools = append(tools, skillTools(b.skills, c.Skills.IndexFullLimit)...)
	if jobs, err := openJobStore(a, l, d.logger()); err != nil {
		d.logger().Warn("the cronjob tool is unavailable", "error", err)
	} else {
		b.jobs = jobs
		tools = append(tools, cron.NewTool(jobs, func(ctx context.Context, name string) (string, error) {
			if b.runJob == nil {
				return "", errors.New("jobs cannot be run from here")
			}
			return b.runJob(ctx, name)
		}))
	}
	for _, t := range tools {
		if err := reg.Register(t); err != nil {
			return nil, err
		}
	}
	// Declared tools come last, so that one named like a built-in is the
	// one refused (and listed as a problem).
	b.declared = declared.NewLoader(declared.LoaderOptions{
		Dir: filepath.Join(l.Paths.Home, "tools"), ConfigFile: l.Paths.ConfigFile,
		Registry: reg, Env: l.Env, Logger: d.logger(),
	})
	if err := b.declared.Load(); err != nil {
		return nil, err
	}
	return b, nil
}

// sshConfig is the ssh backend's settings when terminal.backend is ssh,
// else nil (commands run locally).
func sshConfig(t config.Terminal) *terminal.SSHConfig {
	if t.Backend != "ssh" {
		return nil
	}
	return &terminal.SSHConfig{
		Host: t.SSH.Host, Port: t.SSH.Port, User: t.SSH.User, KeyFile: t.SSH.KeyFile,
		KnownHostsFile: t.SSH.KnownHostsFile, InsecureIgnoreHostKey: t.SSH.InsecureIgnoreHostKey,
		Dir: t.SSH.Dir, ConnectTimeout: t.SSH.ConnectTimeout,
	}
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

// lateCaller lets execute_code's programs call the other tools through
// the dispatcher, which is built only after the tools are registered and
// selected. Each call is a batch of one, so approval, validation and
// timeouts apply as to the model's own calls.
type lateCaller struct {
	d *tool.Dispatcher
	n atomic.Int64
}

func (c *lateCaller) CallTool(ctx context.Context, name string, args json.RawMessage) tool.Result {
	if c.d == nil {
		return tool.Fail(tool.CodeInternal, "tools cannot be called from code here")
	}
	id := fmt.Sprintf("code_%d", c.n.Add(1))
	return c.d.Run(ctx, []llm.ToolCall{{ID: id, Name: name, Arguments: string(args)}}, nil)[0].Result
}

// names lists the tools a program may call: the selected ones.
func (c *lateCaller) names() []string {
	if c.d == nil {
		return nil
	}
	var out []string
	for _, s := range c.d.Registry.Specs() {
		out = append(out, s.Name)
	}
	return out
}

// restoreTodo gives the todo tool back the list of a resumed session: the
// data of the last successful todo result in its history.
func restoreTodo(t *todo.Todo, sessionID string, history []session.Message) {
	for i := len(history) - 1; i >= 0; i-- {
		m := history[i]
		if m.Role != llm.RoleTool || m.Name != "todo" {
			continue
		}
		var env struct {
			Status string      `json:"status"`
			Data   todo.Result `json:"data"`
		}
		if json.Unmarshal([]byte(m.Text()), &env) == nil && env.Status == "ok" {
			t.Load(sessionID, env.Data.Todos)
			return
		}
	}
}
