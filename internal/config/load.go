package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// LoadOptions says where to find the configuration and what overrides it.
type LoadOptions struct {
	// Home replaces $HERMES_HOME as the base directory; the profile still
	// applies below it. Empty means Home(Env, Profile).
	Home string
	// Profile selects Home/profiles/NAME; empty or "default" is Home itself.
	Profile string
	// Env is the process environment; nil means os.LookupEnv.
	Env Lookup
	// Overrides are command-line flags as dotted key → value; they win over
	// every other layer.
	Overrides map[string]string
}

// Loaded is the effective configuration of one hermes home. Its methods
// only read it, so one Loaded may be shared by many goroutines.
type Loaded struct {
	// Config is the result of all layers: defaults, config.yaml, .env,
	// the process environment and flags.
	Config Config
	// Warnings are problems that did not stop loading: unknown keys, unset
	// variables, a .env readable by others.
	Warnings []string
	// Unhonoured are the keys of Hermes Agent's configuration set in
	// config.yaml to other than Hermes's default that hermes does not act
	// on (see hermes.go), sorted: not warnings, since they are not
	// mistakes, but told by hermes config check (UnhonouredReport) and
	// hermes doctor.
	Unhonoured []string
	// Paths are the files of the home directory in use.
	Paths Paths
	// Profile is the profile in use, "" for the default one.
	Profile string
	// Env looks a variable up in the process environment, then in .env;
	// later packages read their secrets (bot tokens, API keys) through it.
	Env Lookup

	env     *environment
	origins map[string]string
}

// Load reads config.yaml and .env from the hermes home and applies the
// environment and flag overrides. A missing file is not an error. When
// anything is wrong, Load returns every problem at once (joined with
// errors.Join), each naming its source, key, value and what is accepted;
// the *Loaded returned beside such an error carries only the Warnings and
// Paths (an unknown key is often the cause of an error), and its Config
// must not be used.
func Load(opts LoadOptions) (*Loaded, error) {
	proc := opts.Env
	if proc == nil {
		proc = os.LookupEnv
	}
	var home string
	var err error
	if opts.Home != "" {
		home, err = profileDir(filepath.Clean(opts.Home), opts.Profile)
	} else {
		home, err = Home(proc, opts.Profile)
	}
	if err != nil {
		return nil, err
	}
	paths := PathsFor(home)
	yamlData, err := readOptional(paths.ConfigFile)
	if err != nil {
		return nil, err
	}
	envData, err := readOptional(paths.EnvFile)
	if err != nil {
		return nil, err
	}
	var warns []string
	if envData != nil && runtime.GOOS != "windows" {
		if fi, err := os.Stat(paths.EnvFile); err == nil && fi.Mode().Perm()&0o077 != 0 {
			warns = append(warns, fmt.Sprintf("%s is readable by other users; run: chmod 600 %s", paths.EnvFile, paths.EnvFile))
		}
	}
	l, err := load(proc, opts.Overrides, paths, yamlData, envData)
	if l != nil {
		l.Profile = opts.Profile
		l.Warnings = append(warns, l.Warnings...)
	}
	return l, err
}

// FromYAML builds a configuration with no home directory: data is what
// config.yaml would hold (nil for the defaults) and env is the only
// environment (nil reads none, not even the process's). Nothing is read
// from disk, and the Paths are empty (Paths.InMemory), which tells the
// assembly to keep no files either: a hermes embedded in a program.
// Errors are as Load's, naming "config.yaml" as the source.
func FromYAML(data []byte, env Lookup) (*Loaded, error) {
	if env == nil {
		env = MapLookup(nil)
	}
	return load(env, nil, Paths{}, data, nil)
}

// readOptional reads a file that may be missing.
func readOptional(path string) ([]byte, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	return data, nil
}

// load builds the configuration from the contents of config.yaml and .env
// (nil when missing), layer by layer, lowest first.
func load(proc Lookup, overrides map[string]string, paths Paths, yamlData, envData []byte) (*Loaded, error) {
	l := &Loaded{Config: Defaults(), Paths: paths, origins: map[string]string{}}
	vars, warns, errs := parseDotenv(envData, ".env")
	l.env = &environment{proc: proc, dotenv: vars, file: ".env"}
	l.Env = l.env.get
	l.Warnings = warns

	d := newDecoder("config.yaml", l.origins)
	root, ywarns, err := parseYAML(yamlData, "config.yaml")
	l.Warnings = append(l.Warnings, ywarns...)
	if err != nil {
		errs = append(errs, err)
	} else if root != nil {
		d.substitute(root, "", l.Env, 0)
		hermesNodes(root)
		d.decode(root, reflect.ValueOf(&l.Config).Elem(), "", "", 0)
		// Hermes Agent's tools: is a mapping of its tool settings, where
		// hermes's is a list of declared tools.
		if t := l.Config.Tools; t.Kind == yaml.MappingNode && d.hermesKey("tools", &t, 1) {
			l.Config.Tools = yaml.Node{}
		}
	}
	errs = append(errs, d.errs...)
	l.Warnings = append(l.Warnings, d.warns...)
	l.Unhonoured = slices.Sorted(slices.Values(d.unhonoured))

	errs = append(errs, applyEnv(&l.Config, l.env, l.origins)...)
	errs = append(errs, applyOverrides(&l.Config, overrides, l.origins)...)
	failed := map[string]bool{}
	for _, err := range errs {
		if fe, ok := err.(*FieldError); ok {
			failed[fe.Key] = true
		}
	}
	for _, err := range validate(&l.Config, l.nearOrigin) {
		if fe, ok := err.(*FieldError); !ok || !failed[fe.Key] {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		l.Config = Config{}
		return l, errors.Join(errs...)
	}
	return l, nil
}

// parseYAML parses the first document of data and returns its root node
// (nil for an empty file). A syntax error names the file and line. A
// panic inside the YAML library is turned into an error: a bad file must
// not crash the program that reads it.
func parseYAML(data []byte, file string) (root *yaml.Node, warns []string, err error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, nil, nil
	}
	defer func() {
		if r := recover(); r != nil {
			root, err = nil, fmt.Errorf("%s: cannot be read as YAML (%v)", file, r)
		}
	}()
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, nil, nil
		}
		return nil, nil, yamlError(file, err)
	}
	var next yaml.Node
	if dec.Decode(&next) == nil && len(next.Content) > 0 {
		warns = append(warns, fmt.Sprintf("%s:%d: only the first YAML document is read; the rest is ignored", file, next.Line))
	}
	if doc.Kind == yaml.DocumentNode {
		if len(doc.Content) == 0 {
			return nil, warns, nil
		}
		return doc.Content[0], warns, nil
	}
	return &doc, warns, nil
}

// yamlError rewrites the YAML library's "yaml: line N: msg" as
// "FILE:N: invalid YAML: msg". The library reports parser errors (those
// that begin "did not find expected") one line early and omits the line
// when it is the first, so both are corrected here.
func yamlError(file string, err error) error {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	line := 0
	if rest, ok := strings.CutPrefix(msg, "line "); ok {
		if n, tail, ok := strings.Cut(rest, ": "); ok {
			if v, err := strconv.Atoi(n); err == nil {
				line, msg = v, tail
			}
		}
	}
	parserError := strings.HasPrefix(msg, "did not find expected") || strings.HasPrefix(msg, "found undefined tag handle")
	switch {
	case line == 0:
		line = 1
	case parserError:
		line++
	}
	return fmt.Errorf("%s:%d: invalid YAML: %s", file, line, msg)
}

// Origin says where the effective value of key came from: "default",
// "config.yaml:7", ".env:3 HERMES_MODEL_DEFAULT", "env HERMES_MODEL_DEFAULT"
// or "command line".
func (l *Loaded) Origin(key string) string {
	segs, err := splitKey(key)
	if err != nil {
		return "default"
	}
	if o := l.origins[joinKey(configType, segs)]; o != "" {
		return o
	}
	return "default"
}

// nearOrigin is the origin of key or, when key was not set itself, of the
// nearest enclosing entry that was: a fallback entry missing its provider
// is reported at the entry's line.
func (l *Loaded) nearOrigin(key string) string {
	segs, err := splitKey(key)
	if err != nil {
		return ""
	}
	for n := len(segs); n > 0; n-- {
		if o := l.origins[joinKey(configType, segs[:n])]; o != "" {
			return o
		}
	}
	return ""
}
