package main

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/llm/llmtest"
	"github.com/hermes-go/hermes/internal/trace/tracetest"
)

// observed is a hermes serve started for the observability tests.
type observed struct {
	h       *home
	api     string // the API's base URL
	metrics string // metrics_listen's base URL, when set
	stop    func()
	logs    *syncBuffer
}

// serveObserved starts hermes serve with the API on listen (host:port)
// and key, the model srv, and extra YAML; it reads where the API and the
// metrics listen from serve's output. secrets must never be in its log.
func serveObserved(t *testing.T, srv *llmtest.Server, listen, key, extra, env string, secrets ...string) *observed {
	t.Helper()
	h := newHome(t)
	h.write(".env", "HERMES_API_KEY="+key+"\n"+env)
	h.write("config.yaml", `model: {base_url: "`+srv.URL()+`/v1", default: test-model, api_mode: chat_completions, api_key: sk-test-123456}
memory: {long_term: false}
pricing: {test-model: {input: 1, output: 2}}
api: {enabled: true, listen: "`+listen+`"}
`+extra)
	cmd := exec.Command(hermesBin, "serve")
	cmd.Env, cmd.Dir = h.env, h.dir
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	o := &observed{h: h, logs: &syncBuffer{}}
	cmd.Stderr = o.logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	o.stop = serveStopper(t, cmd, o.logs, append(secrets, key)...)
	t.Cleanup(o.stop)
	sc := bufio.NewScanner(stdout)
	for (o.api == "" || (strings.Contains(extra, "metrics_listen") && o.metrics == "")) && sc.Scan() {
		line := sc.Text()
		if u, ok := strings.CutPrefix(line, "api: listening on "); ok {
			o.api = strings.Replace(u, "0.0.0.0", "127.0.0.1", 1)
		}
		if u, ok := strings.CutPrefix(line, "metrics: listening on "); ok {
			o.metrics = strings.TrimSuffix(u, "/metrics")
		}
	}
	go io.Copy(io.Discard, stdout)
	if o.api == "" {
		t.Fatalf("serve did not say where the API listens:\n%s", o.logs.String())
	}
	return o
}

// scrapeMetrics gets base/metrics with key ("" sends none) and returns
// the status and the samples by name and labels.
func scrapeMetrics(t *testing.T, base, key string) (int, map[string]string) {
	t.Helper()
	req, _ := http.NewRequest("GET", base+"/metrics", nil)
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	out := map[string]string{}
	for _, line := range strings.Split(string(b), "\n") {
		if i := strings.LastIndexByte(line, ' '); i > 0 && !strings.HasPrefix(line, "#") {
			out[line[:i]] = line[i+1:]
		}
	}
	return resp.StatusCode, out
}

// A scripted API turn — one tool call, two model calls with known usage
// — shows in /metrics, on the API behind its key and on metrics_listen,
// by name and value; and its spans reach a collector: the turn, under it
// both model calls and the tool call, with the GenAI attributes. The
// collector's key goes in each export and never in the log.
func TestObservabilityOfATurn(t *testing.T) {
	srv := llmtest.New(t)
	srv.Enqueue(llmtest.Reply{ToolCalls: []llm.ToolCall{terminalCall("echo observed")}, Usage: &llm.Usage{InputTokens: 120, OutputTokens: 15}},
		llmtest.Reply{Text: "It said observed.", Usage: &llm.Usage{InputTokens: 200, OutputTokens: 5}})
	col := tracetest.New()
	defer col.Close()
	const key, otlpKey = "sk-hermes-metrics-0123456789", "otlp-collector-key-9876543210"
	o := serveObserved(t, srv, "127.0.0.1:0", key,
		"observability: {metrics_listen: \"127.0.0.1:0\", otlp_endpoint: \""+col.URL+"\", otlp_headers: {Authorization: \"Bearer ${OTLP_KEY}\"}}\n",
		"OTLP_KEY="+otlpKey+"\n", otlpKey)
	resp := apiPost(t, context.Background(), o.api, key, `{"model":"hermes","messages":[{"role":"user","content":"run echo observed"}]}`, "X-Hermes-Session-Id", "new")
	b, _ := io.ReadAll(resp.Body)
	session := resp.Header.Get("X-Hermes-Session-Id")
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(b), "It said observed.") || session == "" {
		t.Fatalf("status %d: %s", resp.StatusCode, b)
	}
	for _, base := range []struct{ url, key string }{{o.api, key}, {o.metrics, ""}} {
		status, got := scrapeMetrics(t, base.url, base.key)
		if status != http.StatusOK {
			t.Fatalf("%s/metrics: %d", base.url, status)
		}
		for k, v := range map[string]string{
			`hermes_turns_total{source="api",outcome="done"}`:                           "1",
			`hermes_agent_iterations_total{source="api"}`:                               "2",
			`hermes_tool_calls_total{tool="terminal",status="ok"}`:                      "1",
			`hermes_tool_duration_seconds_count{tool="terminal"}`:                       "1",
			`hermes_model_call_duration_seconds_count{model="test-model",outcome="ok"}`: "2",
			`hermes_tokens_total{model="test-model",user="local",type="input"}`:         "320",
			`hermes_tokens_total{model="test-model",user="local",type="output"}`:        "20",
			`hermes_queue_depth{queue="tasks"}`:                                         "0",
			`hermes_trace_spans_dropped_total`:                                          "0",
		} {
			if got[k] != v {
				t.Errorf("%s: %s = %q, want %q", base.url, k, got[k], v)
			}
		}
		if cost, _ := strconv.ParseFloat(got[`hermes_cost_usd_total{model="test-model",user="local"}`], 64); cost < 0.000359 || cost > 0.000361 {
			t.Errorf("cost = %v, want 0.00036 (320 in at $1/M, 20 out at $2/M)", cost)
		}
		for _, k := range []string{"process_resident_memory_bytes", "go_goroutines"} {
			if n, _ := strconv.ParseFloat(got[k], 64); n <= 0 {
				t.Errorf("%s = %q, want the process's", k, got[k])
			}
		}
	}
	o.stop() // the spans still queued are sent as serve stops
	spans := col.Spans()
	var turn tracetest.Span
	var chats, tools []tracetest.Span
	for _, s := range spans {
		switch s.Attrs["gen_ai.operation.name"] {
		case "invoke_agent":
			turn = s
		case "chat":
			chats = append(chats, s)
		case "execute_tool":
			tools = append(tools, s)
		}
	}
	if turn.SpanID == "" || len(chats) != 2 || len(tools) != 1 {
		t.Fatalf("spans: %+v, want a turn, 2 chats and 1 tool call", spans)
	}
	if turn.Attrs["gen_ai.conversation.id"] != session || turn.Attrs["gen_ai.usage.input_tokens"] != "320" || turn.Service != "hermes" {
		t.Errorf("turn = %+v, want session %s and 320 tokens in", turn, session)
	}
	for i, c := range chats {
		if c.ParentSpanID != turn.SpanID || c.TraceID != turn.TraceID || c.Attrs["gen_ai.request.model"] != "test-model" ||
			c.Attrs["gen_ai.response.model"] != "test-model" || c.Attrs["gen_ai.conversation.id"] != session {
			t.Errorf("chat %d = %+v", i, c)
		}
	}
	if chats[0].Attrs["gen_ai.usage.input_tokens"]+"/"+chats[0].Attrs["gen_ai.usage.output_tokens"] != "120/15" ||
		chats[1].Attrs["gen_ai.usage.input_tokens"]+"/"+chats[1].Attrs["gen_ai.usage.output_tokens"] != "200/5" {
		t.Errorf("chat usage = %v, %v", chats[0].Attrs, chats[1].Attrs)
	}
	tl := tools[0]
	if tl.ParentSpanID != turn.SpanID || tl.Attrs["gen_ai.tool.name"] != "terminal" || tl.StatusCode != 1 {
		t.Errorf("tool = %+v", tl)
	}
	req := srv.Requests()[1]
	var callID string
	for _, m := range req.Messages {
		for _, c := range m.ToolCalls {
			callID = c.ID
		}
	}
	if tl.Attrs["gen_ai.tool.call.id"] != callID {
		t.Errorf("gen_ai.tool.call.id = %q, want the model's %q", tl.Attrs["gen_ai.tool.call.id"], callID)
	}
	for _, h := range col.Headers() {
		if h.Get("Authorization") != "Bearer "+otlpKey {
			t.Errorf("an export came without the collector's key: %v", h)
		}
	}
}

// On an API listener other machines reach, /metrics asks for the API's
// key like every endpoint; and metrics_listen on such an address is
// refused unless metrics_allow_remote says so.
func TestMetricsNeedAKeyOffLoopback(t *testing.T) {
	srv := llmtest.New(t)
	const key = "sk-hermes-remote-0123456789"
	o := serveObserved(t, srv, "0.0.0.0:0", key, "", "")
	for _, k := range []string{"", "sk-wrong-key-0123456789"} {
		if status, got := scrapeMetrics(t, o.api, k); status != http.StatusUnauthorized || len(got) > 1 {
			t.Errorf("/metrics with key %q: %d and %d samples, want 401 and none", k, status, len(got))
		}
	}
	if status, got := scrapeMetrics(t, o.api, key); status != http.StatusOK || got["hermes_scheduler_fires_total"] != "0" {
		t.Errorf("/metrics with the key: %d %v", status, got)
	}
	h := newHome(t)
	h.write("config.yaml", "observability: {metrics_listen: \"0.0.0.0:9464\"}\n")
	r := h.run([]string{"serve", "--check"})
	if r.code == 0 || !strings.Contains(r.stderr, `observability.metrics_listen: "0.0.0.0:9464" is not accepted`) || !strings.Contains(r.stderr, "metrics_allow_remote: true") {
		t.Errorf("a remote metrics_listen: code %d, %s", r.code, r.stderr)
	}
}

// A collector that refuses the exports: serve says so in its log, counts
// the spans dropped, and the header it was given never shows.
func TestOTLPHeadersNotLogged(t *testing.T) {
	srv := llmtest.New(t)
	srv.Enqueue(llmtest.Reply{Text: "fine"})
	col := tracetest.New()
	defer col.Close()
	col.Status = http.StatusForbidden
	const key, otlpKey = "sk-hermes-otlp-log-0123456789", "otlp-refused-key-5555555555"
	o := serveObserved(t, srv, "127.0.0.1:0", key,
		"observability: {otlp_endpoint: \""+col.URL+"\", otlp_headers: {X-Api-Key: \"${OTLP_KEY}\"}}\n",
		"OTLP_KEY="+otlpKey+"\n", otlpKey)
	resp := apiPost(t, context.Background(), o.api, key, `{"model":"hermes","messages":[{"role":"user","content":"hi"}]}`)
	io.Copy(io.Discard, resp.Body)
	o.stop()
	if !strings.Contains(o.logs.String(), "spans not exported") || !strings.Contains(o.logs.String(), "403") {
		t.Errorf("serve's log does not say the spans were refused:\n%s", o.logs.String())
	}
	if len(col.Headers()) == 0 || col.Headers()[0].Get("X-Api-Key") != otlpKey {
		t.Errorf("the collector did not get the header: %v", col.Headers())
	}
}

// A user's API turn counts its tokens and cost under the user's id; the
// user's own key cannot read /metrics, which shows every user's usage
// (an admin's neither), and the owner's key can.
func TestMetricsByUser(t *testing.T) {
	srv := llmtest.New(t)
	srv.Enqueue(llmtest.Reply{Text: "hi ana", Usage: &llm.Usage{InputTokens: 70, OutputTokens: 7}})
	const owner, ana, ada = "sk-hermes-owner-metrics-0123", "sk-user-ana-0123456789", "sk-user-ada-0123456789"
	o := serveObserved(t, srv, "127.0.0.1:0", owner, usersYAML(), "")
	resp := apiPost(t, context.Background(), o.api, ana, `{"model":"hermes","messages":[{"role":"user","content":"hello"}]}`)
	if b, _ := io.ReadAll(resp.Body); resp.StatusCode != http.StatusOK {
		t.Fatalf("ana's turn: %d %s", resp.StatusCode, b)
	}
	for _, k := range []string{ana, ada} {
		if status, got := scrapeMetrics(t, o.api, k); status != http.StatusForbidden || len(got) > 1 {
			t.Errorf("/metrics with a user's key: %d and %d samples, want 403 and none", status, len(got))
		}
	}
	status, got := scrapeMetrics(t, o.api, owner)
	if status != http.StatusOK || got[`hermes_tokens_total{model="test-model",user="ana",type="input"}`] != "70" {
		t.Errorf("/metrics with the owner's key: %d, ana's input tokens %q, want 70", status, got[`hermes_tokens_total{model="test-model",user="ana",type="input"}`])
	}
	if _, ok := got[`hermes_tokens_total{model="test-model",user="local",type="input"}`]; ok {
		t.Error("ana's tokens were counted for the owner too")
	}
}
