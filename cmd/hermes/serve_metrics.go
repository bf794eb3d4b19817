package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"

	"github.com/hermes-go/hermes/internal/app"
)

// startMetrics serves /metrics on observability.metrics_listen when it is
// set, and returns a function that waits for it to stop (after ctx
// ends). The configuration has refused an address other machines reach
// unless metrics_allow_remote is set: this listener asks for no key.
func startMetrics(ctx context.Context, h *app.App, out io.Writer) (wait func() error, err error) {
	addr := h.Config.Config.Observability.MetricsAddr()
	if addr == "" {
		return func() error { return nil }, nil
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("observability.metrics_listen %q: %w", addr, err)
	}
	fmt.Fprintf(out, "metrics: listening on http://%s/metrics\n", ln.Addr())
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", h.Metrics)
	return serveHTTP(ctx, ln, mux), nil
}
