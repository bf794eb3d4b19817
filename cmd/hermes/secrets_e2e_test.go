package main

import (
	"encoding/base64"
	"encoding/hex"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/llm/llmtest"
)

// leaked reports whether secret can be read back from a tool result by
// undoing base64 (either alphabet, from any character, lines joined),
// hex or reversal.
func leaked(res, secret string) bool {
	flat := strings.NewReplacer(`\n`, "", `\r`, "", "\n", "").Replace(res)
	if strings.Contains(flat, secret) || strings.Contains(reverseString(flat), secret) {
		return true
	}
	runs := regexp.MustCompile(`[A-Za-z0-9+/_=-]+`).FindAllString(flat, -1)
	for _, run := range runs {
		for off := 0; off < 4 && off < len(run); off++ {
			s := strings.TrimRight(run[off:], "=")
			s = s[:len(s)-len(s)%4]
			for _, enc := range []*base64.Encoding{base64.RawStdEncoding, base64.RawURLEncoding} {
				if b, err := enc.DecodeString(s); err == nil && strings.Contains(string(b), secret) {
					return true
				}
			}
			hx := run[off:]
			if b, err := hex.DecodeString(strings.ToLower(hx[:len(hx)-len(hx)%2])); err == nil && strings.Contains(string(b), secret) {
				return true
			}
		}
	}
	return false
}

func reverseString(s string) string {
	b := []byte(s)
	for i, j := 0, len(b)-1; i < j; i, j = i+1, j-1 {
		b[i], b[j] = b[j], b[i]
	}
	return string(b)
}

// TestChatSecretsByAnotherRoad: the model goes after hermes's keys around
// the scrubbed environment: reading .env and hermes's /proc entries with
// the file tools (refused), and encoding .env in the terminal (redacted in
// every encoding). A variable a declared tool sends in a header is a
// secret too, though its name does not say so.
func TestChatSecretsByAnotherRoad(t *testing.T) {
	const key = "sk-svc-7Hq2Lp9Xw4Rt8Zy3Vn6Mb1"
	const access = "acc-5f1e2d3c4b5a69788"
	h := newHome(t)
	h.write(".env", "SERVICE_API_KEY="+key+"\n")
	if err := os.MkdirAll(filepath.Join(h.dir, "tools"), 0o700); err != nil {
		t.Fatal(err)
	}
	h.write("tools/orders.yaml", "tools:\n  - name: orders\n    description: Orders.\n    http: {url: \"http://127.0.0.1:9/x\", headers: {X-Api-Token: \"${ORDERS_ACCESS}\"}}\n")
	h.env = append(h.env, "ORDERS_ACCESS="+access)
	work := t.TempDir()
	if err := os.WriteFile(filepath.Join(work, "notes.txt"), []byte("the orders team uses "+access+" for us\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	envFile := filepath.Join(h.dir, ".env")
	srv := llmtest.New(t)
	srv.Enqueue(llmtest.Reply{ToolCalls: []llm.ToolCall{
		call("read_file", jsonArgs(map[string]any{"path": envFile})),
		call("read_file", jsonArgs(map[string]any{"path": "/proc/self/environ"})),
		terminalCall("echo $PPID"),
	}})
	var answered atomic.Bool
	srv.Handle(func(r llmtest.Request) llmtest.Reply {
		if answered.Swap(true) {
			return llmtest.Reply{Text: "Nothing found."}
		}
		msgs := r.Messages
		pid := regexp.MustCompile(`\d+`).FindString(msgs[len(msgs)-1].Text())
		return llmtest.Reply{ToolCalls: []llm.ToolCall{
			call("read_file", jsonArgs(map[string]any{"path": "/proc/" + pid + "/environ"})),
			call("search_files", jsonArgs(map[string]any{"pattern": "API_KEY", "path": h.dir})),
			terminalCall("base64 " + envFile),
			terminalCall("base64 -w0 " + envFile + " | tr '+/' '-_'"),
			terminalCall("rev " + envFile),
			terminalCall("xxd -p " + envFile),
			call("read_file", jsonArgs(map[string]any{"path": "notes.txt"})),
			terminalCall("env"),
		}}
	})
	if _, r := h.chatIn(srv, work, "find the keys", "--yolo"); r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	first := toolResults(srv, 1)
	for i := 0; i < 2; i++ {
		if !strings.Contains(first[i], `"error_code":"denied"`) {
			t.Errorf("read %d: %s; want denied", i, first[i])
		}
	}
	if !strings.Contains(first[0], "already has the values it needs") {
		t.Errorf("the .env refusal does not say why: %s", first[0])
	}
	res := toolResults(srv, 2)[3:]
	if len(res) != 8 {
		t.Fatalf("got %d results in the second round, want 8", len(res))
	}
	if !strings.Contains(res[0], `"error_code":"denied"`) {
		t.Errorf("reading hermes's /proc/PID/environ: %s", res[0])
	}
	if strings.Contains(res[1], key) || !strings.Contains(res[1], "not searched") {
		t.Errorf("search_files over the home: %s", res[1])
	}
	for _, r := range res[2:6] {
		if leaked(r, key) || !strings.Contains(r, "[REDACTED:SERVICE_API_KEY]") {
			t.Errorf("an encoded .env reached the model: %s", r)
		}
	}
	if strings.Contains(res[6], access) || !strings.Contains(res[6], "[REDACTED:ORDERS_ACCESS]") {
		t.Errorf("the declared tool's header variable reached the model: %s", res[6])
	}
	if strings.Contains(res[7], "ORDERS_ACCESS=") {
		t.Errorf("the terminal's commands inherit the declared tool's header variable: %s", res[7])
	}
}

// ownAddr returns one of the machine's non-loopback addresses, one
// outside every private range when there is one.
func ownAddr() (netip.Addr, bool) {
	nets, err := net.InterfaceAddrs()
	if err != nil {
		return netip.Addr{}, false
	}
	var best netip.Addr
	for _, n := range nets {
		ipn, ok := n.(*net.IPNet)
		if !ok {
			continue
		}
		a, _ := netip.AddrFromSlice(ipn.IP)
		a = a.Unmap()
		if !a.IsValid() || a.IsLoopback() || a.IsLinkLocalUnicast() {
			continue
		}
		if !best.IsValid() || !a.IsPrivate() && best.IsPrivate() {
			best = a
		}
	}
	return best, best.IsValid()
}

// TestDeclaredToolHostFromModel: a declared http tool whose host the
// model fills in cannot reach the machine's own services, on loopback or
// on its own interface addresses, until security.allow_private_urls is
// set.
func TestDeclaredToolHostFromModel(t *testing.T) {
	var hits atomic.Int32
	handler := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		hits.Add(1)
		w.Write([]byte(`{"admin":true}`))
	})
	local := httptest.NewServer(handler)
	defer local.Close()
	hosts := []string{strings.TrimPrefix(local.URL, "http://")}
	if a, ok := ownAddr(); ok {
		if ln, err := net.Listen("tcp", netip.AddrPortFrom(a, 0).String()); err == nil {
			own := httptest.NewUnstartedServer(handler)
			own.Listener = ln
			own.Start()
			defer own.Close()
			hosts = append(hosts, strings.TrimPrefix(own.URL, "http://"))
		}
	}
	h := newHome(t)
	if err := os.MkdirAll(filepath.Join(h.dir, "tools"), 0o700); err != nil {
		t.Fatal(err)
	}
	h.write("tools/fetch.yaml", "tools:\n  - name: fetch_x\n    description: Fetch /x of a host.\n    parameters: {type: object, properties: {host: {type: string}}, required: [host]}\n    http: {url: \"http://{{.host}}/x\"}\n")
	script := func() *llmtest.Server {
		srv := llmtest.New(t)
		var calls []llm.ToolCall
		for _, host := range hosts {
			calls = append(calls, call("fetch_x", jsonArgs(map[string]any{"host": host})))
		}
		srv.Enqueue(llmtest.Reply{ToolCalls: calls}, llmtest.Reply{Text: "done"})
		return srv
	}
	srv := script()
	if _, r := h.chatIn(srv, t.TempDir(), "fetch"); r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	for i, res := range toolResults(srv, 1) {
		if !strings.Contains(res, `"error_code":"denied"`) || !strings.Contains(res, "allow_private_urls") {
			t.Errorf("fetch_x %s: %s; want refused by the URL guard", hosts[i], res)
		}
	}
	if n := hits.Load(); n != 0 {
		t.Fatalf("the machine's own services got %d requests", n)
	}
	h.write("config.yaml", "security:\n  allow_private_urls: true\n")
	srv = script()
	if _, r := h.chatIn(srv, t.TempDir(), "fetch"); r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	for i, res := range toolResults(srv, 1) {
		if !strings.Contains(res, `"admin":true`) {
			t.Errorf("with allow_private_urls, fetch_x %s: %s", hosts[i], res)
		}
	}
}
