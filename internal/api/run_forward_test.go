package api_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/hermes-go/hermes/internal/agent"
	"github.com/hermes-go/hermes/internal/api"
)

// replicaPair is two API servers sharing their runs' whereabouts as
// replicas do through the roll: a run's id names the replica holding it,
// and each finds the other's URL by that name.
type replicaPair struct {
	a, b   *httptest.Server
	peered atomic.Int32 // Peer lookups
}

func newReplicaPair(t *testing.T, opt api.Options) *replicaPair {
	t.Helper()
	p := &replicaPair{}
	urls := map[string]*string{}
	peer := func(_ context.Context, name string) (string, error) {
		p.peered.Add(1)
		if u, ok := urls[name]; ok {
			return *u, nil
		}
		return "", errors.New("no live replica " + name)
	}
	optA, optB := opt, opt
	optA.Replica, optA.Peer = "aaaa0001", peer
	optB.Replica, optB.Peer = "bbbb0002", peer
	p.a, p.b = newServer(t, optA), newServer(t, optB)
	urls["aaaa0001"], urls["bbbb0002"] = &p.a.URL, &p.b.URL
	return p
}

// A run started on one replica is followed, read, answered and stopped
// through the other: its id names its replica, and the other passes each
// request there, the events streaming through as they come.
func TestRunRequestsReachTheReplicaHoldingTheRun(t *testing.T) {
	release := make(chan struct{})
	script := scripted(release)
	p := newReplicaPair(t, api.Options{Run: func(ctx context.Context, tn api.Turn, sink agent.Sink) (*api.Result, error) {
		if tn.Text != "hold" {
			return script(ctx, tn, sink)
		}
		tn.Started("s-held")
		<-ctx.Done()
		return &api.Result{SessionID: "s-held", Result: &agent.Result{Stopped: agent.StopInterrupted, Err: ctx.Err()}}, nil
	}})
	r := startRun(t, p.a, `{"input":"the report"}`)
	if !strings.HasPrefix(r.ID, "run_aaaa0001_") {
		t.Fatalf("a run's id %q does not name its replica", r.ID)
	}
	events := watch(t, context.Background(), p.b, r.ID)
	if n := names(until(t, events, "usage")); n != "run.started text.delta tool.started tool.finished usage" {
		t.Fatalf("events through the other replica = %s", n)
	}
	if v := decode[runJSON](t, call(t, context.Background(), p.b, "", "GET", "/v1/runs/"+r.ID, ""), http.StatusOK); v.ID != r.ID || v.Status != "running" {
		t.Fatalf("GET through the other replica = %+v", v)
	}
	close(release)
	if e := until(t, events, "run.completed"); e[len(e)-1].data["output"] != "working on the report" {
		t.Errorf("run.completed through the other replica = %+v", e[len(e)-1].data)
	}

	held := startRun(t, p.b, `{"input":"hold"}`)
	stopping := watch(t, context.Background(), p.a, held.ID)
	if resp := call(t, context.Background(), p.a, "", "POST", "/v1/runs/"+held.ID+"/stop", ""); resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusAccepted {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("stop through the other replica: %d %s", resp.StatusCode, b)
	}
	if e := until(t, stopping, "run.cancelled"); len(e) == 0 {
		t.Fatal("no run.cancelled")
	}
}

// What a replica does not pass on: a run it holds, an id naming no live
// replica or not shaped as a replica's name, and a request another
// replica passed on already (so two replicas never pass one back and
// forth); each is answered here, as a run this replica does not know.
// A caller without a key is refused before anything is passed on.
func TestRunRequestsNotPassedOn(t *testing.T) {
	p := newReplicaPair(t, api.Options{Keys: []string{"sk-owner-1234"}})
	for _, id := range []string{"run_cccc0003_00ff", "run_AAAA0001_00ff", "run_aaaa0001", "run_../../etc_x", "run_0123456789abcdef0_x"} {
		resp := call(t, context.Background(), p.b, "sk-owner-1234", "GET", "/v1/runs/"+id, "")
		if resp.StatusCode != http.StatusNotFound {
			t.Errorf("%s: status %d, want 404", id, resp.StatusCode)
		}
	}
	req, _ := http.NewRequest("GET", p.b.URL+"/v1/runs/run_aaaa0001_00ff", nil)
	req.Header.Set("Authorization", "Bearer sk-owner-1234")
	req.Header.Set("X-Hermes-Forwarded-By", "aaaa0001")
	before := p.peered.Load()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound || p.peered.Load() != before {
		t.Errorf("a request passed on already: status %d, %d lookups; want 404 and none", resp.StatusCode, p.peered.Load()-before)
	}
	if resp := call(t, context.Background(), p.b, "", "GET", "/v1/runs/run_aaaa0001_00ff", ""); resp.StatusCode != http.StatusUnauthorized || p.peered.Load() != before {
		t.Errorf("a caller without a key: status %d, %d lookups; want 401 and none", resp.StatusCode, p.peered.Load()-before)
	}
}
