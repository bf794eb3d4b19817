package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// connWatch sees the connections every replica holds to one platform,
// each replica reaching it through a front of its own: how many replicas
// held one at the same moment, and when each first connected.
type connWatch struct {
	mu      sync.Mutex
	open    map[string]int // live connections by replica
	most    int            // most replicas holding a connection at once
	first   map[string]time.Time
	changed chan struct{} // closed and replaced on every change
}

func newConnWatch() *connWatch {
	return &connWatch{open: map[string]int{}, first: map[string]time.Time{}, changed: make(chan struct{})}
}

// opened counts a connection of replica until the returned func is
// called.
func (w *connWatch) opened(replica string) (closed func()) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.open[replica]++
	holders := 0
	for _, n := range w.open {
		if n > 0 {
			holders++
		}
	}
	w.most = max(w.most, holders)
	if _, ok := w.first[replica]; !ok {
		w.first[replica] = time.Now()
	}
	w.changedLocked()
	return sync.OnceFunc(func() {
		w.mu.Lock()
		defer w.mu.Unlock()
		w.open[replica]--
		w.changedLocked()
	})
}

func (w *connWatch) changedLocked() {
	close(w.changed)
	w.changed = make(chan struct{})
}

// firstConn is when replica first connected, false when it never did.
func (w *connWatch) firstConn(replica string) (time.Time, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	at, ok := w.first[replica]
	return at, ok
}

// mostHolders is the most replicas that held a connection at once.
func (w *connWatch) mostHolders() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.most
}

// waitFirst waits up to 30 s for replica's first connection and returns
// its time.
func (w *connWatch) waitFirst(t *testing.T, replica string) time.Time {
	t.Helper()
	deadline := time.NewTimer(30 * time.Second)
	defer deadline.Stop()
	for {
		w.mu.Lock()
		at, ok := w.first[replica]
		changed := w.changed
		w.mu.Unlock()
		if ok {
			return at
		}
		select {
		case <-changed:
		case <-deadline.C:
			t.Fatalf("replica %s did not connect to the platform within 30 s", replica)
		}
	}
}

// wsFront is backend (an http:// root) as replica reaches it: every
// request is passed on, each WebSocket counted in w for as long as it
// lasts, and the backend's address in a JSON answer (the Gateway or
// Socket Mode URL a client is told to connect to) becomes the front's,
// so that the WebSocket comes through the front too. It returns the
// front's root.
func wsFront(t *testing.T, w *connWatch, replica, backend string) string {
	t.Helper()
	target, err := url.Parse(backend)
	if err != nil {
		t.Fatal(err)
	}
	var front string
	proxy := &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) { r.SetURL(target) },
		ModifyResponse: func(resp *http.Response) error {
			if resp.StatusCode != http.StatusOK || !strings.Contains(resp.Header.Get("Content-Type"), "json") {
				return nil
			}
			body, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if err != nil {
				return err
			}
			body = bytes.ReplaceAll(body, []byte("//"+target.Host), []byte("//"+front))
			resp.Body = io.NopCloser(bytes.NewReader(body))
			resp.ContentLength = int64(len(body))
			resp.Header.Set("Content-Length", strconv.Itoa(len(body)))
			return nil
		},
	}
	srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		if strings.EqualFold(r.Header.Get("Upgrade"), "websocket") {
			defer w.opened(replica)()
		}
		proxy.ServeHTTP(rw, r)
	}))
	front = strings.TrimPrefix(srv.URL, "http://")
	t.Cleanup(srv.Close)
	return srv.URL
}

// tcpFront is the TCP server at backend as replica reaches it, each
// connection counted in w for as long as it lasts. It returns the
// front's host:port.
func tcpFront(t *testing.T, w *connWatch, replica, backend string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	t.Cleanup(func() {
		cancel()
		ln.Close()
		wg.Wait()
	})
	wg.Go(func() {
		for {
			in, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Go(func() { pipe(ctx, w, replica, in, backend) })
		}
	})
	return ln.Addr().String()
}

// pipe joins in to a new connection to backend until either side ends
// or ctx does.
func pipe(ctx context.Context, w *connWatch, replica string, in net.Conn, backend string) {
	defer in.Close()
	var d net.Dialer
	out, err := d.DialContext(ctx, "tcp", backend)
	if err != nil {
		return
	}
	defer out.Close()
	defer w.opened(replica)()
	stop := context.AfterFunc(ctx, func() { in.Close(); out.Close() })
	defer stop()
	done := make(chan struct{}, 2)
	go func() { io.Copy(out, in); done <- struct{}{} }()
	go func() { io.Copy(in, out); done <- struct{}{} }()
	<-done
	in.Close()
	out.Close()
	<-done
}

// leads checks that hermes gateway status, run in h, names the replica
// with pid as the one receiving from the platform.
func leads(t *testing.T, h *home, platform string, pid int) {
	t.Helper()
	r := h.hermes("gateway", "status")
	if want := fmt.Sprintf("/%d", pid); r.code != 0 || !strings.Contains(r.stdout, "received by replica ") || !strings.Contains(r.stdout, want+"\n") {
		t.Fatalf("hermes gateway status (exit %d) does not name replica %d as receiving from %s:\n%s%s", r.code, pid, platform, r.stdout, r.stderr)
	}
}
