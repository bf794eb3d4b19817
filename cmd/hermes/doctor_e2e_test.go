package main

import (
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/hermes-go/hermes/internal/llm/llmtest"
)

// The keys of the doctor's homes: long enough to be redacted, and checked
// never to appear in what the doctor prints.
const (
	doctorKey      = "sk-doctor-main-9f8e7d6c5b4a3f2a"
	doctorSpareKey = "sk-doctor-spare-1a2b3c4d5e6f7a8b"
	// doctorRobotKey is a WeCom robot's key, written in a job's deliver:.
	doctorRobotKey = "0a1b2c3d-4e5f-6789-abcd-ef0123456789"
	// doctorURLPassword is a password in a provider's base URL.
	doctorURLPassword = "hunter2-url-password"
)

// doctorCheck is one check of hermes doctor --json.
type doctorCheck struct {
	Name, Status, Finding, Fix string
}

// doctorJSON runs hermes doctor --json with args and decodes the report.
func doctorJSON(t *testing.T, h *home, args ...string) (string, []doctorCheck, result) {
	t.Helper()
	r := h.hermes(append([]string{"doctor", "--json"}, args...)...)
	var rep struct {
		Status string
		Checks []doctorCheck
	}
	r.decode(t, &rep)
	return rep.Status, rep.Checks, r
}

// noSecret fails when a key's value shows in anything hermes printed.
func noSecret(t *testing.T, r result, keys ...string) {
	t.Helper()
	for _, k := range keys {
		for _, part := range []string{k, k[3 : len(k)-4]} {
			if strings.Contains(r.stdout, part) || strings.Contains(r.stderr, part) {
				t.Errorf("the key %q shows in the output:\n%s%s", k, r.stdout, r.stderr)
			}
		}
	}
}

func TestDoctorHealthyHome(t *testing.T) {
	main, spare := llmtest.New(t), llmtest.New(t)
	main.Handle(func(llmtest.Request) llmtest.Reply { return llmtest.Reply{Text: "OK"} })
	spare.Handle(func(llmtest.Request) llmtest.Reply { return llmtest.Reply{Text: "OK"} })
	// The ssh host is only probed for reachability: a listener will do.
	sshd, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer sshd.Close()
	_, sshPort, _ := net.SplitHostPort(sshd.Addr().String())
	h := newHome(t)
	h.write("config.yaml", strings.Join([]string{
		"model: {provider: main, default: main-model}",
		"terminal: {backend: ssh, ssh: {host: 127.0.0.1, port: " + sshPort + ", user: me}}",
		"providers:",
		"  main: {base_url: " + main.URL() + "/v1, api_key_env: MAIN_KEY}",
		"  spare: {base_url: " + spare.URL() + "/v1, api_key_env: SPARE_KEY}",
		"fallback_providers: [{provider: spare, model: spare-model}]",
		"mcp_servers:",
		"  self: {command: " + hermesBin + ", args: [mcp, serve]}",
		"schedules:",
		"  report: {cron: 0 9 * * MON, prompt: report, deliver: [wecom:" + doctorRobotKey + ", local]}",
	}, "\n")+"\n")
	h.write(".env", "MAIN_KEY="+doctorKey+"\nSPARE_KEY="+doctorSpareKey+"\n")
	// As hermes makes it on first use (the test's directory is 0755).
	if err := os.Chmod(h.dir, 0o700); err != nil {
		t.Fatal(err)
	}

	status, checks, r := doctorJSON(t, h)
	if r.code != 0 || status != "ok" {
		t.Errorf("exit %d, status %s\n%s%s", r.code, status, r.stdout, r.stderr)
	}
	_, noChromium := exec.LookPath("chromium")
	names := map[string]bool{}
	for _, c := range checks {
		names[c.Name] = true
		if c.Status != "ok" && !(c.Name == "browser" && noChromium != nil) {
			t.Errorf("%s: %s: %s (fix: %s)", c.Name, c.Status, c.Finding, c.Fix)
		}
	}
	for _, want := range []string{"config", "permissions: .env", "permissions: home", "state.db", "disk", "provider",
		"fallback 1: spare", "browser", "ssh", "mcp: self", "tools", "skills", "schedule: report"} {
		if !names[want] {
			t.Errorf("no check %q in %v", want, names)
		}
	}
	if len(main.Requests()) != 1 || len(spare.Requests()) != 1 {
		t.Errorf("calls: main %d, spare %d; want one each", len(main.Requests()), len(spare.Requests()))
	}

	// A key file that is not there is a problem even when the host answers.
	cfg, _ := os.ReadFile(filepath.Join(h.dir, "config.yaml"))
	h.write("config.yaml", strings.Replace(string(cfg), "user: me}", "user: me, key_file: ~/.ssh/missing_key}", 1))
	_, checks, _ = doctorJSON(t, h, "--offline")
	for _, c := range checks {
		if c.Name == "ssh" && (c.Status != "fail" || !strings.Contains(c.Finding, "missing_key") || !strings.Contains(c.Fix, "terminal.ssh.key_file")) {
			t.Errorf("missing key file: %+v", c)
		}
	}
	h.write("config.yaml", string(cfg))
	noSecret(t, r, doctorKey, doctorSpareKey, doctorRobotKey)

	// Offline, nothing is called and the text report says the same.
	r = h.hermes("doctor", "--offline")
	if r.code != 0 || !strings.Contains(r.stdout, "not called: --offline") || !strings.Contains(r.stdout, "0 fail") {
		t.Errorf("offline: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if len(main.Requests()) != 1 || len(spare.Requests()) != 1 {
		t.Errorf("offline doctor called a provider")
	}
	noSecret(t, r, doctorKey, doctorSpareKey)
}

// TestDoctorBrokenHome breaks one thing of each kind: every one is a
// failed (or, for an unknown key, warned) check with its fix, and the
// exit status is 1.
func TestDoctorBrokenHome(t *testing.T) {
	spare := llmtest.New(t)
	// A provider that quotes the refused key back, as some do.
	spare.Handle(func(llmtest.Request) llmtest.Reply {
		return llmtest.Reply{Status: 401, Error: &llmtest.ErrorReply{Message: "Incorrect API key provided: " + doctorSpareKey}}
	})
	h := newHome(t)
	h.write("config.yaml", strings.Join([]string{
		"model: {provider: main, default: main-model}",
		"modle: typo",
		"providers:",
		"  main: {base_url: \"http://admin:" + doctorURLPassword + "@127.0.0.1:1/v1\", api_key_env: MAIN_KEY}",
		"  spare: {base_url: " + spare.URL() + "/v1, api_key_env: SPARE_KEY}",
		"fallback_providers: [{provider: spare, model: spare-model}, {provider: deepseek, model: x}]",
		"terminal: {backend: ssh, ssh: {host: 127.0.0.1, port: 1, user: nobody}}",
		"mcp_servers:",
		"  gone: {command: " + filepath.Join(h.dir, "no-such-server") + "}",
		"schedules:",
		"  report: {cron: 0 9 * * MON, prompt: report, deliver: [pigeon:home]}",
		"  never: {cron: 61 * * * *, prompt: report}",
	}, "\n")+"\n")
	h.write(".env", "MAIN_KEY="+doctorKey+"\nSPARE_KEY="+doctorSpareKey+"\n")
	if err := os.Chmod(filepath.Join(h.dir, ".env"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(h.dir, "tools"), 0o700); err != nil {
		t.Fatal(err)
	}
	h.write("tools/broken.yaml", "tools: [unclosed\n")
	if err := os.MkdirAll(filepath.Join(h.dir, "skills", "bad"), 0o700); err != nil {
		t.Fatal(err)
	}
	h.write("skills/bad/SKILL.md", "---\nname: Bad Name\ndescription: x\n---\nbody\n")

	status, checks, r := doctorJSON(t, h)
	if r.code != 1 || status != "fail" {
		t.Errorf("exit %d, status %s, want 1 and fail", r.code, status)
	}
	want := []struct{ name, status, finding, fix string }{
		{"config", "warn", `unknown key "modle"`, "${EDITOR:-vi} +2 " + filepath.Join(h.dir, "config.yaml")},
		{"permissions: .env", "fail", "0644", "chmod 600 " + filepath.Join(h.dir, ".env")},
		{"provider", "fail", "127.0.0.1:1", "hermes config set providers.main.base_url"},
		{"fallback 1: spare", "fail", "Incorrect API key", "replace SPARE_KEY"},
		{"ssh", "fail", "127.0.0.1:1 is not reachable", "hermes config set terminal.ssh.host"},
		{"mcp: gone", "fail", "no-such-server", "hermes config set mcp_servers.gone.enabled false"},
		{"tools: tools/broken.yaml", "fail", "tools/broken.yaml:1", "${EDITOR:-vi} +1 " + filepath.Join(h.dir, "tools", "broken.yaml")},
		{"schedule: report", "fail", "pigeon", "schedules.report"},
		{"schedule: never", "fail", "61 * * * *", "schedules.never"},
		{"fallbacks", "fail", "DEEPSEEK_API_KEY", filepath.Join(h.dir, ".env")},
		{"skills", "fail", filepath.Join(h.dir, "skills", "bad", "SKILL.md"), "${EDITOR:-vi} " + filepath.Join(h.dir, "skills", "bad", "SKILL.md")},
	}
	for _, w := range want {
		found := false
		for _, c := range checks {
			if c.Name != w.name {
				continue
			}
			found = true
			if c.Status != w.status || !strings.Contains(c.Finding, w.finding) || !strings.Contains(c.Fix, w.fix) {
				t.Errorf("%s: got %s %q (fix %q); want %s with %q, fix %q", w.name, c.Status, c.Finding, c.Fix, w.status, w.finding, w.fix)
			}
		}
		if !found {
			t.Errorf("no check %q in\n%s", w.name, r.stdout)
		}
	}
	noSecret(t, r, doctorKey, doctorSpareKey, doctorURLPassword)
	// The text report carries the same problems and fixes.
	r = h.hermes("doctor")
	if r.code != 1 || !strings.Contains(r.stdout, "fix: chmod 600 "+filepath.Join(h.dir, ".env")) {
		t.Errorf("text report: exit %d\n%s", r.code, r.stdout)
	}
	noSecret(t, r, doctorKey, doctorSpareKey)
}

// TestDoctorDamagedStateDB damages state.db after hermes made it: the
// integrity check fails and says to move the file aside.
func TestDoctorDamagedStateDB(t *testing.T) {
	h := newHome(t)
	if r := h.hermes("sessions", "list"); r.code != 0 {
		t.Fatalf("sessions list: exit %d %s", r.code, r.stderr)
	}
	path := filepath.Join(h.dir, "state.db")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for i := 4096; i < len(data); i++ {
		data[i] = 0x5a
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	_, checks, r := doctorJSON(t, h, "--offline")
	if r.code != 1 {
		t.Errorf("exit %d, want 1", r.code)
	}
	for _, c := range checks {
		if c.Name == "state.db" && (c.Status != "fail" || !strings.Contains(c.Fix, "mv "+path+" "+path+".broken")) {
			t.Errorf("state.db: %+v", c)
		}
	}
}

// TestDoctorConfigThatDoesNotLoad still checks the files, and says which
// key is wrong.
func TestDoctorConfigThatDoesNotLoad(t *testing.T) {
	h := newHome(t)
	h.write("config.yaml", "agent:\n  max_turns: lots\n")
	status, checks, r := doctorJSON(t, h, "--offline")
	if r.code != 1 || status != "fail" {
		t.Errorf("exit %d, status %s", r.code, status)
	}
	if c := checks[0]; c.Name != "config" || c.Status != "fail" || !strings.Contains(c.Finding, "agent.max_turns") || !strings.Contains(c.Fix, "+2 ") {
		t.Errorf("config: %+v", c)
	}
	if len(checks) < 4 {
		t.Errorf("the file checks did not run: %v", checks)
	}
	// An unknown key beside the error is reported too.
	h.write("config.yaml", "agent:\n  max_turns: lots\n  max_trns: 3\n")
	_, checks, _ = doctorJSON(t, h, "--offline")
	if c := checks[1]; c.Name != "config" || c.Status != "warn" || !strings.Contains(c.Finding, "agent.max_trns") || !strings.Contains(c.Fix, "+3 ") {
		t.Errorf("unknown key beside an error: %+v", c)
	}
	// A config.yaml that cannot even be read.
	os.Remove(filepath.Join(h.dir, "config.yaml"))
	if err := os.Mkdir(filepath.Join(h.dir, "config.yaml"), 0o700); err != nil {
		t.Fatal(err)
	}
	status, checks, r = doctorJSON(t, h, "--offline")
	if r.code != 1 || status != "fail" || checks[0].Name != "config" || checks[0].Status != "fail" || len(checks) < 4 {
		t.Errorf("unreadable config.yaml: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// TestDoctorDeliverTest sends a test message through each job's chain: a
// chain whose webhook answers is ok, one that falls through to the local
// file fails, and without --deliver-test nothing is sent.
func TestDoctorDeliverTest(t *testing.T) {
	var got atomic.Int32
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got.Add(1)
		if r.URL.Path == "/down" {
			w.WriteHeader(http.StatusBadGateway)
		}
	}))
	defer hook.Close()
	h := newHome(t)
	h.write("config.yaml", "delivery: {retry_backoff: [1ms]}\nschedules:\n"+
		"  up: {cron: \"@daily\", prompt: x, deliver: [webhook:"+hook.URL+"/up]}\n"+
		"  down: {cron: \"@daily\", prompt: x, deliver: [webhook:"+hook.URL+"/down]}\n")
	if r := h.hermes("doctor", "--offline"); got.Load() != 0 {
		t.Fatalf("doctor without --deliver-test sent %d messages\n%s", got.Load(), r.stdout)
	}
	_, checks, r := doctorJSON(t, h, "--offline", "--deliver-test")
	if r.code != 1 {
		t.Errorf("exit %d, want 1", r.code)
	}
	for _, c := range checks {
		switch c.Name {
		case "schedule: up":
			if c.Status != "ok" || !strings.Contains(c.Finding, "test message delivered to webhook") {
				t.Errorf("up: %+v", c)
			}
		case "schedule: down":
			if c.Status != "fail" || !strings.Contains(c.Finding, "fell through to local") || !strings.Contains(c.Fix, "schedules.down") {
				t.Errorf("down: %+v", c)
			}
		}
	}
}

// TestDoctorJSONShape pins the JSON report: a status and one object per
// check with name, status and finding, and a fix only for a problem.
func TestDoctorJSONShape(t *testing.T) {
	h := newHome(t)
	h.write(".env", "K=v\n")
	os.Chmod(filepath.Join(h.dir, ".env"), 0o640)
	r := h.hermes("doctor", "--json", "--offline")
	var rep map[string]any
	r.decode(t, &rep)
	if len(rep) != 2 || rep["status"] != "fail" {
		t.Fatalf("top level: %v", rep)
	}
	for _, c := range rep["checks"].([]any) {
		m := c.(map[string]any)
		_, hasFix := m["fix"]
		fields := 3
		if hasFix {
			fields = 4
		}
		if m["name"] == "" || m["finding"] == "" || (m["status"] == "ok") == hasFix || len(m) != fields {
			t.Errorf("check %v", m)
		}
	}
}
