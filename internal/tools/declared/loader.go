package declared

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/hermes-go/hermes/internal/safety/netguard"
	"github.com/hermes-go/hermes/internal/tool"
)

// LoaderOptions configure a Loader.
type LoaderOptions struct {
	// Dir is the directory of tools files, $HERMES_HOME/tools; every
	// *.yaml and *.yml in it is read. A missing directory declares
	// nothing.
	Dir string
	// ConfigFile is config.yaml, whose tools: and connections: keys are
	// read like a tools file's; empty means none.
	ConfigFile string
	// Registry gets the tools.
	Registry *tool.Registry
	// Env looks up the ${NAME} references of templates and DSNs at call
	// time (the process environment, then $HERMES_HOME/.env).
	Env func(name string) (string, bool)
	// Logger gets a warning per problem found; nil means none.
	Logger *slog.Logger
	// Guard is the URL guard http tools send through, as http_request
	// does; nil means the default guard, which refuses private addresses
	// except the host a tool's author wrote into its URL.
	Guard *netguard.Guard
	// Fallback approves the commands of command tools for calls that
	// carry no approver, as the terminal's Fallback does; when both are
	// missing every command is denied.
	Fallback tool.Approver
}

// Loader reads the tools files, registers their tools, and keeps the
// registry in step with the files as they change (Watch).
type Loader struct {
	opts LoaderOptions
	b    builder

	mu       sync.Mutex
	files    map[string]*fileState // by path
	tools    map[string]*Tool      // registered by this loader, by name
	conns    map[string]*sqlConn   // by connection name
	creds    []string              // the tools' credential variables
	problems []Problem
	closed   bool
}

// fileState is what the loader knows of one file: its last contents and
// the tools and connections it is currently taken to declare (the last
// good version, when the current one is broken).
type fileState struct {
	path, display, dir string
	data               string
	tools              []*Tool
	conns              []parsedConn
	problems           []Problem
}

// NewLoader returns a loader; nothing is read until Load.
func NewLoader(opts LoaderOptions) *Loader {
	return &Loader{
		opts:  opts,
		b:     builder{env: opts.Env, clients: newClients(opts.Guard), fallback: opts.Fallback},
		files: map[string]*fileState{},
		tools: map[string]*Tool{},
		conns: map[string]*sqlConn{},
	}
}

// Load reads every tools file and registers the good tools. Problems
// (a file that is not YAML, a tool that is not valid) are recorded for
// Problems and logged, not returned; the error is for what prevents
// loading at all, such as a directory that cannot be read.
func (l *Loader) Load() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.reload()
}

// Problems returns what is wrong in the files as last loaded, by file and
// line.
func (l *Loader) Problems() []Problem {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.problems)
}

// Tools returns the tools registered by the loader, sorted by name.
func (l *Loader) Tools() []*Tool {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make([]*Tool, 0, len(l.tools))
	for _, t := range l.tools {
		out = append(out, t)
	}
	slices.SortFunc(out, func(a, b *Tool) int { return cmp.Compare(a.Name(), b.Name()) })
	return out
}

// CredentialNames lists the environment variables the registered tools
// send as credentials (see Tool.CredentialNames), sorted and once each:
// hermes redacts their values from what tools return, like its own keys.
func (l *Loader) CredentialNames() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.creds)
}

// Close closes the database connections the loader's sql tools opened.
// The tools stay registered; their next call reports the connection
// closed.
func (l *Loader) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.closed = true
	var errs []error
	for _, c := range l.conns {
		if err := c.Close(); err != nil {
			errs = append(errs, fmt.Errorf("close connection %s: %w", c.name, err))
		}
	}
	return errors.Join(errs...)
}

// source is one file to read.
type source struct{ path, display string }

// sources lists config.yaml first, then the tools directory's files in
// name order: when two declare the same tool, the earlier one wins.
func (l *Loader) sources() ([]source, error) {
	var out []source
	if l.opts.ConfigFile != "" {
		if _, err := os.Stat(l.opts.ConfigFile); err == nil {
			out = append(out, source{l.opts.ConfigFile, filepath.Base(l.opts.ConfigFile)})
		}
	}
	if l.opts.Dir == "" {
		return out, nil
	}
	entries, err := os.ReadDir(l.opts.Dir)
	if errors.Is(err, fs.ErrNotExist) {
		return out, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the tools directory: %w", err)
	}
	base := filepath.Base(l.opts.Dir)
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || strings.HasPrefix(name, ".") || !isToolsFile(name) {
			continue
		}
		out = append(out, source{filepath.Join(l.opts.Dir, name), filepath.ToSlash(filepath.Join(base, name))})
	}
	return out, nil
}

func isToolsFile(name string) bool {
	ext := strings.ToLower(filepath.Ext(name))
	return ext == ".yaml" || ext == ".yml"
}

// reload reads the files again (parsing only those whose contents
// changed) and brings the registry in step. l.mu is held.
func (l *Loader) reload() error {
	if l.closed {
		return errors.New("declared tools loader is closed")
	}
	srcs, err := l.sources()
	if err != nil {
		return err
	}
	seen := map[string]bool{}
	var order []*fileState
	for _, s := range srcs {
		seen[s.path] = true
		order = append(order, l.readFile(s))
	}
	for path := range l.files {
		if !seen[path] {
			delete(l.files, path)
		}
	}
	return l.apply(order)
}

// readFile refreshes the state of one file. When its new contents do not
// parse as YAML, the file's previous tools stay; when single tools are
// not valid, their previous versions stay and the rest is updated.
func (l *Loader) readFile(s source) *fileState {
	st := l.files[s.path]
	if st == nil {
		st = &fileState{path: s.path, display: s.display, dir: filepath.Dir(s.path)}
		l.files[s.path] = st
	}
	data, err := os.ReadFile(s.path)
	if err != nil {
		st.problems = []Problem{{File: s.display, Err: fmt.Errorf("cannot be read: %w", err)}}
		st.data = ""
		return st
	}
	if string(data) == st.data && st.data != "" {
		return st
	}
	st.data = string(data)
	pf := parseFile(s.display, st.dir, data, l.b)
	if pf.syntaxErr != nil {
		st.problems = []Problem{*pf.syntaxErr}
		return st
	}
	prev := map[string]*Tool{}
	for _, t := range st.tools {
		prev[t.Name()] = t
	}
	st.problems = slices.Clone(pf.problems)
	st.tools = nil
	for _, ps := range pf.specs {
		if ps.tool != nil {
			st.tools = append(st.tools, ps.tool)
			continue
		}
		st.problems = append(st.problems, ps.problems...)
		if old := prev[ps.name]; old != nil {
			st.tools = append(st.tools, old)
		}
	}
	st.conns = pf.conns
	return st
}

// setProblems records the problems of this load and logs the new ones.
func (l *Loader) setProblems(ps []Problem) {
	old := map[string]bool{}
	for _, p := range l.problems {
		old[p.Error()] = true
	}
	for _, p := range ps {
		if !old[p.Error()] {
			l.warn("declared tools: "+p.Err.Error(), slog.String("file", p.File), slog.Int("line", p.Line), slog.String("tool", p.Tool))
		}
	}
	l.problems = ps
}

func (l *Loader) warn(msg string, attrs ...slog.Attr) {
	if l.opts.Logger != nil {
		l.opts.Logger.LogAttrs(context.Background(), slog.LevelWarn, msg, attrs...)
	}
}
