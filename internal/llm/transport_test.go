package llm

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// stallServer writes head, flushes, then blocks until the client goes away,
// reporting on done when it noticed.
func stallServer(t *testing.T, beforeHeaders bool, head string) (*httptest.Server, <-chan struct{}) {
	t.Helper()
	done := make(chan struct{}, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !beforeHeaders {
			w.Header().Set("Content-Type", "text/event-stream")
			w.WriteHeader(200)
			_, _ = io.WriteString(w, head)
			w.(http.Flusher).Flush()
		}
		<-r.Context().Done()
		done <- struct{}{}
	}))
	t.Cleanup(srv.Close)
	return srv, done
}

func TestSendTimeouts(t *testing.T) {
	tests := []struct {
		name          string
		beforeHeaders bool
		timeouts      Timeouts
		wantPhase     string
	}{
		{"first byte", true, Timeouts{FirstByte: 50 * time.Millisecond, Idle: time.Hour}, "first byte"},
		{"idle after some data", false, Timeouts{FirstByte: time.Hour, Idle: 50 * time.Millisecond}, "idle"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, done := stallServer(t, tt.beforeHeaders, "data: {}\n\n")
			req, _ := http.NewRequest("GET", srv.URL, nil)
			resp, err := Send(context.Background(), srv.Client(), tt.timeouts, "p", req)
			if err == nil {
				defer resp.Body.Close()
				_, err = io.ReadAll(resp.Body)
			}
			e, ok := AsError(err)
			if !ok || e.Kind != ErrNetwork {
				t.Fatalf("err = %v, want a network *Error", err)
			}
			var te *timeoutError
			if !errors.As(err, &te) || te.phase != tt.wantPhase {
				t.Fatalf("err = %v, want a %s timeout", err, tt.wantPhase)
			}
			select {
			case <-done:
			case <-time.After(5 * time.Second):
				t.Fatal("server never saw the request aborted")
			}
		})
	}
}

func TestSendCancelAbortsAtOnce(t *testing.T) {
	srv, done := stallServer(t, false, "data: partial\n\n")
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequest("GET", srv.URL, nil)
	resp, err := Send(ctx, srv.Client(), Timeouts{FirstByte: time.Hour, Idle: time.Hour}, "p", req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	buf := make([]byte, 64)
	if _, err := resp.Body.Read(buf); err != nil {
		t.Fatal(err)
	}
	cancel()
	_, err = io.ReadAll(resp.Body)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("read after cancel: err = %v, want context.Canceled", err)
	}
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("server never saw the request aborted")
	}
}

func TestSendConnectFailureIsNetwork(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close()
	req, _ := http.NewRequest("GET", url, nil)
	_, err := Send(context.Background(), http.DefaultClient, Timeouts{}, "local", req)
	if e, ok := AsError(err); !ok || e.Kind != ErrNetwork || e.Provider != "local" {
		t.Fatalf("err = %v, want a network *Error from provider local", err)
	}
}
