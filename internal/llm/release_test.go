package llm

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"
)

// A body read to its end lets the next request reuse the connection; a
// server that keeps the body open after the reply costs a bounded wait,
// and an interrupted call does not wait at all.
func TestRelease(t *testing.T) {
	hold := make(chan struct{})
	defer close(hold)
	var conns atomic.Int32
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "data: [DONE]\n\n")
		w.(http.Flusher).Flush()
		if r.URL.Path == "/hold" {
			select {
			case <-hold:
			case <-r.Context().Done():
			}
		}
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	defer srv.Close()

	get := func(path string) *http.Response {
		t.Helper()
		resp, err := srv.Client().Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		buf := make([]byte, len("data: [DONE]\n\n"))
		if _, err := io.ReadFull(resp.Body, buf); err != nil {
			t.Fatal(err)
		}
		return resp
	}
	for range 5 {
		Release(context.Background(), get("/").Body)
	}
	if n := conns.Load(); n != 1 {
		t.Errorf("5 calls released this way opened %d connections, want 1", n)
	}

	start := time.Now()
	Release(context.Background(), get("/hold").Body)
	if d := time.Since(start); d > releaseWait+time.Second {
		t.Errorf("releasing a body the server holds open took %v", d)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	start = time.Now()
	Release(ctx, get("/hold").Body)
	if d := time.Since(start); d >= releaseWait {
		t.Errorf("releasing after an interrupt took %v, want no wait", d)
	}
}
