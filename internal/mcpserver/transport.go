package mcpserver

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ServeStdio serves one client over stdin and stdout until the client
// closes stdin or ctx ends; both are a clean end and return nil. Stdout
// carries the protocol, so nothing else in the process may write to it:
// logs go to the Logger, which must write elsewhere (stderr).
//
// While it serves, ServeStdio watches the registry (see Watch).
func (s *Server) ServeStdio(ctx context.Context) error {
	return s.serve(ctx, &mcp.StdioTransport{})
}

// serve serves one session over t until it ends or ctx ends.
func (s *Server) serve(ctx context.Context, t mcp.Transport) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go s.Watch(ctx)
	ss, err := s.mcp.Connect(ctx, t, nil)
	if err != nil {
		return fmt.Errorf("mcpserver: connect: %w", err)
	}
	done := make(chan error, 1)
	go func() { done <- ss.Wait() }()
	select {
	case <-ctx.Done():
		_ = ss.Close()
		<-done
		s.ids.Delete(ss)
		return nil
	case err := <-done:
		s.ids.Delete(ss)
		if err == nil || errors.Is(err, io.EOF) || errors.Is(err, mcp.ErrConnectionClosed) {
			return nil
		}
		return fmt.Errorf("mcpserver: session: %w", err)
	}
}

// HTTPHandler returns the streamable HTTP endpoint (mount it at /mcp).
// Each client gets its own session, ended by the client's DELETE, by
// Close, or after SessionTimeout without requests. With Options.Token set,
// a request without "Authorization: Bearer <token>" gets 401 before
// anything else happens. Run Watch beside it so connected clients hear of
// tools that came or went.
func (s *Server) HTTPHandler() http.Handler {
	timeout := s.opts.SessionTimeout
	if timeout < 0 {
		timeout = 0
	}
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.mcp }, &mcp.StreamableHTTPOptions{
		Logger:         quiet(s.log),
		SessionTimeout: timeout,
	})
	if s.opts.Token == "" {
		return h
	}
	return bearer(s.opts.Token, h)
}

// Close ends every connected client session; serving calls in flight see
// their context cancelled. Call it when the HTTP server shuts down, since
// a client's open event stream would otherwise keep its connection busy.
func (s *Server) Close() error {
	var errs []error
	for ss := range s.mcp.Sessions() {
		if err := ss.Close(); err != nil && !errors.Is(err, mcp.ErrConnectionClosed) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// bearer refuses requests that do not carry the token. The comparison
// takes the same time however much of the token matches.
func bearer(token string, next http.Handler) http.Handler {
	want := []byte("Bearer " + token)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got := []byte(strings.TrimSpace(r.Header.Get("Authorization")))
		if subtle.ConstantTimeCompare(got, want) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="hermes"`)
			http.Error(w, "missing or wrong bearer token: send Authorization: Bearer <token> as configured for hermes mcp serve", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// ServeHTTP serves the streamable HTTP endpoint at /mcp on ln until ctx
// ends, telling connected clients of tool changes meanwhile (Watch); then
// it ends the client sessions and shuts the server down, giving requests
// in flight five seconds.
func (s *Server) ServeHTTP(ctx context.Context, ln net.Listener) error {
	mux := http.NewServeMux()
	mux.Handle("/mcp", s.HTTPHandler())
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go s.Watch(ctx)
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	s.Close()
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return nil
}
