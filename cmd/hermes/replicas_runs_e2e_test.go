package main

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/config"
	"github.com/hermes-go/hermes/internal/llm/llmtest"
	"github.com/hermes-go/hermes/internal/pgtest"
)

// A run of the API started on one replica is followed and stopped
// through another, as a client behind a round-robin balancer does: the
// second replica passes each request to the first, found on the roll,
// and the run's events stream through it; a key that is not the
// owner's gets nothing of the run from either.
func TestRunsAcrossReplicas(t *testing.T) {
	dsn := pgtest.NewDatabase(t)
	srv := llmtest.New(t)
	srv.Handle(func(r llmtest.Request) llmtest.Reply {
		if strings.Contains(r.LastUserText(), "slowly") {
			return llmtest.Reply{Text: "a long answer", Delay: time.Minute}
		}
		return llmtest.Reply{Text: "answer to: " + r.LastUserText(), Delay: 300 * time.Millisecond}
	})
	const key = "k-runs-0123456789"
	config := `model: {base_url: "` + srv.URL() + `/v1", default: test-model, api_mode: chat_completions, api_key: sk-test-123456}
memory: {long_term: false}
storage: {driver: postgres, dsn: '` + dsn + `'}
api: {enabled: true}
tenants:
  acme: {}
users:
  ana: {tenant: acme, api_key_sha256: ` + config.HashAPIKey("k-ana-0123456789") + `}
`
	rs := newReplicaSet(t, 2, config, key)
	for i := range rs.homes {
		if err := rs.start(i); err != nil {
			t.Fatal(err)
		}
	}
	a, b := "http://"+rs.addrs[0], "http://"+rs.addrs[1]
	run := runCall(t, a, key, "POST", "/v1/runs", `{"input":"the weekly report"}`, http.StatusAccepted)
	id := run["id"].(string)
	// The events, through replica 1, from the start to the end.
	events := runUntil(t, runWatch(t, t.Context(), b, key, id), "run.completed")
	if events[0].name != "run.started" || events[len(events)-1].data["output"] != "answer to: the weekly report" {
		t.Fatalf("events through replica 1: %+v", events)
	}
	if got := runCall(t, b, key, "GET", "/v1/runs/"+id, "", http.StatusOK); got["status"] != "completed" {
		t.Errorf("GET through replica 1: %v", got)
	}
	// Another user's key: the run is unknown, on either replica.
	for _, base := range []string{a, b} {
		runCall(t, base, "k-ana-0123456789", "GET", "/v1/runs/"+id, "", http.StatusNotFound)
	}

	// A run held on replica 1, stopped through replica 0.
	id = runCall(t, b, key, "POST", "/v1/runs", `{"input":"answer slowly"}`, http.StatusAccepted)["id"].(string)
	runCall(t, a, key, "POST", "/v1/runs/"+id+"/stop", "", http.StatusOK)
	deadline := time.Now().Add(20 * time.Second)
	for {
		got := runCall(t, a, key, "GET", "/v1/runs/"+id, "", http.StatusOK)
		if got["status"] == "cancelled" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the run stopped through replica 0 is %v", got)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
