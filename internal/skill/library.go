package skill

import (
	"fmt"
	"log/slog"
	"path/filepath"
	"runtime"
	"sort"
	"sync"
	"time"

	"github.com/hermes-go/hermes/internal/clock"
	"github.com/hermes-go/hermes/internal/safety/redact"
)

// Options configure a Library.
type Options struct {
	// Dir is the writable skills directory, $HERMES_HOME/skills.
	Dir string
	// ExternalDirs are further skill directories (config external_dirs),
	// read but never written. A name in Dir hides the same name here.
	ExternalDirs []string
	// Platform is linux, macos or windows; empty means the running one.
	Platform string
	// Scan checks text the model or an installer wants to store for prompt
	// injection; found refuses the write with reason. Nil means
	// redact.ScanInjection.
	Scan func(text string) (reason string, found bool)
	// Logger receives reload and problem logs; nil means slog.Default().
	Logger *slog.Logger
	// Recheck, when set, is how long a look at the directories is
	// trusted: a long-running process that builds a system prompt for
	// every request walks them at most this often, and a skill edited by
	// hand shows within it. Zero looks every time. This process's own
	// writes show at once either way.
	Recheck time.Duration
	// Clock times Recheck; nil means the real one.
	Clock clock.Clock
}

// Problem is a skill that could not be loaded: it is skipped and listed,
// never fatal to the rest of the library.
type Problem struct {
	File   string `json:"file"`
	Reason string `json:"reason"`
}

// Library is the set of skills in the skill directories, parsed once and
// re-parsed when a directory changes (see the package doc). It is safe for
// concurrent use.
type Library struct {
	opts Options
	log  *slog.Logger

	mu      sync.Mutex // guards snap and checked
	snap    *snapshot
	checked time.Time // when snap's stamp was last compared

	writeMu sync.Mutex // serializes this process's writes
}

// snapshot is one parse of the library.
type snapshot struct {
	stamp    string
	skills   []*Skill // sorted by category, then name
	byName   map[string]*Skill
	problems []Problem

	searchOnce sync.Once
	search     *bm25
}

// Open returns the library of opts.Dir and opts.ExternalDirs. Missing
// directories are simply empty; nothing is read until the first call.
func Open(opts Options) *Library {
	if opts.Platform == "" {
		opts.Platform = CurrentPlatform()
	}
	if opts.Dir != "" {
		opts.Dir = filepath.Clean(opts.Dir)
	}
	if opts.Scan == nil {
		opts.Scan = redact.ScanInjection
	}
	opts.Clock = clock.OrReal(opts.Clock)
	log := opts.Logger
	if log == nil {
		log = slog.Default()
	}
	return &Library{opts: opts, log: log}
}

// CurrentPlatform maps runtime.GOOS to the names platforms: uses.
func CurrentPlatform() string {
	return platformName(runtime.GOOS)
}

func platformName(goos string) string {
	if goos == "darwin" {
		return "macos"
	}
	return goos
}

// Dir returns the writable skills directory.
func (l *Library) Dir() string { return l.opts.Dir }

// current returns the up-to-date snapshot, re-parsing when the directories'
// fingerprint changed since the last call.
func (l *Library) current() *snapshot {
	now := l.opts.Clock.Now()
	l.mu.Lock()
	if l.snap != nil && l.opts.Recheck > 0 && now.Sub(l.checked) < l.opts.Recheck && !now.Before(l.checked) {
		defer l.mu.Unlock()
		return l.snap
	}
	l.mu.Unlock()
	stamp, found := fingerprint(l.roots())
	l.mu.Lock()
	defer l.mu.Unlock()
	l.checked = now
	if l.snap != nil && l.snap.stamp == stamp {
		return l.snap
	}
	l.snap = l.load(found, stamp)
	return l.snap
}

// invalidate forgets the snapshot after this process wrote a skill, so a
// write whose mtime falls in the same clock tick is still seen.
func (l *Library) invalidate() {
	l.mu.Lock()
	l.snap = nil
	l.mu.Unlock()
}

// root is one skills directory and whether it is read-only.
type root struct {
	dir      string
	external bool
}

func (l *Library) roots() []root {
	var rs []root
	if l.opts.Dir != "" {
		rs = append(rs, root{dir: l.opts.Dir})
	}
	for _, d := range l.opts.ExternalDirs {
		if d != "" {
			rs = append(rs, root{dir: filepath.Clean(d), external: true})
		}
	}
	return rs
}

// load parses every found SKILL.md. A name seen twice keeps the first one
// (Dir before external dirs, then path order) and lists the other as a
// problem.
func (l *Library) load(found []candidate, stamp string) *snapshot {
	s := &snapshot{stamp: stamp, byName: make(map[string]*Skill)}
	for _, c := range found {
		sk, err := loadCandidate(c)
		if err != nil {
			s.problems = append(s.problems, Problem{File: c.path, Reason: err.Error()})
			continue
		}
		if prev, dup := s.byName[sk.Name]; dup {
			s.problems = append(s.problems, Problem{File: c.path, Reason: fmt.Sprintf("skill %q is already defined by %s; this one is ignored", sk.Name, prev.Path)})
			continue
		}
		s.byName[sk.Name] = sk
		s.skills = append(s.skills, sk)
	}
	sort.Slice(s.skills, func(i, j int) bool {
		a, b := s.skills[i], s.skills[j]
		if a.group() != b.group() {
			return a.group() < b.group()
		}
		return a.Name < b.Name
	})
	for _, p := range s.problems {
		l.log.Warn("skill skipped", "file", p.File, "reason", p.Reason)
	}
	l.log.Debug("skills loaded", "count", len(s.skills), "problems", len(s.problems))
	return s
}

// onPlatform reports whether sk runs on platform.
func onPlatform(sk *Skill, platform string) bool {
	return len(sk.Platforms) == 0 || contains(sk.Platforms, platform)
}

// Skills returns the skills for this platform, sorted by category and name.
func (l *Library) Skills() []*Skill {
	snap := l.current()
	out := make([]*Skill, 0, len(snap.skills))
	for _, sk := range snap.skills {
		if onPlatform(sk, l.opts.Platform) {
			out = append(out, sk)
		}
	}
	return out
}

// Get returns the named skill, whatever its platform.
func (l *Library) Get(name string) (*Skill, bool) {
	sk, ok := l.current().byName[name]
	return sk, ok
}

// Names returns the names of the skills for this platform, sorted, for
// slash-command completion.
func (l *Library) Names() []string {
	var names []string
	for _, sk := range l.Skills() {
		names = append(names, sk.Name)
	}
	sort.Strings(names)
	return names
}

// Problems returns the skills of the last load that were skipped.
func (l *Library) Problems() []Problem {
	return append([]Problem(nil), l.current().problems...)
}
