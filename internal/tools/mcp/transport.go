package mcp

import (
	"maps"
	"net/http"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// inheritedEnv are the only variables of hermes's environment a stdio
// server sees: enough to find programs, a home and a locale. API keys and
// tokens in hermes's environment stay out; a server that needs one gets
// it from its configured env.
var inheritedEnv = []string{"PATH", "HOME", "LANG", "LC_ALL", "TZ", "USER", "TMPDIR", "NODE_PATH"}

// serverEnv is the environment of a stdio server: the inherited variables
// that are set in environ, then the configured ones, which win.
func serverEnv(environ []string, configured map[string]string) []string {
	var out []string
	for _, kv := range environ {
		name, _, ok := strings.Cut(kv, "=")
		if ok && slices.Contains(inheritedEnv, name) {
			if _, override := configured[name]; !override {
				out = append(out, kv)
			}
		}
	}
	for _, name := range slices.Sorted(maps.Keys(configured)) {
		out = append(out, name+"="+configured[name])
	}
	return out
}

// terminateWait is how long closing a stdio server waits for it to exit
// after its stdin closed, before it is signalled.
const terminateWait = 2 * time.Second

// newTransport builds the SDK transport for a server. For stdio it also
// returns the command (so tests and status can see its process) and the
// tail of its standard error, which explains why a server exited.
func newTransport(cfg ServerConfig, environ []string) (sdk.Transport, *exec.Cmd, *tailBuffer) {
	if cfg.transport() == TransportHTTP {
		client := &http.Client{Transport: headerTransport{base: http.DefaultTransport, headers: cfg.Headers}}
		return &sdk.StreamableClientTransport{Endpoint: cfg.URL, HTTPClient: client}, nil, nil
	}
	cmd := exec.Command(cfg.Command, cfg.Args...)
	cmd.Env = serverEnv(environ, cfg.Env)
	stderr := &tailBuffer{max: 2048}
	cmd.Stderr = stderr
	// A grandchild holding stderr open must not keep Wait from returning.
	cmd.WaitDelay = terminateWait
	ownGroup(cmd)
	return &sdk.CommandTransport{Command: cmd, TerminateDuration: terminateWait}, cmd, stderr
}

// headerTransport adds the configured headers to every request.
type headerTransport struct {
	base    http.RoundTripper
	headers map[string]string
}

func (t headerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if len(t.headers) > 0 {
		req = req.Clone(req.Context())
		for k, v := range t.headers {
			req.Header.Set(k, v)
		}
	}
	return t.base.RoundTrip(req)
}

// tailBuffer keeps the last bytes written to it: the end of a server's
// standard error, where the reason it failed usually is.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	buf []byte
}

func (b *tailBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf = append(b.buf, p...)
	if over := len(b.buf) - b.max; over > 0 {
		b.buf = slices.Clone(b.buf[over:])
	}
	return len(p), nil
}

// lastLine returns the last non-empty line written, trimmed.
func (b *tailBuffer) lastLine() string {
	if b == nil {
		return ""
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	lines := strings.Split(strings.TrimSpace(string(b.buf)), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}
