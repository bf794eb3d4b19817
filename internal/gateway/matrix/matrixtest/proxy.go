package matrixtest

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// Proxy stands between a client and the homeserver and adds faults to
// what the homeserver answers: sends refused with 429 M_LIMIT_EXCEEDED, a
// sync whose answer is lost with its connection, and a sync batch
// delivered twice. Everything else passes through unchanged.
type Proxy struct {
	// URL is the address to give the client as its homeserver.
	URL      string
	upstream string
	srv      *httptest.Server

	mu          sync.Mutex
	limitSends  int
	retryAfter  time.Duration
	limited     int
	dropWith    []string
	dropped     int
	redeliver   []string
	replaySince string
	redelivered int
	sends       []string // the paths of sends that reached the homeserver
}

// Proxy starts a fault proxy in front of hs, closed when the test ends.
func (hs *Homeserver) Proxy(t testing.TB) *Proxy {
	p := &Proxy{upstream: hs.URL}
	p.srv = httptest.NewServer(p)
	p.URL = p.srv.URL
	t.Cleanup(func() { p.srv.CloseClientConnections(); p.srv.Close() })
	return p
}

// RateLimitSends answers the next n sends (PUT …/send/…) with 429
// M_LIMIT_EXCEEDED and retry_after_ms of d, without passing them on.
func (p *Proxy) RateLimitSends(n int, d time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.limitSends, p.retryAfter = n, d
}

// Limited is how many sends were refused by RateLimitSends.
func (p *Proxy) Limited() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.limited
}

// DropSyncWith loses the first sync answer that holds text: the
// homeserver has answered, and the connection is closed before the
// client reads it.
func (p *Proxy) DropSyncWith(text string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.dropWith = append(p.dropWith, text)
}

// Dropped is how many sync answers DropSyncWith lost.
func (p *Proxy) Dropped() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.dropped
}

// RedeliverWith delivers the first sync batch holding text twice: the
// sync after it is made from the same position again.
func (p *Proxy) RedeliverWith(text string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.redeliver = append(p.redeliver, text)
}

// Redelivered is how many batches RedeliverWith delivered again.
func (p *Proxy) Redelivered() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.redelivered
}

// Sends are the paths of the sends that reached the homeserver, in
// order; each ends in its transaction id.
func (p *Proxy) Sends() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.sends...)
}

// ServeHTTP passes a request on, adding the faults asked for.
func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	isSend := r.Method == http.MethodPut && strings.Contains(r.URL.Path, "/send/")
	isSync := strings.HasSuffix(r.URL.Path, "/sync")
	p.mu.Lock()
	if isSend && p.limitSends > 0 {
		p.limitSends--
		p.limited++
		ms := p.retryAfter.Milliseconds()
		p.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusTooManyRequests)
		fmt.Fprintf(w, `{"errcode":"M_LIMIT_EXCEEDED","error":"Too many requests","retry_after_ms":%d}`, ms)
		return
	}
	since := r.URL.Query().Get("since")
	if isSync && since != "" && p.replaySince != "" {
		q := r.URL.Query()
		q.Set("since", p.replaySince)
		r.URL.RawQuery = q.Encode()
		since, p.replaySince = p.replaySince, ""
		p.redelivered++
	}
	if isSend {
		p.sends = append(p.sends, r.URL.Path)
	}
	p.mu.Unlock()

	status, header, body, err := p.forward(r)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	if isSync && status == http.StatusOK {
		if p.take(&p.dropWith, body) {
			p.mu.Lock()
			p.dropped++
			p.mu.Unlock()
			if conn, _, err := http.NewResponseController(w).Hijack(); err == nil {
				conn.Close()
			}
			return
		}
		if since != "" && p.take(&p.redeliver, body) {
			p.mu.Lock()
			p.replaySince = since
			p.mu.Unlock()
		}
	}
	for k, vs := range header {
		for _, v := range vs {
			w.Header().Add(k, v)
		}
	}
	w.WriteHeader(status)
	w.Write(body)
}

// take removes and reports the first text of list found in body.
func (p *Proxy) take(list *[]string, body []byte) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	for i, text := range *list {
		if bytes.Contains(body, []byte(text)) {
			*list = append((*list)[:i], (*list)[i+1:]...)
			return true
		}
	}
	return false
}

// forward makes r's request to the homeserver, ending with r's context.
func (p *Proxy) forward(r *http.Request) (int, http.Header, []byte, error) {
	req, err := http.NewRequestWithContext(r.Context(), r.Method, p.upstream+r.URL.RequestURI(), r.Body)
	if err != nil {
		return 0, nil, nil, err
	}
	req.Header = r.Header.Clone()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, nil, nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, nil, nil, err
	}
	h := resp.Header.Clone()
	h.Del("Content-Length")
	return resp.StatusCode, h, body, nil
}
