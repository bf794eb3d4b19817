package shell

import (
	"path"
	"slices"
	"strings"
)

// Write is a file a command changes: writes, truncates, edits in place,
// removes, moves away or extracts into. Checkpoints keep what such files
// held before a command the agent ran, so the turn can be undone.
type Write struct {
	// Path is the file as the command names it, letter case kept: an
	// absolute path, one under the home ("~/…"), or one relative to one
	// of Dirs.
	Path string
	// Dirs are the directories a relative Path may be in: where the
	// command starts (Options.Dir) or what it changes into on the way.
	// They are in the form the rules read, lower case with the home
	// folded to "~", so a caller finds the directory on disk by
	// comparing names without case. Empty for an absolute Path.
	Dirs []string
}

// Writes returns the files cmd, run as o says, changes, each once, in
// the order the command names them: the targets of redirections, tee,
// cp, mv (both ends), install, rsync, dd, sed -i, truncate, rm, touch,
// chmod and the like, curl -o and wget -O, in every command it runs,
// nested ones (bash -c, eval) included. A path the analysis cannot know
// (it holds an expansion of an unknown variable, a glob, or is relative
// to a directory it cannot follow) is left out: ok is false then, and
// also when the command is too complex to analyze.
func (o Options) Writes(cmd string) (writes []Write, ok bool) {
	if len(cmd) > maxCommandBytes {
		return nil, false
	}
	a, ok := analyze(cmd, newEnv(o), clean)
	if !ok {
		return nil, false
	}
	seen := map[string]bool{}
	for _, c := range a.calls {
		for _, t := range c.writes() {
			p := t.raw
			if p == "" || p == "-" || strings.ContainsAny(p, "$`*?[") || strings.HasPrefix(p, "/dev/") {
				ok = ok && (p == "-" || strings.HasPrefix(p, "/dev/"))
				continue
			}
			w := Write{Path: p}
			if !path.IsAbs(p) && p != "~" && !strings.HasPrefix(p, "~/") {
				if len(c.dirs) == 0 {
					ok = false
					continue
				}
				w.Dirs = slices.Clone(c.dirs)
			}
			key := w.Path + "\x00" + strings.Join(w.Dirs, "\x00")
			if !seen[key] {
				seen[key] = true
				writes = append(writes, w)
			}
		}
	}
	return writes, ok
}
