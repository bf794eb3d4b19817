package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// tmuxPane runs one command in a detached tmux session on a private
// server, so that a test can type into it and read the screen, scrollback
// included, as a person at a terminal would see it.
type tmuxPane struct {
	t    *testing.T
	sock string
}

// newTmuxPane starts command (a shell command line) in a 200×50 pane; the
// pane stays after the command ends, so its last words can be read.
func newTmuxPane(t *testing.T, command string) *tmuxPane {
	t.Helper()
	bin, err := exec.LookPath("tmux")
	if err != nil {
		t.Skip("tmux is not installed (apt-get install tmux; scripts/install-test-deps.sh does): the interactive setup test needs a real terminal")
	}
	p := &tmuxPane{t: t, sock: filepath.Join(t.TempDir(), "tmux.sock")}
	cmd := exec.Command(bin, "-S", p.sock, "-f", "/dev/null", "new-session", "-d", "-s", "setup", "-x", "200", "-y", "50", command+"; echo SETUP-EXIT=$?; exec cat")
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "TERM=xterm", "HOME=" + t.TempDir()}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("tmux new-session: %v\n%s", err, out)
	}
	t.Cleanup(func() { exec.Command(bin, "-S", p.sock, "kill-server").Run() })
	return p
}

// screen is the pane's text with its scrollback, wrapped lines joined.
func (p *tmuxPane) screen() string {
	out, err := exec.Command("tmux", "-S", p.sock, "capture-pane", "-p", "-J", "-S", "-", "-t", "setup").Output()
	if err != nil {
		p.t.Fatalf("tmux capture-pane: %v", err)
	}
	return string(out)
}

// waitFor polls the screen until it holds want, for at most 20 seconds.
func (p *tmuxPane) waitFor(want string) string {
	p.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		s := p.screen()
		if strings.Contains(s, want) {
			return s
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("the screen never showed %q:\n%s", want, s)
		}
		<-tick.C
	}
}

// answer waits for a question and types a line.
func (p *tmuxPane) answer(question, line string) {
	p.t.Helper()
	p.waitFor(question)
	if line != "" {
		p.keys("-l", line)
	}
	p.keys("Enter")
}

// keys sends keys to the pane: tmux send-keys arguments ("-l", "text" for
// literal text, or key names such as "Enter" and "C-c").
func (p *tmuxPane) keys(args ...string) {
	p.t.Helper()
	args = append([]string{"-S", p.sock, "send-keys", "-t", "setup"}, args...)
	if out, err := exec.Command("tmux", args...).CombinedOutput(); err != nil {
		p.t.Fatalf("tmux send-keys: %v\n%s", err, out)
	}
}

// setupCommand is the shell command line that runs hermes setup in h with
// args, in a clean environment.
func (h *home) setupCommand(args ...string) string {
	quoted := []string{"env", "-i"}
	for _, e := range h.env {
		quoted = append(quoted, shellQuote(e))
	}
	quoted = append(quoted, "TERM=xterm", shellQuote(hermesBin), "setup")
	for _, a := range args {
		quoted = append(quoted, shellQuote(a))
	}
	return strings.Join(quoted, " ")
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// TestSetupInteractiveInTmux drives the wizard in a real terminal: the
// key and the bot token are typed without echo and never shown back in
// full, the model is picked from the server's list, and a second run
// offers what the first one chose as the defaults.
func TestSetupInteractiveInTmux(t *testing.T) {
	srv := keyServer(t, setupKey)
	const botTok = "123456789:AAbbCCddEEffGGhhIIjjKKllMMnnOOppQQr"
	h := newHome(t)
	p := newTmuxPane(t, h.setupCommand("--base-url", srv.URL()+"/v1"))
	p.answer("Provider (number or name) [openrouter]:", "3")
	p.answer("Paste the API key for openrouter (OPENROUTER_API_KEY", setupKey)
	p.waitFor("Got a key: sk-…cdef")
	p.answer("Model (number or name) [m-one]:", "2")
	p.waitFor("m-two answered")
	p.answer("Approval mode [manual]:", "smart")
	p.answer("Add a Telegram bot token", "y")
	p.answer("Bot token from @BotFather", botTok)
	screen := p.waitFor("SETUP-EXIT=")
	if !strings.Contains(screen, "SETUP-EXIT=0") {
		t.Fatalf("setup failed:\n%s", screen)
	}
	noKeyIn(t, "the terminal", screen, setupKey, botTok, botTok[10:])
	for _, want := range []string{" 3) openrouter  key in OPENROUTER_API_KEY", " 2) m-two", "smart   a reviewer model", "hermes chat", "hermes serve"} {
		if !strings.Contains(screen, want) {
			t.Errorf("the terminal does not show %q:\n%s", want, screen)
		}
	}
	env := h.read(".env")
	if !strings.Contains(env, "OPENROUTER_API_KEY="+setupKey) || !strings.Contains(env, "TELEGRAM_BOT_TOKEN="+botTok) {
		t.Errorf(".env is\n%s", env)
	}
	cfg := h.read("config.yaml")
	noKeyIn(t, "config.yaml", cfg, setupKey, botTok)
	for _, want := range []string{"provider: openrouter", "default: m-two", "mode: smart", "token: ${TELEGRAM_BOT_TOKEN}"} {
		if !strings.Contains(cfg, want) {
			t.Errorf("config.yaml lacks %q:\n%s", want, cfg)
		}
	}

	// Again: Enter takes every current value.
	p = newTmuxPane(t, h.setupCommand("--base-url", srv.URL()+"/v1"))
	p.answer("Provider (number or name) [openrouter]:", "")
	p.answer("Enter keeps sk-…cdef, from .env", "")
	p.answer("Model (number or name) [m-two]:", "")
	p.answer("Approval mode [smart]:", "")
	p.answer("Telegram is set up; replace its bot token? (y/N)", "")
	screen = p.waitFor("SETUP-EXIT=")
	if !strings.Contains(screen, "SETUP-EXIT=0") {
		t.Fatalf("second setup failed:\n%s", screen)
	}
	noKeyIn(t, "the terminal", screen, setupKey, botTok)
	if after := h.read("config.yaml"); after != cfg {
		t.Errorf("keeping every value changed config.yaml:\n%s\nwas:\n%s", after, cfg)
	}
	if after := h.read(".env"); after != env {
		t.Errorf("keeping every value changed .env:\n%s", after)
	}
}

// TestSetupInterruptedAtTheKeyPrompt: Ctrl-C while the key is being typed
// stops setup with nothing written, and the terminal echoes again.
func TestSetupInterruptedAtTheKeyPrompt(t *testing.T) {
	h := newHome(t)
	p := newTmuxPane(t, h.setupCommand("--skip-test"))
	p.answer("Provider (number or name) [openrouter]:", "openai")
	p.waitFor("Paste the API key for openai")
	p.keys("-l", "sk-half-typed")
	p.keys("C-c")
	screen := p.waitFor("SETUP-EXIT=")
	if !strings.Contains(screen, "interrupted; nothing was written") || !strings.Contains(screen, "SETUP-EXIT=1") {
		t.Errorf("Ctrl-C at the key prompt:\n%s", screen)
	}
	noKeyIn(t, "the terminal", screen, "sk-half-typed")
	if h.read("config.yaml") != "" || h.read(".env") != "" {
		t.Errorf("an interrupted setup wrote files")
	}
	// The pane now runs cat: what is typed shows twice, echoed by the
	// terminal and printed by cat, only if echo was turned back on.
	// Waiting for the two lines, not the first: cat prints its copy a
	// moment after the terminal echoed the line.
	p.keys("-l", "echo-is-back")
	p.keys("Enter")
	p.waitFor("echo-is-back\necho-is-back")
}

// execTmux runs a tmux command on the pane's server and returns its
// output.
func execTmux(p *tmuxPane, args ...string) (string, error) {
	out, err := exec.Command("tmux", append([]string{"-S", p.sock}, args...)...).Output()
	return string(out), err
}
