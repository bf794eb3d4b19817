package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/hermes-go/hermes/internal/app"
	"github.com/hermes-go/hermes/internal/config"
)

// open assembles hermes for a command that runs turns or tools, with the
// configuration, logger and version filled in. The caller closes it.
func (a *cli) open(cmd *cobra.Command, o app.Options) (*app.App, error) {
	l, err := a.load(cmd)
	if err != nil {
		return nil, err
	}
	o.Config, o.Logger, o.Version = l, a.logger(cmd), version
	return app.Open(cmd.Context(), o)
}

// openStores opens state.db and its stores for a command that only reads
// or changes stored state. The caller closes it.
func (a *cli) openStores(cmd *cobra.Command) (*app.App, error) {
	l, err := a.load(cmd)
	if err != nil {
		return nil, err
	}
	return app.OpenStores(cmd.Context(), app.Options{Config: l, Logger: a.logger(cmd)})
}

// turnFlags are the flags of every command that runs turns.
type turnFlags struct {
	modelFlags
	toolsets string
	maxTurns int
	yolo     bool
}

func (f *turnFlags) register(cmd *cobra.Command) {
	f.modelFlags.register(cmd)
	fl := cmd.Flags()
	fl.StringVar(&f.toolsets, "toolsets", "", "comma-separated toolsets to offer (default: config toolsets, else all)")
	fl.IntVar(&f.maxTurns, "max-turns", 0, "iteration budget of a turn (default: agent.max_turns)")
	fl.BoolVar(&f.yolo, "yolo", false, "run dangerous commands without asking (hardline commands and approvals.deny still never run)")
}

// options are the app options the flags ask for.
func (f *turnFlags) options() app.Options {
	return app.Options{
		Model:    f.override(),
		Toolsets: splitList(f.toolsets),
		MaxTurns: f.maxTurns,
	}
}

// openTurns assembles hermes for a command that runs turns, and checks up
// front what every turn needs: a model, and toolsets that exist. The MCP
// servers are connected, so their tools are offered from the first turn.
func (a *cli) openTurns(cmd *cobra.Command, f *turnFlags, o app.Options) (*app.App, error) {
	h, err := a.open(cmd, o)
	if err != nil {
		return nil, err
	}
	if _, err := h.Models.Main(); err != nil {
		h.Close()
		return nil, err
	}
	if _, err := h.Engine.Toolbox(nil); err != nil {
		h.Close()
		return nil, toolsetsError(f.toolsets, err)
	}
	h.StartMCP(cmd.Context())
	return h, nil
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

// override is the model the endpoint flags select.
func (f *modelFlags) override() config.ModelOverride {
	return config.ModelOverride{Provider: f.provider, Model: f.model, BaseURL: f.baseURL, APIMode: f.api, APIKey: f.apiKey}
}

// toolsetsError says where an unknown toolset came from: the --toolsets
// flag when it was given, else config.yaml.
func toolsetsError(flag string, err error) error {
	if flag != "" {
		return fmt.Errorf("--toolsets: %w", err)
	}
	return fmt.Errorf("config.yaml: toolsets: %w", err)
}
