package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/hermes-go/hermes/config"
	"github.com/hermes-go/hermes/engine"
	"github.com/hermes-go/hermes/internal/sqlitedb"
	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/memory/facts"
	"github.com/hermes-go/hermes/notify"
	"github.com/hermes-go/hermes/safety"
	"github.com/hermes-go/hermes/session"
	"github.com/hermes-go/hermes/session/sqlite"
	"github.com/hermes-go/hermes/tool"
)

// openStore is the session store over the profile's state.db (stateDB).
// Its Close releases the store's statements; the database stays open
// for the command's other stores.
func openStore(a *app, l *config.Loaded, log *slog.Logger) (*sqlite.Store, error) {
	db, err := a.stateDB(l, log)
	if err != nil {
		return nil, err
	}
	return sqlite.New(db, sqlite.Options{})
}

// stateDB opens the profile's state.db on first use, creating the home
// directory, so the stores a command builds (sessions, long-term facts,
// jobs) share one writer connection and one read pool; the app closes it
// when the command ends.
func (a *app) stateDB(l *config.Loaded, log *slog.Logger) (*sqlitedb.DB, error) {
	if a.db != nil {
		return a.db, nil
	}
	if err := os.MkdirAll(filepath.Dir(l.Paths.StateDB), 0o700); err != nil {
		return nil, fmt.Errorf("creating %s: %w", filepath.Dir(l.Paths.StateDB), err)
	}
	db, err := sqlitedb.Open(context.Background(), l.Paths.StateDB, sqlitedb.Options{Logger: log})
	if err != nil {
		return nil, err
	}
	a.db = db
	return db, nil
}

// selectToolsets applies config toolsets, agent.disabled_toolsets and the
// --toolsets flag (which replaces toolsets).
func selectToolsets(l *config.Loaded, reg *tool.Registry, flag string) (*tool.Registry, error) {
	enabled := l.Config.Toolsets
	if flag != "" {
		enabled = splitList(flag)
	}
	sel, err := reg.Select(enabled, l.Config.Agent.DisabledToolsets)
	if err != nil {
		if flag != "" {
			return nil, fmt.Errorf("--toolsets: %w", err)
		}
		return nil, fmt.Errorf("config.yaml: toolsets: %w", err)
	}
	return sel, nil
}

func splitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// turnFlags are the flags of every command that runs turns.
type turnFlags struct {
	modelFlags
	toolsets string
	maxTurns int
	yolo     bool
}

func (f *turnFlags) register(cmd *cobra.Command) {
	f.modelFlags.register(cmd, "api-mode")
	fl := cmd.Flags()
	fl.StringVar(&f.toolsets, "toolsets", "", "comma-separated toolsets to offer (default: config toolsets, else all)")
	fl.IntVar(&f.maxTurns, "max-turns", 0, "iteration budget of a turn (default: agent.max_turns)")
	fl.BoolVar(&f.yolo, "yolo", false, "run dangerous commands without asking (hardline commands and approvals.deny still never run)")
}

// wiring is everything a command that runs turns holds.
type wiring struct {
	loaded *config.Loaded
	store  *sqlite.Store
	tools  *builtinTools
	engine *engine.Engine
	policy *safety.Policy
	model  config.Resolved
	// jobs runs scheduled jobs in this wiring's engine.
	jobs *jobRunner
	// memory is long-term memory; nil when memory.long_term is false.
	memory *longTerm
	// notify, when set before the first turn, hears what background
	// reviews saved; the chat prints it as one line.
	notify func(sessionID string, saved []string)
	// opts, overrides and redact are what the engine was built from,
	// kept to build variants of it (a job's own toolsets or model).
	opts      engine.Options
	overrides map[string]tool.Override
	redact    func(string) string
	log       *slog.Logger
}

// close ends what the command started: background processes, then the
// store.
func (r *wiring) close() {
	if r.jobs != nil {
		r.jobs.close()
	}
	if r.engine != nil {
		r.engine.Close()
	}
	if r.tools != nil {
		r.tools.close()
	}
	if r.store != nil {
		r.store.Close()
	}
}

// newWiring wires the engine for a command: model chain, store, tools,
// approval policy. interactive says whether a person can answer approval
// prompts through prompter.
func newWiring(cmd *cobra.Command, a *app, f *turnFlags, interactive bool, prompter safety.Prompter) (*wiring, error) {
	l, main, err := f.resolve(cmd, a)
	if err != nil {
		return nil, err
	}
	log := a.logger(cmd)
	provider, err := newModelChain(l, main, l.Config.Agent.APIMaxRetries, log)
	if err != nil {
		return nil, err
	}
	store, err := openStore(a, l, log)
	if err != nil {
		return nil, err
	}
	rt := &wiring{loaded: l, store: store, model: main, log: log}
	var judge safety.Judge
	if l.Config.Approvals.Mode == config.ApprovalSmart {
		judge = safety.NewModelJudge(provider, main.Model)
	}
	rt.policy = newPolicy(l, f.yolo, interactive, prompter, judge, log)
	vision, visionModel, err := auxModel(l, "auxiliary.vision", l.Config.Auxiliary.Vision, provider, main, log)
	if err != nil {
		rt.close()
		return nil, err
	}
	tools, err := newTools(a, l, toolDeps{store: store, fallback: rt.policy.For(""), provider: vision, model: visionModel, log: log})
	if err != nil {
		rt.close()
		return nil, err
	}
	rt.tools = tools
	startMCP(cmd.Context(), tools.mcp, l.Config)
	sel, err := selectToolsets(l, tools.registry, f.toolsets)
	if err != nil {
		rt.close()
		return nil, err
	}
	if l.Config.Memory.LongTerm.Or(true) {
		db, err := a.stateDB(l, log)
		if err != nil {
			rt.close()
			return nil, fmt.Errorf("long-term memory: %w", err)
		}
		fs := facts.New(db, facts.Options{})
		ap, am, err := auxModel(l, "auxiliary.memory", l.Config.Auxiliary.Memory, provider, main, log)
		if err != nil {
			rt.close()
			return nil, err
		}
		rt.memory = &longTerm{store: fs, sessions: store, provider: ap, model: am, log: log}
	}
	comp, window, err := newCompressor(cmd.Context(), l, provider, main, log)
	if err != nil {
		rt.close()
		return nil, err
	}
	maxTurns := l.Config.Agent.MaxTurns
	if f.maxTurns > 0 {
		maxTurns = f.maxTurns
	}
	overrides, err := toolOverrides(l, tools.registry)
	if err != nil {
		rt.close()
		return nil, err
	}
	rt.overrides, rt.redact = overrides, newRedactor(l, main).Redact
	box := rt.toolbox(sel)
	tools.bind(box.Dispatcher)
	opts := engine.Options{
		Store:        store,
		Provider:     provider,
		Model:        main.Model,
		Tools:        box,
		MaxTurns:     maxTurns,
		MaxTokens:    main.MaxTokens,
		SystemPrompt: rt.systemPrompt(sel),
		Resumed:      func(id string, history []session.Message) { restoreTodo(tools.todo, id, history) },
		Price:        priceFunc(l.Config),
		Compressor:   comp,
		Window:       window,
		Review: &engine.Review{
			Tools:       []string{"memory", "skill_manage", "skills_list", "skills_search", "skill_view"},
			MemoryEvery: l.Config.Memory.NudgeInterval, SkillEvery: l.Config.Skills.CreationNudgeInterval,
			SkillWriter: "skill_manage",
			Done: func(id string, saved []string) {
				if rt.notify != nil {
					rt.notify(id, saved)
				}
			},
		},
		Logger: log,
	}
	if rt.memory != nil {
		opts.Recall = rt.memory.recall
	}
	rt.opts = opts
	rt.engine = engine.New(opts)
	rt.jobs = &jobRunner{rt: rt, notifier: notify.New(notifyConfig(l, log)), log: log,
		inactivity: l.Config.Scheduler.InactivityTimeout}
	if tools.jobs != nil {
		tools.runJob = func(ctx context.Context, name string) (string, error) {
			res, err := runJobNow(ctx, tools.jobs, rt.jobs, name)
			if err == nil {
				err = res.Err
			}
			return res.Output, err
		}
	}
	return rt, nil
}

// toolbox is the tools of sel behind a dispatcher of their own.
func (r *wiring) toolbox(sel *tool.Registry) toolbox {
	return toolbox{Registry: sel, Dispatcher: &tool.Dispatcher{Registry: sel, Overrides: r.overrides, Logger: r.log, Redact: r.redact}}
}

// systemPrompt builds a session's prompt for the tools of sel.
func (r *wiring) systemPrompt(sel *tool.Registry) func(s *session.Session) string {
	return func(s *session.Session) string { return sessionPrompt(r.loaded, r.tools, sel, s.Cwd).Text() }
}

// variant is an engine like the wiring's but offering only toolsets (when
// given) and calling model (when given) on the configured provider; a
// scheduled job that names its own runs in one. Background reviews stay
// with the main engine.
func (r *wiring) variant(toolsets []string, model string) (*engine.Engine, error) {
	opts := r.opts
	opts.Review = nil
	if len(toolsets) > 0 {
		sel, err := r.tools.registry.Select(toolsets, r.loaded.Config.Agent.DisabledToolsets)
		if err != nil {
			return nil, fmt.Errorf("toolsets: %w", err)
		}
		opts.Tools = r.toolbox(sel)
		opts.SystemPrompt = r.systemPrompt(sel)
	}
	if model != "" {
		m, err := r.loaded.ResolveModel(config.ModelOverride{Model: model})
		if err != nil {
			return nil, fmt.Errorf("model %q: %w", model, err)
		}
		p, err := newModelChain(r.loaded, m, r.loaded.Config.Agent.APIMaxRetries, r.log)
		if err != nil {
			return nil, fmt.Errorf("model %q: %w", model, err)
		}
		opts.Provider, opts.Model, opts.MaxTokens = p, m.Model, m.MaxTokens
	}
	return engine.New(opts), nil
}

// newRedactor knows the values of every secret hermes holds, from the
// environment and .env, so tool results can be cleaned of them.
func newRedactor(l *config.Loaded, main config.Resolved) *safety.Redactor {
	secrets := map[string]string{}
	for _, name := range l.SecretNames(os.Environ()) {
		if v, ok := l.Env(name); ok {
			secrets[name] = v
		}
	}
	if k := string(main.APIKey); k != "" {
		secrets["api_key"] = k
	}
	return safety.NewRedactor(secrets)
}

// toolbox joins the selected tools and their dispatcher into what the
// engine needs.
type toolbox struct {
	*tool.Registry
	*tool.Dispatcher
}

// toolOverrides turns agent.tool_timeouts into dispatcher overrides. A
// name that is no tool is an error, since the timeout the user meant to
// set would otherwise silently not apply.
func toolOverrides(l *config.Loaded, reg *tool.Registry) (map[string]tool.Override, error) {
	out := map[string]tool.Override{}
	for name, d := range l.Config.Agent.ToolTimeouts {
		if _, ok := reg.Get(name); !ok {
			var names []string
			for _, t := range reg.All() {
				names = append(names, t.Spec().Name)
			}
			return nil, fmt.Errorf("config.yaml: agent.tool_timeouts: there is no tool named %q; the tools are %s", name, strings.Join(names, ", "))
		}
		out[name] = tool.Override{Timeout: d}
	}
	return out, nil
}

// auxModel is the model a side job asks (auxiliary.vision for
// vision_analyze, auxiliary.memory for long-term memory): the one
// configured under key when it is set, else the main one.
func auxModel(l *config.Loaded, key string, aux config.Fallback, main llm.Provider, r config.Resolved, log *slog.Logger) (llm.Provider, string, error) {
	if aux.Provider == "" && aux.Model == "" {
		return main, r.Model, nil
	}
	ar, err := l.ResolveModel(config.ModelOverride{Provider: aux.Provider, Model: aux.Model})
	if err != nil {
		return nil, "", fmt.Errorf("config.yaml: %s: %w", key, err)
	}
	p, err := newProvider(ar)
	if err != nil {
		return nil, "", fmt.Errorf("config.yaml: %s: %w", key, err)
	}
	return llm.WithRetry(p, retryPolicy(&l.Config, l.Config.Agent.APIMaxRetries, log)), ar.Model, nil
}
