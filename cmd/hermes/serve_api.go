package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/hermes-go/hermes/internal/app"
)

// startAPI starts the OpenAI-compatible server when api.enabled is set,
// and returns a function that waits for it to stop (after ctx ends).
func startAPI(ctx context.Context, h *app.App, out io.Writer) (wait func() error, err error) {
	cfg := h.Config.Config.API
	if !cfg.Enabled {
		return func() error { return nil }, nil
	}
	handler, err := h.APIHandler()
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", cfg.Listen)
	if err != nil {
		return nil, fmt.Errorf("api.listen %q: %w", cfg.Listen, err)
	}
	fmt.Fprintf(out, "api: listening on http://%s\n", ln.Addr())
	// Runs go on without their requests: they are stopped with serve,
	// which also ends the watchers of their events.
	context.AfterFunc(ctx, handler.Close)
	served := serveHTTP(ctx, ln, handler)
	return func() error {
		err := served()
		handler.Close()
		return err
	}, nil
}

// serveHTTP serves h on ln until ctx ends, then shuts the server down
// with 5 s for requests in flight, and returns a function that waits for
// it to stop and reports why it stopped if not by the shutdown. Requests
// see ctx as their base, so ending it also cancels the turns they run.
func serveHTTP(ctx context.Context, ln net.Listener, h http.Handler) (wait func() error) {
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second,
		BaseContext: func(net.Listener) context.Context { return ctx }}
	done := make(chan error, 1)
	go func() {
		if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
			done <- err
			return
		}
		done <- nil
	}()
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(sctx)
	}()
	return func() error { return <-done }
}
