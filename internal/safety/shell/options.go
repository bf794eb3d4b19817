package shell

import (
	"path"
	"strings"
)

// Options tell the analysis what a command's text does not: the directory
// it starts in, whose files are whose, and what the shell it runs in
// already holds. The terminal's directory persists from one call to the
// next, so "rm -rf ./*" after an earlier "cd ~" deletes the home
// directory, and "echo key >> authorized_keys" after "cd ~/.ssh" writes a
// key; with a persistent shell its variables and functions persist too
// (see State); only the caller knows that.
//
// The zero Options know nothing beyond the command: relative paths are
// judged only against the directories the command itself changes into,
// hermes's home is ~/.hermes, and the shell is a fresh one.
type Options struct {
	// Dir is the directory the command starts in, absolute (the
	// session's current directory).
	Dir string
	// Home is the user's home directory; paths under it read as ~/….
	// Every /home/<user>, /Users/<user> and /root reads so anyway.
	Home string
	// HermesHome is hermes's own directory ($HERMES_HOME), whose files
	// change only through the tools made for them; "" means ~/.hermes.
	HermesHome string
	// State is what the shell holds from earlier commands (a persistent
	// shell's variables and functions); the zero State is a fresh shell.
	State
}

// Classify returns the verdict for cmd run as o says (see Classify).
func (o Options) Classify(cmd string) Verdict {
	if fs := o.findings(cmd); len(fs) > 0 {
		return fs[0]
	}
	return Verdict{Level: Safe}
}

// scope is Options in the form the path rules compare: lower case,
// cleaned, with homes folded to "~".
type scope struct {
	// home is Options.Home lower-cased and cleaned, "" when not given.
	home string
	// dir is Options.Dir in canonical form, "" when unknown.
	dir string
	// hermes is hermes's home in canonical form; "~/.hermes" by default.
	hermes string
	// hermesAll is set when everything under hermes is hermes's own.
	// It is not when hermes's home is the user's home (or an ancestor of
	// it), where only hermes's own entries (config.yaml, state.db,
	// memories/ …) count, not every file the user keeps there.
	hermesAll bool
}

// defaultHermes is the canonical spelling of hermes's home; the path
// rules compare against it, and a configured home is read as it.
const defaultHermes = "~/.hermes"

// newScope prepares o for the path rules.
func newScope(o Options) *scope {
	s := &scope{hermes: defaultHermes, hermesAll: true}
	if h := strings.ToLower(o.Home); strings.HasPrefix(h, "/") {
		if h = path.Clean(h); h != "/" {
			s.home = h
		}
	}
	s.dir = s.canon(o.Dir)
	if h := s.canon(o.HermesHome); h != "" {
		s.hermes = h
		c, _ := cleanPath(h)
		raw := path.Clean(strings.ToLower(o.HermesHome))
		s.hermesAll = c != "/" && c != homeMark && !(s.home != "" && under(s.home, raw))
	}
	return s
}

// canon returns an absolute path given in Options as word text reads it:
// lower case, cleaned, the user's home folded to "~". A relative or empty
// path is unknown ("").
func (s *scope) canon(p string) string {
	p = strings.ToLower(p)
	if !strings.HasPrefix(p, "/") && !strings.HasPrefix(p, "~") {
		return ""
	}
	if strings.HasPrefix(p, "/") {
		p = path.Clean(p)
	}
	if s.home != "" && under(p, s.home) {
		p = "~" + p[len(s.home):]
	}
	return foldHomes(p)
}

// hermesEntries are the names hermes keeps at the top of its home, for a
// home shared with the user's own files.
func hermesEntry(name string) bool {
	switch name {
	case "config.yaml", ".env", "soul.md", "memories", "skills", "tools", "cron", "profiles", "deliveries",
		"cache", "logs", "sessions", "hooks", "hooks-allowlist.json", "plugins", "auth.json", "mcp.json":
		return true
	}
	return strings.HasPrefix(name, "state.db")
}

// aliases returns the further spellings of an absolute (or home-relative)
// path p that the path rules need: the user's home as "~" and hermes's
// home as ~/.hermes.
func (s *scope) aliases(p string) []string {
	var out []string
	if s.home != "" && strings.HasPrefix(p, "/") && under(path.Clean(p), s.home) {
		p = "~" + path.Clean(p)[len(s.home):]
		out = append(out, p)
	}
	if s.hermes == defaultHermes {
		return out
	}
	c, abs := cleanPath(p)
	h, _ := cleanPath(s.hermes)
	if !abs || !under(c, h) {
		return out
	}
	rest := strings.TrimPrefix(c[len(h):], "/")
	if s.hermesAll || hermesEntry(strings.SplitN(rest, "/", 2)[0]) {
		out = append(out, strings.TrimSuffix(defaultHermes+"/"+rest, "/"))
	}
	return out
}
