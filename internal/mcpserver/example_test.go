package mcpserver_test

import (
	"context"
	"log/slog"
	"os"
	"os/signal"

	"github.com/hermes-go/hermes/internal/mcpserver"
	"github.com/hermes-go/hermes/internal/safety"
	"github.com/hermes-go/hermes/internal/tool"
)

// Serving a registry's tools to Claude Desktop over stdio: the registry
// is narrowed to the toolsets to expose, the approval policy asks nobody,
// and logs go to stderr because stdout carries the protocol.
func Example() {
	all := tool.NewRegistry() // registered by the caller's wiring
	view, err := all.Select([]string{"web", "files"}, nil)
	if err != nil {
		panic(err)
	}
	policy := &safety.Policy{} // non-interactive: dangerous commands are denied
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	srv := mcpserver.New(mcpserver.Options{
		Registry:     view,
		Dispatcher:   &tool.Dispatcher{Registry: view, Logger: log},
		Approver:     func(sessionID string) tool.Approver { return policy.For(sessionID, safety.Asker{}) },
		OnSessionEnd: policy.EndSession,
		Workdir:      "/srv/work",
		Version:      "1.0.0",
		Logger:       log,
	})
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := srv.ServeStdio(ctx); err != nil {
		log.Error("mcp serve", "error", err)
	}
}
