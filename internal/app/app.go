// Package app assembles hermes: from a loaded configuration it opens
// state.db once, builds the model chain, the tools, memory, skills, the
// approval policy and the one Engine of the process, and returns them as
// an *App whose Close undoes everything in reverse order. Every front — the
// terminal chat, hermes serve and its job processes, hermes mcp serve, and
// the gateway, API and editor fronts — gets an *App; a front only renders
// events and says who approves commands.
//
// Everything is built here, explicitly, so that a reader sees the whole
// program in one place; no package registers itself by side effect.
package app

import (
	"context"
	"errors"
	"log/slog"

	"github.com/hermes-go/hermes/internal/audit"
	"github.com/hermes-go/hermes/internal/clock"
	"github.com/hermes-go/hermes/internal/config"
	"github.com/hermes-go/hermes/internal/cron"
	"github.com/hermes-go/hermes/internal/engine"
	"github.com/hermes-go/hermes/internal/gateway/gwstore"
	"github.com/hermes-go/hermes/internal/hooks"
	"github.com/hermes-go/hermes/internal/kb"
	"github.com/hermes-go/hermes/internal/memory/facts"
	"github.com/hermes-go/hermes/internal/metrics"
	"github.com/hermes-go/hermes/internal/notify"
	"github.com/hermes-go/hermes/internal/safety"
	"github.com/hermes-go/hermes/internal/sqldb"
	"github.com/hermes-go/hermes/internal/team"
	"github.com/hermes-go/hermes/internal/trace"
	"github.com/hermes-go/hermes/internal/users"
)

// Options say what to assemble from what.
type Options struct {
	// Config is the loaded configuration; the caller loads it (and shows
	// its warnings). Required.
	Config *config.Loaded
	// Logger gets every component's log lines; nil discards them.
	Logger *slog.Logger
	// Model overrides the configured main model (command-line flags).
	Model config.ModelOverride
	// Toolsets, when set, replaces config's toolsets as the default
	// selection of the tools offered.
	Toolsets []string
	// MaxTurns, when positive, replaces agent.max_turns.
	MaxTurns int
	// Version is hermes's version, told to MCP servers.
	Version string
	// Clock is the time of everything assembled: stores, retries,
	// deliveries, the scheduler, the engine; nil is the wall clock.
	// Tests move a fake one by hand.
	Clock clock.Clock
	// Holder names this process in the scheduler's lease; empty means
	// host/pid.
	Holder string
	// HookAsker, when set, asks the person at the terminal whether a
	// hook not yet consented to may run; without it such hooks are
	// skipped.
	HookAsker hooks.Asker
}

// App is hermes assembled. Its fields are ready to use until Close.
type App struct {
	Config *config.Loaded
	Log    *slog.Logger
	// DB is where state lives (state.db, or PostgreSQL with storage:
	// driver: postgres), opened once for every store of the process.
	DB sqldb.DB
	// Sessions is the session store.
	Sessions SessionStore
	// Jobs is the cron job store of state.db.
	Jobs *cron.Store
	// Facts is long-term memory's store (memory.long_term says whether
	// turns use it).
	Facts *facts.Store
	// Notifier delivers job results and notices.
	Notifier *notify.Notifier
	// Gateway is the gateway's state: events taken, pairings, the
	// session of each chat.
	Gateway *gwstore.Store
	// Team is the team task queue of state.db: runs, tasks, artifacts.
	Team *team.Store
	// Users are config's users and tenants: who a message or a key is.
	Users *users.Directory
	// Audit is the audit log of state.db: every tool call of every turn.
	Audit *audit.Log
	// KB is the knowledge bases of state.db.
	KB *kb.KB

	// The rest is set by Open, not by OpenStores.

	// Tools is every tool and what runs behind them.
	Tools *Tools
	// Policy decides dangerous commands for every front.
	Policy *safety.Policy
	// Models resolves the main model and the models turns name.
	Models *Models
	// Engine runs every turn of the process.
	Engine *engine.Engine
	// Hooks runs config.yaml's hooks.
	Hooks *hooks.Runner
	// Metrics are the process's metrics, served at /metrics.
	Metrics *metrics.Set
	// Tracer exports spans when observability.otlp_endpoint is set; nil
	// otherwise.
	Tracer *trace.Tracer

	opts    Options
	cleanup []func()
}

// OpenStores opens what commands that only read or change stored state
// need: state.db with its session, job and fact stores, and the notifier.
// Nothing that calls a model or runs a tool is built.
func OpenStores(ctx context.Context, opts Options) (*App, error) {
	if opts.Config == nil {
		return nil, errors.New("app: no configuration")
	}
	opts.Clock = clock.OrReal(opts.Clock)
	a := &App{Config: opts.Config, Log: opts.Logger, opts: opts}
	if a.Log == nil {
		a.Log = slog.New(slog.DiscardHandler)
	}
	if err := a.openStores(ctx); err != nil {
		a.Close()
		return nil, err
	}
	a.openMetrics()
	return a, nil
}

// Open assembles the whole of hermes. A missing or broken model is not an
// error here: commands that need no model still work, and a turn reports
// why there is none (Models.Main says it up front).
func Open(ctx context.Context, opts Options) (*App, error) {
	a, err := OpenStores(ctx, opts)
	if err != nil {
		return nil, err
	}
	if err := a.openRuntime(ctx); err != nil {
		a.Close()
		return nil, err
	}
	return a, nil
}

// Close releases everything Open or OpenStores made, in reverse order: the
// engine's background work, the tools' processes and connections, then
// the stores and the database.
func (a *App) Close() {
	for i := len(a.cleanup) - 1; i >= 0; i-- {
		a.cleanup[i]()
	}
	a.cleanup = nil
}

// onClose pushes f onto the cleanup stack.
func (a *App) onClose(f func()) { a.cleanup = append(a.cleanup, f) }

// openStores opens the database once, with every schema migrated, and
// the stores over it.
func (a *App) openStores(ctx context.Context) error {
	l := a.Config
	db, err := a.openDatabase(ctx)
	if err != nil {
		return err
	}
	a.DB = db
	a.onClose(func() { db.Close() })
	st, err := a.openSessions(db)
	if err != nil {
		return err
	}
	a.Sessions = st
	a.onClose(func() { st.Close() })
	a.Gateway = gwstore.New(db, gwstore.Options{Clock: a.opts.Clock, Holder: a.Holder()})
	if a.Jobs, err = cron.NewStore(db, cron.StoreOptions{DefaultZone: JobZone(l.Config), Clock: a.opts.Clock}); err != nil {
		return err
	}
	a.Team = team.NewStore(db, team.StoreOptions{Clock: a.opts.Clock})
	emb, err := kbEmbedder(l)
	if err != nil {
		return err
	}
	// Long-term facts are embedded with the knowledge base's model, so
	// recall finds a fact said in other words or another language.
	lt := l.Config.Memory.LongTerm
	fo := facts.Options{Logger: a.Log, Clock: a.opts.Clock, Recall: facts.RecallMode(lt.Recall), MinMargin: lt.MinMargin}
	if emb != nil {
		fo.Embed, fo.EmbedModel = emb.Embed, l.Config.KB.Embedding.Provider+"/"+l.Config.KB.Embedding.Model
	}
	a.Facts = facts.New(db, fo)
	a.Users = users.New(l.Config)
	a.Audit = audit.New(db, a.opts.Clock)
	guard, err := urlGuard(l.Config)
	if err != nil {
		return err
	}
	a.KB = kb.New(db, kb.Options{Clock: a.opts.Clock, Guard: guard, Embedder: emb,
		EmbedModel: l.Config.KB.Embedding.Provider + "/" + l.Config.KB.Embedding.Model, Logger: a.Log})
	nc := NotifyConfig(l, a.Log)
	nc.Clock = a.opts.Clock
	nc.Delivered = a.delivered
	a.Notifier = notify.New(nc)
	return nil
}

// openRuntime builds the models, the policy, the tools and the engine.
func (a *App) openRuntime(ctx context.Context) error {
	l := a.Config
	a.Models = newModels(l, a.opts.Model, a.opts.Clock, a.Log)
	main, mainErr := a.Models.Model("")
	var judge safety.Judge
	if mainErr == nil && l.Config.Approvals.Mode == config.ApprovalSmart {
		judge = safety.NewModelJudge(judgeAsk(main.Provider, main.Name))
	}
	a.Policy = newPolicy(l, judge, a.Log)
	vision, err := a.Models.aux("auxiliary.vision", l.Config.Auxiliary.Vision)
	if err != nil {
		return err
	}
	tools, err := newTools(l, toolDeps{store: a.Sessions, kb: a.KB, fallback: a.Policy.For("", safety.Asker{}), vision: vision, log: a.Log,
		version: a.opts.Version, clock: a.opts.Clock})
	if err != nil {
		return err
	}
	a.Tools = tools
	a.onClose(tools.close)
	a.Hooks = a.newHooks()
	if err := a.openTracer(); err != nil {
		return err
	}
	opts, err := a.engineOptions(ctx, main, mainErr)
	if err != nil {
		return err
	}
	opts.Observer = a.observer()
	a.Engine = engine.New(opts)
	a.onClose(a.Engine.Close)
	// The cronjob and delegate_task tools run turns through the engine,
	// so they are registered once the engine exists; no turn has run yet.
	if err := tools.Registry.Register(a.Engine.DelegateTool()); err != nil {
		return err
	}
	return tools.Registry.Register(cron.NewTool(a.Jobs, a.Engine).CheckDeliver(a.checkDeliver))
}
