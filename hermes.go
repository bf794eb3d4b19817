package hermes

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"

	"github.com/hermes-go/hermes/internal/app"
	"github.com/hermes-go/hermes/internal/config"
	"github.com/hermes-go/hermes/internal/tool"
)

// Options say which hermes to open. The zero value opens the hermes home
// of the person running the program ($HERMES_HOME, else ~/.hermes), as the
// hermes command would.
type Options struct {
	// Home is the hermes home directory to use (config.yaml, .env,
	// state.db, skills, memories); "" means $HERMES_HOME, else ~/.hermes.
	// It is created on first use. Ignored when InMemory is set.
	Home string
	// Profile selects Home/profiles/NAME; "" is the default profile.
	Profile string
	// InMemory opens a hermes that keeps no files at all: its
	// configuration is Config, its environment Env only, and its
	// sessions, scheduled jobs and long-term facts live in memory until
	// Close. MEMORY.md, USER.md, skills and checkpoints, which are
	// files, are off.
	InMemory bool
	// Config is a configuration in config.yaml's format. With InMemory
	// it is the whole configuration (nil: the defaults, which have no
	// model); with a home it is not used: edit the home's config.yaml.
	Config []byte
	// Env holds variables the configuration reads (${NAME} references,
	// API keys such as OPENAI_API_KEY) in place of the process
	// environment. With a home, nil means the process environment and
	// the home's .env (where the home is, HERMES_HOME or HOME, is always
	// the process's); InMemory never reads the process environment, so a
	// program's secrets reach hermes only when it passes them here.
	Env map[string]string
	// Workdir is where sessions' commands and file tools start; ""
	// means terminal.cwd, else the program's working directory.
	Workdir string
	// Tools are the program's own tools, offered in every turn beside
	// the configured toolsets (see NewTool).
	Tools []*Tool
	// Approve is asked whether a dangerous command, a write outside the
	// working directory, or a call of a Tool made WithApproval may run.
	// Nil means nobody can be asked: each is denied, unless
	// approvals.mode is off or approvals.non_interactive is allow.
	Approve ApproveFunc
	// Logger receives hermes's logs, secrets redacted; nil discards
	// them.
	Logger *slog.Logger
}

// Agent is an opened hermes: its configuration, state, tools and the
// engine every turn runs through. It is safe for concurrent use; turns
// in one session wait for each other. Close it when done.
type Agent struct {
	app *app.App
	// tools are the program's tools; nil when it has none.
	tools   *tool.Registry
	approve ApproveFunc
	workdir string
}

// Open opens hermes as opts say. An error names what is wrong: the file
// and key of a bad setting, the value, and what is accepted.
func Open(ctx context.Context, opts Options) (*Agent, error) {
	l, err := loadConfig(opts)
	if err != nil {
		return nil, err
	}
	reg := tool.NewRegistry()
	for _, t := range opts.Tools {
		if t == nil {
			return nil, errors.New("hermes: Options.Tools holds a nil *Tool")
		}
		if err := reg.Register(programTool{t}); err != nil {
			return nil, fmt.Errorf("hermes: tool %q: %w", t.spec.Name, err)
		}
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	a, err := app.Open(ctx, app.Options{Config: l, Logger: log})
	if err != nil {
		return nil, fmt.Errorf("hermes: %w", err)
	}
	// A tool of the program may not take a built-in's name: the model
	// would call one believing it the other.
	for _, t := range opts.Tools {
		if _, taken := a.Tools.Registry.Get(t.spec.Name); taken {
			a.Close()
			return nil, fmt.Errorf("hermes: tool %q: hermes has a tool of that name; choose another", t.spec.Name)
		}
	}
	wd := opts.Workdir
	if wd == "" {
		wd = a.Workdir()
	}
	ag := &Agent{app: a, approve: opts.Approve, workdir: wd}
	if len(opts.Tools) > 0 {
		ag.tools = reg
	}
	return ag, nil
}

// loadConfig is the configuration opts name.
func loadConfig(opts Options) (*config.Loaded, error) {
	var l *config.Loaded
	var err error
	if opts.InMemory {
		l, err = config.FromYAML(opts.Config, config.MapLookup(opts.Env))
	} else {
		lo := config.LoadOptions{Home: opts.Home, Profile: opts.Profile}
		if lo.Home == "" {
			// Where the home is comes from the process (HERMES_HOME,
			// HOME) even when Env replaces what the configuration reads.
			if lo.Home, err = config.Home(os.LookupEnv, ""); err != nil {
				return nil, fmt.Errorf("hermes: %w", err)
			}
		}
		if opts.Env != nil {
			lo.Env = config.MapLookup(opts.Env)
		}
		l, err = config.Load(lo)
	}
	if err != nil {
		return nil, fmt.Errorf("hermes: configuration: %w", err)
	}
	return l, nil
}

// Warnings are the problems of the configuration that did not stop
// Open: unknown keys, unset variables.
func (a *Agent) Warnings() []string { return append([]string(nil), a.app.Config.Warnings...) }

// Close ends background work, stops the tools' processes and closes the
// state. An Agent opened InMemory forgets everything.
func (a *Agent) Close() error {
	a.app.Close()
	return nil
}
