package main

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/config"
	"github.com/hermes-go/hermes/internal/pgtest"
	"github.com/hermes-go/hermes/llm/llmtest"
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
	send := func(method, url, key, body string) (int, []byte) {
		t.Helper()
		req, _ := http.NewRequest(method, url, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+key)
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		out, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, out
	}
	var run struct{ ID, Status string }
	code, body := send("POST", a+"/v1/runs", key, `{"input":"the weekly report"}`)
	if code != http.StatusAccepted || json.Unmarshal(body, &run) != nil {
		t.Fatalf("POST /v1/runs on replica 0: %d %s", code, body)
	}
	// The events, through replica 1, from the start to the end.
	req, _ := http.NewRequest("GET", b+"/v1/runs/"+run.ID+"/events", nil)
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("events through replica 1: %d %s\n%s", resp.StatusCode, b, rs.logs[1].String())
	}
	var names []string
	var final string
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := sc.Text()
		if name, ok := strings.CutPrefix(line, "event: "); ok {
			names = append(names, name)
		}
		if data, ok := strings.CutPrefix(line, "data: "); ok && strings.Contains(data, `"output"`) {
			var d struct{ Output string }
			json.Unmarshal([]byte(data), &d)
			final = d.Output
		}
		if len(names) > 0 && names[len(names)-1] == "run.completed" && line == "" {
			break
		}
	}
	if len(names) < 2 || names[0] != "run.started" || names[len(names)-1] != "run.completed" || final != "answer to: the weekly report" {
		t.Fatalf("events through replica 1: %v, output %q", names, final)
	}
	code, body = send("GET", b+"/v1/runs/"+run.ID, key, "")
	if code != http.StatusOK || !strings.Contains(string(body), `"status":"completed"`) {
		t.Errorf("GET through replica 1: %d %s", code, body)
	}
	// Another user's key: the run is unknown, on either replica.
	for i, base := range []string{a, b} {
		if code, body := send("GET", base+"/v1/runs/"+run.ID, "k-ana-0123456789", ""); code != http.StatusNotFound {
			t.Errorf("another user's GET on replica %d: %d %s", i, code, body)
		}
	}

	// A run held on replica 1, stopped through replica 0.
	code, body = send("POST", b+"/v1/runs", key, `{"input":"answer slowly"}`)
	if code != http.StatusAccepted || json.Unmarshal(body, &run) != nil {
		t.Fatalf("POST /v1/runs on replica 1: %d %s", code, body)
	}
	if code, body := send("POST", a+"/v1/runs/"+run.ID+"/stop", key, ""); code != http.StatusOK {
		t.Fatalf("stop through replica 0: %d %s", code, body)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		code, body = send("GET", a+"/v1/runs/"+run.ID, key, "")
		if strings.Contains(string(body), `"status":"cancelled"`) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the run stopped through replica 0 is %d %s", code, body)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
