package shell

import (
	"path"
	"strings"
)

// A relative path means nothing until it is joined to the directory the
// command runs in: the session's directory (Options.Dir), and whatever
// the command changes into on the way. "cd /tmp; rm -rf *" runs rm in
// /tmp only if the cd worked; when /tmp is missing it runs where the
// command started. So a call may be in several directories, and the path
// rules judge its relative paths against each.

// maxDirs bounds the directories one call may be in.
const maxDirs = 8

// dirTracker follows the directories the calls of one script run in.
type dirTracker struct {
	e *env
	// cur are the directories the next call may run in; none means
	// unknown, and relative paths are then judged as written.
	cur []string
	// fallback is what cur becomes when an && chain after a cd ends:
	// from then on the cd may or may not have happened.
	fallback []string
	chain    bool
	// saved holds cur at the entry of each subshell level, for when the
	// subshell ends and its cd with it.
	saved []([]string)
	prev  string // the separator before the current call
}

// newDirTracker starts tracking at the directories start.
func newDirTracker(e *env, start []string) *dirTracker {
	return &dirTracker{e: e, cur: start}
}

// at returns the directories c runs in; call it for each call in order.
func (t *dirTracker) at(c *call) []string {
	for len(t.saved) < c.cmd.level {
		t.saved = append(t.saved, t.cur)
	}
	for len(t.saved) > c.cmd.level {
		t.cur = t.saved[len(t.saved)-1]
		t.saved = t.saved[:len(t.saved)-1]
		t.chain = false
	}
	if dir, ok := chdirOption(c); ok {
		return t.join(dir)
	}
	return t.cur
}

// after records what c changes for the calls after it.
func (t *dirTracker) after(c *call) {
	sep, prev := c.cmd.sep, t.prev
	t.prev = sep
	piped := sep == "|" || sep == "|&" || sep == "&" || prev == "|" || prev == "|&"
	if (c.name == "cd" || c.name == "pushd") && !piped {
		if next := t.cdTarget(c); next != nil {
			if sep == "&&" {
				t.fallback = union(union(t.fallbackOrCur(), t.cur), next)
				t.cur, t.chain = next, true
				return
			}
			t.cur = union(t.cur, next)
			if t.chain {
				t.fallback = union(t.fallback, next)
			}
		}
	}
	if t.chain && sep != "&&" {
		t.cur, t.chain = t.fallback, false
	}
}

func (t *dirTracker) fallbackOrCur() []string {
	if t.chain {
		return t.fallback
	}
	return t.cur
}

// cdTarget returns where a cd or pushd goes, or nil when that is unknown
// (cd -, a variable with no known value).
func (t *dirTracker) cdTarget(c *call) []string {
	o := getopt(c.args, "", "")
	if len(o.operands) == 0 {
		return []string{"~"}
	}
	arg := o.operands[0].text
	if arg == "-" || strings.HasPrefix(arg, "+") {
		return nil
	}
	var out []string
	for _, s := range t.e.expand(arg) {
		if strings.Contains(s, "$") {
			continue
		}
		out = union(out, t.cdPathTargets(s))
		out = union(out, t.join(s))
	}
	return out
}

// join returns dir joined to each current directory (dir itself when it
// is absolute); nil when dir is relative and the directory unknown.
func (t *dirTracker) join(dir string) []string {
	if strings.HasPrefix(dir, "/") || strings.HasPrefix(dir, "~") {
		return []string{joinPath(dir, ".")}
	}
	var out []string
	for _, d := range t.cur {
		out = union(out, []string{joinPath(d, dir)})
	}
	return out
}

// joinPath joins a relative path to a directory and cleans the result;
// "~/.." is /home, as cleanPath reads it.
func joinPath(dir, rel string) string {
	c, abs := cleanPath(dir + "/" + rel)
	if !abs {
		return path.Join(dir, rel)
	}
	if rest, ok := strings.CutPrefix(c, homeMark); ok {
		return "~" + rest
	}
	return c
}

// chdirOption returns the directory a wrapper runs its command in (env
// -C, sudo -D).
func chdirOption(c *call) (string, bool) {
	for _, w := range c.wraps {
		var o opts
		switch w.name {
		case "env":
			o = getopt(w.opts, "uCa", "unset chdir argv0")
		case "sudo":
			o = getopt(w.opts, "CDghpRrTtUuc", "chdir")
		default:
			continue
		}
		if d, ok := o.value("C", "D", "chdir"); ok {
			return lower(d), true
		}
	}
	return "", false
}

// union returns a with the members of b it lacks, up to maxDirs.
func union(a, b []string) []string {
	out := a
	for _, s := range b {
		found := false
		for _, x := range out {
			found = found || x == s
		}
		if !found && len(out) < maxDirs {
			out = append(out[:len(out):len(out)], s)
		}
	}
	return out
}

// spellings returns every path a target word of c may name: expanded by
// c's environment, with unknown variables also read as empty (rm -rf
// $DIR/ removes / when DIR is unset), joined to each directory c may run
// in when relative, and with the user's and hermes's homes spelled as
// the path rules compare them.
func (c *call) spellings(text string) []string {
	if c.spelledAt != c.env.version {
		c.spelled, c.spelledAt = nil, c.env.version // a variable has a new value
	}
	if out, ok := c.spelled[text]; ok {
		return out
	}
	out := c.spell(text)
	if c.spelled == nil {
		c.spelled = make(map[string][]string)
	}
	c.spelled[text] = out
	return out
}

// spell computes spellings.
func (c *call) spell(text string) []string {
	out := c.env.expand(text)
	for _, s := range out {
		if strings.Contains(s, "$") {
			if d := dropUnknown(s, true); d != s && d != "" {
				out = append(out, d)
			}
		}
	}
	for _, s := range out {
		if s != "" && !strings.HasPrefix(s, "/") && !strings.HasPrefix(s, "~") && !strings.HasPrefix(s, "$") {
			for _, d := range c.dirs {
				out = append(out, joinPath(d, s))
			}
		}
	}
	if sc := c.env.scope; sc != nil {
		for _, s := range out {
			out = append(out, sc.aliases(s)...)
		}
	}
	return out
}
