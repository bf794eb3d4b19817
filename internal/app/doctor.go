package app

import (
	"context"
	"log/slog"
	"os"
	"strconv"
	"strings"

	"github.com/hermes-go/hermes/internal/clock"
	"github.com/hermes-go/hermes/internal/config"
	"github.com/hermes-go/hermes/internal/doctor"
	"github.com/hermes-go/hermes/internal/safety/redact"
)

// DoctorOptions say what hermes doctor may do beyond looking.
type DoctorOptions struct {
	// Offline skips the calls to the model providers.
	Offline bool
	// DeliverTest sends a test message through each job's delivery chain.
	DeliverTest bool
	// Logger gets the log lines of what the checks build; nil discards them.
	Logger *slog.Logger
	// Version is hermes's version, told to MCP servers.
	Version string
	// Clock tells the time next fires are counted from; nil is the wall
	// clock.
	Clock clock.Clock
}

// DoctorChecks returns the checks of the home l describes. loadErr is what
// config.Load returned beside l: when the configuration does not load,
// the checks that need it are left out and the files are still checked.
func DoctorChecks(l *config.Loaded, loadErr error, o DoctorOptions) []doctor.Check {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	p := l.Paths
	checks := []doctor.Check{
		configCheck(l, loadErr),
		doctor.Permissions(p.Home, p.EnvFile),
		storageCheck(l, loadErr, o),
		doctor.DiskSpace(p.Home),
	}
	if loadErr != nil {
		return checks
	}
	checks = append(checks, providerChecks(l, o)...)
	checks = append(checks, chromiumCheck(l), sshCheck(l), mcpCheck(l, o), toolFilesCheck(l, o), schedulesCheck(l, o))
	return checks
}

// DoctorRedactor redacts the values of every secret the home holds (the
// environment's and .env's, by name, and the providers' keys, which
// config.yaml may hold inline), and every secret recognized by its form,
// from the doctor's report.
func DoctorRedactor(l *config.Loaded) func(string) string {
	secrets := map[string]string{}
	if l.Env == nil {
		return redact.New(secrets).Redact
	}
	for _, name := range l.SecretNames(os.Environ()) {
		if v, ok := l.Env(name); ok {
			secrets[name] = v
		}
	}
	endpoints, _ := l.ResolveFallbacks()
	if r, err := l.ResolveModel(config.ModelOverride{}); err == nil {
		endpoints = append(endpoints, r)
	}
	for _, r := range endpoints {
		if r.APIKey != "" {
			secrets["api_key of "+r.Provider] = string(r.APIKey)
		}
	}
	return redact.New(secrets).Redact
}

// configCheck reports whether config.yaml and .env load, and each warning
// (an unknown key, an unset variable) with the file and line to edit, also
// beside an error, which an unknown key often explains. The warning about
// .env's permissions is left to the permissions check.
func configCheck(l *config.Loaded, loadErr error) doctor.Check {
	return doctor.Check{Name: "config", Run: func(context.Context) []doctor.Result {
		const name = "config"
		p := l.Paths
		var out []doctor.Result
		if loadErr != nil {
			out = append(out, doctor.Problem(name, doctor.Fail, editAt(p, loadErr.Error()),
				"the configuration does not load: %v", loadErr))
		}
		for _, w := range l.Warnings {
			if strings.HasPrefix(w, p.EnvFile+" is readable") {
				continue
			}
			out = append(out, doctor.Problem(name, doctor.Warn, editAt(p, w), "%s", w))
		}
		if len(out) > 0 {
			return out
		}
		if _, err := os.Stat(p.ConfigFile); err != nil {
			return []doctor.Result{doctor.Okf(name, "no %s: the defaults apply", p.ConfigFile)}
		}
		if n := len(l.Unhonoured); n > 0 {
			// Hermes Agent's settings load, but a Hermes user should know
			// which of theirs do nothing here.
			return []doctor.Result{doctor.Okf(name, "%s loads; %d of its Hermes Agent settings are not honoured by hermes (hermes config check lists them)", p.ConfigFile, n)}
		}
		return []doctor.Result{doctor.Okf(name, "%s loads", p.ConfigFile)}
	}}
}

// editAt is the command that opens the file a configuration message
// begins with ("config.yaml:3: …", ".env:2: …") at its line; config.yaml
// when it names none.
func editAt(p config.Paths, msg string) string {
	file, line := p.ConfigFile, ""
	for name, path := range map[string]string{"config.yaml": p.ConfigFile, ".env": p.EnvFile} {
		if rest, ok := strings.CutPrefix(msg, name+":"); ok {
			file = path
			if n, _, ok := strings.Cut(rest, ":"); ok {
				if _, err := strconv.Atoi(n); err == nil {
					line = n
				}
			}
		}
	}
	cmd := "${EDITOR:-vi} "
	if line != "" {
		cmd += "+" + line + " "
	}
	return cmd + doctor.ShellQuote(file)
}
