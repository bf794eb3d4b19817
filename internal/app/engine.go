package app

import (
	"context"
	"fmt"
	"github.com/hermes-go/hermes/internal/checkpoint"
	"github.com/hermes-go/hermes/internal/clock"
	"os"
	"strings"
	"time"

	"github.com/hermes-go/hermes/internal/compress"
	"github.com/hermes-go/hermes/internal/config"
	"github.com/hermes-go/hermes/internal/engine"
	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/safety"
	"github.com/hermes-go/hermes/internal/tool"
)

// reviewTools are what a background review may call: the memory and
// skill tools.
var reviewTools = []string{"memory", "skill_manage", "skills_list", "skills_search", "skill_view"}

// engineOptions wires the engine from the configuration and what Open
// built. Without a main model (mainErr) there is no compression; turns
// report mainErr.
func (a *App) engineOptions(ctx context.Context, main engine.Model, mainErr error) (engine.Options, error) {
	l := a.Config
	c := l.Config
	overrides, err := toolOverrides(c, a.Tools.Registry)
	if err != nil {
		return engine.Options{}, err
	}
	userHome, _ := os.UserHomeDir()
	maxTurns := c.Agent.MaxTurns
	if a.opts.MaxTurns > 0 {
		maxTurns = a.opts.MaxTurns
	}
	toolsets := c.Toolsets
	if len(a.opts.Toolsets) > 0 {
		toolsets = a.opts.Toolsets
	}
	opts := engine.Options{
		Store:  a.Sessions,
		Models: a.Models,
		Policy: a.Policy,
		Tools: engine.Tools{Registry: a.Tools.Registry, Toolsets: toolsets, Disabled: c.Agent.DisabledToolsets,
			Overrides: overrides, Redact: newLiveRedactor(a).Redact, Audit: a.audit},
		Prompt: engine.PromptSources{Home: l.Paths.Home, UserHome: userHome, Memory: a.Tools.Memory,
			Skills: a.Tools.Skills, IndexFullLimit: c.Skills.IndexFullLimit, Location: zone(c.Timezone)},
		MaxTurns: maxTurns,
		Prices:   prices(c),
		Review: &engine.Review{
			Tools:       reviewTools,
			MemoryEvery: c.Memory.NudgeInterval, SkillEvery: c.Skills.CreationNudgeInterval,
			SkillWriter: "skill_manage",
		},
		Jobs: engine.Jobs{Store: a.Jobs, Notifier: a.Notifier, Inactivity: c.Scheduler.InactivityTimeout,
			Approval:  safety.Asker{NonInteractive: string(c.Approvals.CronMode)},
			ScriptEnv: a.Tools.terminal.Environ, Expand: l.Expand},
		Clock:       a.opts.Clock,
		Logger:      a.Log,
		Hooks:       a.Hooks,
		Checkpoints: a.Checkpoints(),
	}
	if opts.Delegation, err = a.delegation(c.Delegation); err != nil {
		return engine.Options{}, err
	}
	if mainErr == nil {
		r, _ := a.Models.Main()
		if opts.Compressor, opts.Window, err = a.newCompressor(ctx, main, r); err != nil {
			return engine.Options{}, err
		}
	}
	if opts.Agents, err = a.roleAgents(); err != nil {
		return engine.Options{}, err
	}
	if opts.Users = a.engineUsers(); opts.Users != nil {
		opts.Admit = a.admit
	}
	opts.Teams = engine.Teams{Store: a.Team, Defs: a.teams()}
	if c.Memory.LongTerm.On() {
		m, err := a.Models.aux("auxiliary.memory", c.Auxiliary.Memory)
		if err != nil {
			return engine.Options{}, err
		}
		opts.LongTerm = &engine.LongTerm{Store: a.Facts, Model: m, ExtractAfter: c.Memory.ExtractAfter, MaxPerDay: c.Memory.LongTerm.MaxExtractionsPerDay,
			ExpireAfter: c.Memory.LongTerm.ExpireAfter}
	}
	return opts, nil
}

// newCompressor builds the context compressor for the main model: its
// window from model.context_length, else the built-in table of model
// families, else 128k; the summary written by auxiliary.compression or
// the main model. Nil when compression.enabled is false.
func (a *App) newCompressor(ctx context.Context, main engine.Model, r config.Resolved) (*compress.Compressor, *llm.Window, error) {
	c := a.Config.Config.Compression
	if !c.Enabled.Or(true) {
		return nil, nil, nil
	}
	sum, err := a.Models.aux("auxiliary.compression", a.Config.Config.Auxiliary.Compression)
	if err != nil {
		return nil, nil, err
	}
	w := llm.NewWindow(r.Model, r.ContextLength)
	if _, known := llm.ContextWindow(r.Model); !known && r.ContextLength == 0 {
		// A model the table does not know (a local one, often): ask the
		// server, which is usually on this machine and answers at once.
		if err := w.Probe(ctx, r.Endpoint(), nil); err != nil {
			a.Log.Info("context window not learned from the server; using the default", "error", err)
		}
	}
	window := w.Tokens()
	reply := main.MaxTokens
	if reply <= 0 {
		reply = min(8_192, window/8)
	}
	comp, err := compress.New(compress.Options{
		Window: window, ReplyBudget: reply,
		Threshold: c.Threshold, TargetRatio: c.TargetRatio, ProtectFirstN: c.ProtectFirstN, ProtectLastN: c.ProtectLastN,
		Summarizer: compress.ModelSummarizer{Provider: sum.Provider, Model: sum.Name},
		Clock:      a.opts.Clock,
		Logger:     a.Log,
	})
	if err != nil {
		return nil, nil, fmt.Errorf("config.yaml: compression: %w", err)
	}
	return comp, w, nil
}

// toolOverrides turns agent.tool_timeouts into dispatcher overrides. A
// name that is no tool is an error, since the timeout the user meant to
// set would otherwise silently not apply.
func toolOverrides(c config.Config, reg *tool.Registry) (map[string]tool.Override, error) {
	out := map[string]tool.Override{}
	for name, d := range c.Agent.ToolTimeouts {
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

// zone is the configured time zone, or nil (local time) when it is empty
// or unknown.
func zone(name string) *time.Location {
	if name == "" {
		return nil
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return nil
	}
	return loc
}

// delegation is the engine's delegation from config's, with the model
// children call when delegation.provider or model names one.
func (a *App) delegation(d config.Delegation) (engine.Delegation, error) {
	out := engine.Delegation{MaxIterations: d.MaxIterations, MaxConcurrent: d.MaxConcurrentChildren, MaxDepth: d.MaxSpawnDepth,
		ChildTimeout: d.ChildTimeout, IdleTimeout: d.IdleTimeout, ParentApproves: d.Approvals == config.DelegationParent}
	if d.Provider != "" || d.Model != "" {
		m, err := a.Models.aux("delegation", config.Fallback{Provider: d.Provider, Model: d.Model})
		if err != nil {
			return out, err
		}
		out.Model = &m
	}
	return out, nil
}

// Checkpoints is the home's checkpoint store when checkpoints.enabled,
// else nil.
func (a *App) Checkpoints() *checkpoint.Store {
	c := a.Config.Config.Checkpoints
	if !c.Enabled.Or(false) || a.Config.Paths.InMemory() {
		return nil
	}
	return a.CheckpointStore()
}

// CheckpointStore is the home's checkpoint store, whether or not turns
// add to it: hermes checkpoints reads it either way.
func (a *App) CheckpointStore() *checkpoint.Store {
	c := a.Config.Config.Checkpoints
	const mb = 1 << 20
	return checkpoint.Open(homeFile(a.Config, "checkpoints"), checkpoint.Options{
		MaxSnapshots: c.MaxSnapshots, MaxFileBytes: int64(c.MaxFileSizeMB) * mb, MaxTotalBytes: int64(c.MaxTotalSizeMB) * mb,
		Retention: time.Duration(c.RetentionDays) * 24 * time.Hour, Now: clock.OrReal(a.opts.Clock).Now,
	})
}
