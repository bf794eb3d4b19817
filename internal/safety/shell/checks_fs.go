package shell

import "strings"

// The structural checks on file-system commands. Each reads one call's
// arguments with the program's own option rules, which regular expressions
// over the command text cannot do reliably (flags after operands, bundled
// flags, values that look like flags).

// rmOperands returns the files an rm call deletes.
func rmOperands(c *call) []word { return getopt(c.args, "", "").operands }

// rmTargets returns a check that fires when rm deletes a path, in any of
// its spellings, for which is holds.
func rmTargets(is func(string) bool) func(*call) bool {
	return func(c *call) bool { return anySpelling(c, rmOperands(c), is) }
}

// anySpelling reports whether is holds for a spelling of one of ws.
func anySpelling(c *call, ws []word, is func(string) bool) bool {
	for _, w := range ws {
		for _, p := range c.spellings(w.text) {
			if is(p) {
				return true
			}
		}
	}
	return false
}

// deleted returns the words naming what a call removes: rm's operands,
// mv's sources (moving a directory away removes it from where it was),
// the destination of rsync --delete, which loses whatever the source
// lacks, and the starting points of a find -delete that no test narrows.
func deleted(c *call) []word {
	switch c.name {
	case "rm":
		return rmOperands(c)
	case "find":
		if starts, narrowed := findTargets(c); !narrowed && anyWord(c.args, func(s string) bool { return s == "-delete" }) {
			return starts
		}
	case "mv":
		o := getopt(c.args, "St", "suffix target-directory")
		if _, ok := o.value("t", "target-directory"); ok || len(o.operands) < 2 {
			return o.operands
		}
		return o.operands[:len(o.operands)-1]
	case "rsync":
		o := getopt(c.args, "efTBM", "rsh filter exclude include temp-dir block-size remote-option")
		for _, l := range o.long {
			if strings.HasPrefix(l, "del") && len(o.operands) >= 2 {
				return o.operands[len(o.operands)-1:]
			}
		}
	}
	return nil
}

// deletes returns a check that fires when a call removes a path, in any
// of its spellings, for which is holds.
func deletes(is func(string) bool) func(*call) bool {
	return func(c *call) bool { return anySpelling(c, deleted(c), is) }
}

// recursiveOnSystem fires on chmod, chown or chgrp -R over the root, a
// system directory or a home directory: whatever the mode, such a change
// can leave the machine unusable (sudo refuses to run, sshd rejects keys).
func recursiveOnSystem(c *call) bool {
	return anySpelling(c, recursiveTargets(c), func(p string) bool { return rootTarget(p) || systemDirTarget(p) || homeTarget(p) })
}

// recursiveOnRoot fires on chmod, chown or chgrp -R over the whole file
// system (chmod -R 000 /): nothing on the machine works afterwards, and
// there is no record of what the modes were.
func recursiveOnRoot(c *call) bool { return anySpelling(c, recursiveTargets(c), rootTarget) }

// recursiveTargets returns the files a recursive chmod, chown or chgrp
// changes; none when it is not recursive.
func recursiveTargets(c *call) []word {
	o := getopt(c.args, "", "reference from")
	if !(o.has("R") || o.hasLong("recursive", 3)) || len(o.operands) == 0 {
		return nil
	}
	if _, ok := o.value("reference"); ok {
		return o.operands
	}
	return o.operands[1:]
}

// removesSystemFile fires when rm, unlink, shred or mv takes away a file
// the operating system needs (unlink /bin/sh, mv /usr/bin/sudo x).
func removesSystemFile(c *call) bool {
	ws := deleted(c)
	if c.name == "unlink" || c.name == "shred" || c.name == "rmdir" || c.name == "srm" {
		ws = getopt(c.args, "ns", "iterations size random-source").operands
	}
	return anySpelling(c, ws, systemPath)
}

// rmRecursive fires on rm -r, -R, --recursive (or an abbreviation),
// wherever the flag stands.
func rmRecursive(c *call) bool {
	o := getopt(c.args, "", "")
	return o.has("rR") || o.hasLong("recursive", 1)
}

// rmAbsolute fires when rm deletes a file by absolute path, except the
// one cleanup hermes itself asks for after verifying code: rm -f of a
// single /tmp/hermes-verify-* or /tmp/hermes-ad-hoc-* file, spelled
// plainly, as the whole command.
func rmAbsolute(c *call) bool {
	if verificationCleanup(c) {
		return false
	}
	return anyWord(rmOperands(c), func(p string) bool { return strings.HasPrefix(p, "/") })
}

// verificationCleanup reports whether c is exactly "rm -f /tmp/hermes-
// verify-NAME" (or hermes-ad-hoc-NAME), alone in the command, with a NAME
// of letters, digits, dots, dashes and underscores only.
func verificationCleanup(c *call) bool {
	ws := c.cmd.words
	if c.sc.depth != 0 || len(c.sc.cmds) != 1 || len(ws) != 3 || len(c.cmd.redirs) > 0 || c.cmd.stdin != nil ||
		ws[0].raw != "rm" || ws[1].raw != "-f" || len(ws[2].subs) > 0 {
		return false
	}
	name, ok := strings.CutPrefix(ws[2].raw, "/tmp/hermes-verify-")
	if !ok {
		name, ok = strings.CutPrefix(ws[2].raw, "/tmp/hermes-ad-hoc-")
	}
	if !ok || name == "" {
		return false
	}
	for i := 0; i < len(name); i++ {
		if c := name[i]; !(isIdent(c) || c == '.' || c == '-') {
			return false
		}
	}
	return true
}

// chmodWorldWritable fires when chmod gives write permission to others:
// a numeric mode whose last digit has the write bit (777, 666, 1777) or a
// symbolic one with o or a gaining w (o+w, a+rwx, o=rw).
func chmodWorldWritable(c *call) bool {
	o := getopt(c.args, "", "reference")
	if _, ok := o.value("reference"); ok || len(o.operands) == 0 {
		return false
	}
	return worldWritable(o.operands[0].text)
}

func worldWritable(mode string) bool {
	if mode != "" && len(mode) <= 4 && strings.Trim(mode, "01234567") == "" {
		d := mode[len(mode)-1] - '0'
		return d&2 != 0
	}
	for _, clause := range strings.Split(mode, ",") {
		who := strings.TrimLeft(clause, "ugoa")
		whoSet := clause[:len(clause)-len(who)]
		if !strings.ContainsAny(whoSet, "oa") {
			continue
		}
		op := byte(0)
		for i := 0; i < len(who); i++ {
			switch who[i] {
			case '+', '-', '=':
				op = who[i]
			case 'w':
				if op == '+' || op == '=' {
					return true
				}
			}
		}
	}
	return false
}

// chownRootRecursive fires on chown -R (or --recursive, --recur …) to
// root as owner or group.
func chownRootRecursive(c *call) bool {
	o := getopt(c.args, "", "reference from")
	if !(o.has("R") || o.hasLong("recursive", 3)) || len(o.operands) == 0 {
		return false
	}
	owner := o.operands[0].text
	user, group, found := strings.Cut(owner, ":")
	if !found {
		user, group, _ = strings.Cut(owner, ".")
	}
	return user == "root" || user == "0" || group == "root" || group == "0"
}

// findDelete fires on find -delete and on find -exec/-execdir/-ok/-okdir
// running a deleting program.
func findDelete(c *call) bool {
	for i, a := range c.args {
		switch a.text {
		case "-delete":
			return true
		case "-exec", "-execdir", "-ok", "-okdir":
			if i+1 < len(c.args) {
				switch programName(c.args[i+1].text) {
				case "rm", "unlink", "shred", "rmdir", "srm":
					return true
				}
			}
		}
	}
	return false
}
