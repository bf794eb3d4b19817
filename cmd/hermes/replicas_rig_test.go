package main

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// replicaSet is several hermes serve processes sharing one PostgreSQL
// database, each with a home of its own holding the same files (as a
// config repository would give them), its API on a port of its own.
type replicaSet struct {
	t     testing.TB
	homes []*home
	addrs []string // each replica's API address

	mu    sync.Mutex
	procs []*exec.Cmd
	waits []chan struct{}
	logs  []*syncBuffer
	kills int
}

// newReplicaSet writes n homes whose config.yaml is config plus the API
// on a free port of each, and .env the API key.
func newReplicaSet(t testing.TB, n int, config, key string) *replicaSet {
	t.Helper()
	rs := &replicaSet{t: t, procs: make([]*exec.Cmd, n), waits: make([]chan struct{}, n), logs: make([]*syncBuffer, n)}
	for range n {
		h := newHome(t)
		addr := freePort(t)
		h.write(".env", "HERMES_API_KEY="+key+"\n")
		// The API's address is an environment variable, so every home's
		// config.yaml is the same file.
		h.env = append(h.env, "HERMES_API_LISTEN="+addr)
		h.write("config.yaml", config)
		rs.homes, rs.addrs = append(rs.homes, h), append(rs.addrs, addr)
	}
	t.Cleanup(rs.stopAll)
	return rs
}

// start starts replica i and waits until its API answers. It reports
// a replica that does not come up as an error, since the test's killer
// calls it from a goroutine of its own.
func (rs *replicaSet) start(i int) error {
	cmd := exec.Command(hermesBin, "serve")
	cmd.Env, cmd.Dir = rs.homes[i].env, rs.homes[i].dir
	logs := &syncBuffer{}
	cmd.Stdout, cmd.Stderr = logs, logs
	if err := cmd.Start(); err != nil {
		return err
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	rs.mu.Lock()
	rs.procs[i], rs.waits[i], rs.logs[i] = cmd, done, logs
	rs.mu.Unlock()
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := http.Get("http://" + rs.addrs[i] + "/health")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return nil
			}
		}
		select {
		case <-done:
			return fmt.Errorf("replica %d exited at start:\n%s", i, logs.String())
		default:
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("replica %d did not answer /health within 30s:\n%s", i, logs.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// kill kills replica i with SIGKILL, as a crash or an OOM kill would,
// and waits until it is gone.
func (rs *replicaSet) kill(i int) {
	rs.mu.Lock()
	cmd, done := rs.procs[i], rs.waits[i]
	rs.kills++
	rs.mu.Unlock()
	cmd.Process.Signal(syscall.SIGKILL)
	<-done
}

// killed is how many kills there were so far.
func (rs *replicaSet) killed() int {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	return rs.kills
}

// stopAll stops every replica still running with SIGINT, and shows the
// logs of all when the test failed.
func (rs *replicaSet) stopAll() {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	for i, cmd := range rs.procs {
		if cmd == nil {
			continue
		}
		cmd.Process.Signal(os.Interrupt)
		select {
		case <-rs.waits[i]:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-rs.waits[i]
		}
		if rs.t.Failed() {
			rs.t.Logf("replica %d's log (last 8 KB):\n%s", i, tail(rs.logs[i].String(), 8<<10))
		}
	}
}

// tail is the last n bytes of s.
func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[len(s)-n:]
}

// roundRobin is a load balancer in front of the replicas' APIs: each
// request goes to the next replica in turn; one that is down answers
// 502, which clients retry.
func roundRobin(t testing.TB, addrs []string) string {
	t.Helper()
	var next atomic.Uint64
	proxies := make([]*httputil.ReverseProxy, len(addrs))
	for i, a := range addrs {
		u, _ := url.Parse("http://" + a)
		p := httputil.NewSingleHostReverseProxy(u)
		p.ErrorLog = nil
		p.ErrorHandler = func(w http.ResponseWriter, _ *http.Request, err error) {
			http.Error(w, fmt.Sprintf("replica %d: %v", i, err), http.StatusBadGateway)
		}
		proxies[i] = p
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		proxies[int(next.Add(1)%uint64(len(proxies)))].ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// every runs f every d until ctx ends.
func every(ctx context.Context, d time.Duration, f func()) {
	tick := time.NewTicker(d)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			f()
		}
	}
}
