package config

import (
	"fmt"
	"path/filepath"
	"strings"
)

// Paths are the files and directories of one hermes home. Their names
// follow Hermes Agent's layout, so a Hermes user recognizes the directory.
type Paths struct {
	// Home is the hermes home directory of the profile in use.
	Home string
	// ConfigFile is Home/config.yaml, the settings.
	ConfigFile string
	// EnvFile is Home/.env, the secrets.
	EnvFile string
	// StateDB is Home/state.db, sessions and everything else stored; in
	// a home Hermes Agent's state.db is in, Home/hermes-state.db (see
	// statedb.go).
	StateDB string
	// MemoriesDir holds MEMORY.md and USER.md.
	MemoriesDir string
	// SkillsDir holds skills/<category>/<name>/SKILL.md.
	SkillsDir string
	// SoulFile is Home/SOUL.md, the persona.
	SoulFile string
}

// InMemory reports whether there is no home directory (FromYAML):
// state lives in memory and nothing is read from or written to a home.
func (p Paths) InMemory() bool { return p.Home == "" }

// PathsFor returns the paths of the hermes home directory home. It looks
// at the home's state.db to tell whether it is Hermes Agent's (see
// stateFile); the rest are names.
func PathsFor(home string) Paths {
	return Paths{
		Home:        home,
		ConfigFile:  filepath.Join(home, "config.yaml"),
		EnvFile:     filepath.Join(home, ".env"),
		StateDB:     stateFile(home),
		MemoriesDir: filepath.Join(home, "memories"),
		SkillsDir:   filepath.Join(home, "skills"),
		SoulFile:    filepath.Join(home, "SOUL.md"),
	}
}

// Home returns the hermes home directory: $HERMES_HOME, or ~/.hermes when
// that is unset, and below it profiles/NAME for a profile other than
// "default". The environment is read through env (nil reads nothing), so
// that tests never depend on the real home directory.
func Home(env Lookup, profile string) (string, error) {
	get := func(name string) string {
		if env == nil {
			return ""
		}
		v, _ := env(name)
		return v
	}
	base := get("HERMES_HOME")
	if base == "" {
		user := userHome(get)
		if user == "" {
			return "", fmt.Errorf("config: cannot find the home directory: set HERMES_HOME or HOME")
		}
		base = filepath.Join(user, ".hermes")
	} else if rest, ok := strings.CutPrefix(base, "~"); ok && (rest == "" || rest[0] == '/' || rest[0] == filepath.Separator) {
		if user := userHome(get); user != "" {
			base = filepath.Join(user, rest)
		}
	}
	return profileDir(filepath.Clean(base), profile)
}

// userHome is the user's home directory as the environment tells it.
func userHome(get func(string) string) string {
	if h := get("HOME"); h != "" {
		return h
	}
	return get("USERPROFILE")
}

// profileDir applies profile to the base home directory.
func profileDir(base, profile string) (string, error) {
	if profile == "" || profile == "default" {
		return base, nil
	}
	if !validProfile(profile) {
		return "", fmt.Errorf("config: profile %q is not accepted; use letters, digits, \"-\", \"_\" and \".\", starting with a letter or digit", profile)
	}
	return filepath.Join(base, "profiles", profile), nil
}

// validProfile keeps a profile name inside profiles/: no separators, no
// "..", nothing hidden.
func validProfile(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for i, c := range s {
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
			i > 0 && (c == '-' || c == '_' || c == '.')
		if !ok {
			return false
		}
	}
	return true
}

// tildePath shortens path for messages by writing the user's home as "~",
// as people type it.
func tildePath(path string, env Lookup) string {
	if env == nil {
		return path
	}
	home, _ := env("HOME")
	if home == "" || home == "/" {
		return path
	}
	home = filepath.Clean(home)
	if path == home {
		return "~"
	}
	if rest, ok := strings.CutPrefix(path, home+string(filepath.Separator)); ok {
		return "~" + string(filepath.Separator) + rest
	}
	return path
}
