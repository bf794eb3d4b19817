package app

import (
	"context"
	"errors"
	"io/fs"
	"maps"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hermes-go/hermes/internal/config"
	"github.com/hermes-go/hermes/internal/doctor"
	"github.com/hermes-go/hermes/internal/tool"
	"github.com/hermes-go/hermes/internal/tools/browser"
)

// sshDialTimeout bounds the reachability probe of the ssh host when
// terminal.ssh.connect_timeout says nothing shorter.
const sshDialTimeout = 5 * time.Second

// chromiumCheck finds Chromium the way the browser tools do
// (browser.executable, else chromium or chrome in PATH). Without it only
// the browser tools are missing, so it is a warning.
func chromiumCheck(l *config.Loaded) doctor.Check {
	return doctor.Check{Name: "browser", Run: func(context.Context) []doctor.Result {
		exe := l.Config.Browser.Executable
		m := browser.New(browser.Options{ExecPath: exe})
		defer m.Close()
		if err := m.Available(); err != nil {
			fix := "apt-get install chromium"
			if exe != "" {
				fix = "hermes config set browser.executable /path/to/chromium"
			}
			return []doctor.Result{doctor.Problem("browser", doctor.Warn, fix, "the browser tools are not offered: %v", err)}
		}
		return []doctor.Result{doctor.Okf("browser", "Chromium found for the browser tools")}
	}}
}

// sshCheck probes the ssh host of terminal.backend ssh with a TCP
// connection (no login: the key and host key are checked on first use).
func sshCheck(l *config.Loaded) doctor.Check {
	return doctor.Check{Name: "ssh", Run: func(ctx context.Context) []doctor.Result {
		t := l.Config.Terminal
		if t.Backend != "ssh" {
			return []doctor.Result{doctor.Okf("ssh", "no ssh host: commands run on this machine (terminal.backend %s)", orLocal(string(t.Backend)))}
		}
		port := t.SSH.Port
		if port == 0 {
			port = 22
		}
		addr := net.JoinHostPort(t.SSH.Host, strconv.Itoa(port))
		timeout := sshDialTimeout
		if t.SSH.ConnectTimeout > 0 {
			timeout = min(timeout, t.SSH.ConnectTimeout)
		}
		ctx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		conn, err := (&net.Dialer{}).DialContext(ctx, "tcp", addr)
		if err != nil {
			return []doctor.Result{doctor.Problem("ssh", doctor.Fail, "hermes config set terminal.ssh.host HOST (the machine that runs sshd)",
				"terminal.ssh host %s is not reachable: %v", addr, err)}
		}
		conn.Close()
		if k := t.SSH.KeyFile; k != "" {
			path := k
			if rest, ok := strings.CutPrefix(k, "~/"); ok {
				if home, err := os.UserHomeDir(); err == nil {
					path = filepath.Join(home, rest)
				}
			}
			if _, err := os.Stat(path); err != nil {
				return []doctor.Result{doctor.Problem("ssh", doctor.Fail, "hermes config set terminal.ssh.key_file ~/.ssh/id_ed25519",
					"terminal.ssh host %s is reachable, but its key_file cannot be read: %v", addr, err)}
			}
		}
		return []doctor.Result{doctor.Okf("ssh", "terminal.ssh host %s is reachable", addr)}
	}}
}

func orLocal(backend string) string {
	if backend == "" {
		return "local"
	}
	return backend
}

// mcpCheck connects each configured MCP server from scratch and lists its
// tools, all at once, each within its connect timeout.
func mcpCheck(l *config.Loaded, o DoctorOptions) doctor.Check {
	return doctor.Check{Name: "mcp", Timeout: mcpWait(l.Config) + time.Second, Run: func(ctx context.Context) []doctor.Result {
		c := l.Config
		if len(c.MCPServers) == 0 {
			return []doctor.Result{doctor.Okf("mcp", "no MCP servers configured")}
		}
		m := NewMCP(l, tool.NewRegistry(), o.Logger, o.Version)
		defer m.Close()
		names := slices.Sorted(maps.Keys(c.MCPServers))
		out := make([]doctor.Result, len(names))
		var wg sync.WaitGroup
		for i, name := range names {
			check := "mcp: " + name
			if !c.MCPServers[name].Enabled.Or(true) {
				out[i] = doctor.Okf(check, "disabled (enabled: false)")
				continue
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				rep, err := m.Test(ctx, name)
				if err != nil {
					out[i] = doctor.Problem(check, doctor.Fail, "hermes config set "+doctor.ShellQuote("mcp_servers."+name+".enabled")+" false (or correct its command or url)", "%v", err)
					return
				}
				out[i] = doctor.Okf(check, "connected in %d ms, %d tools", rep.Connect.Milliseconds(), len(rep.Tools))
			}()
		}
		wg.Wait()
		return out
	}}
}

// toolFilesCheck loads the declared tools files and the skills the way a
// turn would, and reports each file that does not load with the line to
// edit.
func toolFilesCheck(l *config.Loaded, o DoctorOptions) doctor.Check {
	return doctor.Check{Name: "tools", Run: func(context.Context) []doctor.Result {
		// Loading installs the bundled skills, which would create the
		// home; before the first run there is nothing to load anyway.
		if _, err := os.Stat(l.Paths.Home); errors.Is(err, fs.ErrNotExist) {
			return []doctor.Result{doctor.Okf("tools", "no declared tools or skills yet: %s does not exist", l.Paths.Home)}
		}
		tools, err := newTools(l, toolDeps{log: o.Logger, version: o.Version})
		if err != nil {
			return []doctor.Result{doctor.Problem("tools", doctor.Fail, "hermes tools list", "the tools cannot be assembled: %v", err)}
		}
		defer tools.close()
		var out []doctor.Result
		for _, p := range tools.Declared.Problems() {
			fix := "${EDITOR:-vi} "
			if p.Line > 0 {
				fix += "+" + strconv.Itoa(p.Line) + " "
			}
			out = append(out, doctor.Problem("tools: "+p.File, doctor.Fail, fix+doctor.ShellQuote(filepath.Join(l.Paths.Home, p.File)), "%s", p.Error()))
		}
		if len(out) == 0 {
			out = append(out, doctor.Okf("tools", "%d declared tools load", len(tools.Declared.Tools())))
		}
		for _, p := range tools.Skills.Problems() {
			out = append(out, doctor.Problem("skills", doctor.Fail, "${EDITOR:-vi} "+doctor.ShellQuote(p.File),
				"%s is skipped: %s", p.File, p.Reason))
		}
		if n := len(tools.Skills.Problems()); n == 0 {
			out = append(out, doctor.Okf("skills", "%d skills load", len(tools.Skills.Skills())))
		}
		return out
	}}
}
