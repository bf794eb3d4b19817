package redact

import (
	"path"
	"strings"
)

// Commands hermes runs for the model inherit an environment. Anything
// secret in it is one `env` away from the model's context, so the
// environment handed to them is scrubbed by name: SecretEnvName decides,
// ScrubEnv applies it.

// keptEnvName reports the names that look secret by their words but
// hold no secret: a socket path and an X cookie file path (using them is
// a capability the command policy governs, not a value that can leak),
// and git's author identity. A switch rather than a map, so that nothing
// is built at start-up.
func keptEnvName(upper string) bool {
	switch upper {
	case "SSH_AUTH_SOCK", "XAUTHORITY", "GPG_AGENT_INFO", "GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_AUTHOR_DATE":
		return true
	}
	return false
}

// SecretEnvName reports whether an environment variable's name says it
// holds a secret. The name is split into words at "_", "-" and "."; it is
// secret when a word
//
//   - contains TOKEN (but is not TOKENS, a count), SECRET, PASSWORD,
//     PASSWD, PASSPHRASE, CREDENTIAL, WEBHOOK or COOKIE;
//   - ends with KEY (API_KEY, APIKEY, ACCESSKEY; not KEYBOARD or KEYMAP),
//     PASS (SMTP_PASS) or DSN (SENTRY_DSN);
//   - is AUTH or starts with it (AUTH_HEADER, AUTHTOKEN, OAUTH), except
//     AUTHOR and AUTHORITY;
//
// or when the name is a database or broker URL (DATABASE_URL, REDIS_URL,
// MONGODB_URI), which usually carries a password. Case does not matter.
// SSH_AUTH_SOCK, XAUTHORITY, GPG_AGENT_INFO and GIT_AUTHOR_* are kept:
// their values are paths and names, and git over SSH needs the agent
// socket.
func SecretEnvName(name string) bool {
	u := strings.ToUpper(name)
	if keptEnvName(u) {
		return false
	}
	words := strings.FieldsFunc(u, func(r rune) bool { return r == '_' || r == '-' || r == '.' })
	for i, w := range words {
		switch {
		case strings.Contains(w, "TOKEN") && w != "TOKENS",
			strings.Contains(w, "SECRET"),
			strings.Contains(w, "PASSWORD"), strings.Contains(w, "PASSWD"), strings.Contains(w, "PASSPHRASE"),
			strings.Contains(w, "CREDENTIAL"),
			strings.Contains(w, "WEBHOOK"),
			strings.Contains(w, "COOKIE"),
			strings.HasSuffix(w, "KEY"),
			strings.HasSuffix(w, "PASS"),
			strings.HasSuffix(w, "DSN"):
			return true
		case strings.HasPrefix(w, "AUTH") || strings.HasPrefix(w, "OAUTH"):
			if !strings.HasPrefix(w, "AUTHOR") {
				return true
			}
		case (w == "URL" || w == "URI") && i > 0:
			switch words[i-1] {
			case "DATABASE", "DB", "POSTGRES", "POSTGRESQL", "PG", "MYSQL", "MARIADB", "MONGO", "MONGODB", "REDIS", "AMQP", "RABBITMQ", "BROKER", "CELERY":
				return true
			}
		}
	}
	return false
}

// ScrubEnv returns environ ("NAME=value" entries, as os.Environ gives
// them) without the variables SecretEnvName calls secret, except those
// matching a passthrough pattern: an exact name or a path.Match glob
// ("AWS_*"), for users who want a command to see a credential. Order is
// kept; environ is not modified.
func ScrubEnv(environ []string, passthrough []string) []string {
	out := make([]string, 0, len(environ))
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		if SecretEnvName(name) && !EnvPassed(name, passthrough) {
			continue
		}
		out = append(out, kv)
	}
	return out
}

// EnvPassed reports whether name matches one of the passthrough patterns
// (terminal.env_passthrough): an exact name or a path.Match glob.
func EnvPassed(name string, patterns []string) bool {
	for _, p := range patterns {
		if p == name {
			return true
		}
		if ok, _ := path.Match(p, name); ok {
			return true
		}
	}
	return false
}
