package app

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/hermes-go/hermes/internal/atomicfile"
)

// Service is hermes serve as a systemd user service: the unit that runs
// this binary for one home and profile.
type Service struct {
	// Name is the unit's name: hermes, or hermes-PROFILE.
	Name string
	// Unit is the unit file's text.
	Unit string
}

// NewService describes the service running this binary's hermes serve
// for home (and profile, when not empty).
func NewService(home, profile string) (Service, error) {
	bin, err := os.Executable()
	if err != nil {
		return Service{}, fmt.Errorf("finding this binary: %w", err)
	}
	if bin, err = filepath.EvalSymlinks(bin); err != nil {
		return Service{}, fmt.Errorf("finding this binary: %w", err)
	}
	name := "hermes"
	if profile != "" {
		name += "-" + profile
	}
	return Service{Name: name, Unit: unit(bin, home, profile)}, nil
}

// Install writes the unit to ~/.config/systemd/user/NAME.service, keeping
// an existing one unless force, and returns its path.
func (s Service) Install(force bool) (string, error) {
	cfgDir, err := os.UserConfigDir()
	if err != nil {
		return "", err
	}
	path := filepath.Join(cfgDir, "systemd", "user", s.Name+".service")
	return path, atomicfile.WriteNew(path, []byte(s.Unit), force)
}

// unit is the user unit running hermes serve from bin for home.
func unit(bin, home, profile string) string {
	args := "serve"
	if profile != "" {
		args = "-p " + profile + " serve"
	}
	return strings.Join([]string{
		"[Unit]",
		"Description=hermes agent runtime (scheduled jobs, delivery)",
		"After=network-online.target",
		"Wants=network-online.target",
		"",
		"[Service]",
		"Type=simple",
		"ExecStart=" + systemdQuote(bin) + " " + args,
		"Environment=" + systemdQuote("HERMES_HOME="+home),
		"Restart=on-failure",
		"RestartSec=5",
		// hermes serve ends turns and writes what it holds on SIGTERM.
		// mixed: the signal goes to serve alone, which gives its job
		// processes scheduler.shutdown_timeout before passing it on;
		// what is left at TimeoutStopSec is killed.
		"KillSignal=SIGTERM",
		"KillMode=mixed",
		"TimeoutStopSec=90",
		"",
		"[Install]",
		"WantedBy=default.target",
		"",
	}, "\n")
}

// systemdQuote quotes a word for a unit file when it needs it.
func systemdQuote(s string) string {
	if !strings.ContainsAny(s, " \t\"'\\") {
		return s
	}
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}
