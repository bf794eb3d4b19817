package shell

import (
	"path"
	"strings"
)

// writeKind says how a command writes a file.
type writeKind uint16

const (
	viaRedirect writeKind = 1 << iota // > file, >> file, &> file
	viaTee                            // tee file
	viaCopy                           // cp, mv, install, ln, rsync destination
	viaDownload                       // curl -o file, wget -O file
	viaDD                             // dd of=file
	viaInPlace                        // sed -i, perl -i, ruby -i
	viaTruncate                       // truncate file
	viaModify                         // rm, mv's source, chmod, chown, touch, mkdir, ln's link
	viaExtract                        // tar -x -C dir, unzip -d dir, git clone … dir, sqlite3 db

	anyWrite = viaRedirect | viaTee | viaCopy | viaDownload | viaDD | viaInPlace | viaTruncate
	// anyChange adds the commands that remove files, change their
	// metadata or fill a directory: for places no command may touch.
	anyChange = anyWrite | viaModify | viaExtract
)

// target is one file a command writes.
type target struct {
	path string // word text: lower case, home folded
	kind writeKind
	raw  string // as the shell reads it, letter case kept (Options.Writes)
}

// writes returns the files the call writes, by redirection or as the
// destination of a program that writes files. A copy into what looks like
// a directory (a trailing slash, or a last component without an
// extension) also lists the file it creates there, so cp config.yaml
// ~/.hermes names ~/.hermes/config.yaml.
func (c *call) writes() []target {
	if !c.targetsDone {
		c.targets, c.targetsDone = c.findWrites(), true
	}
	return c.targets
}

func (c *call) findWrites() []target {
	var out []target
	for _, r := range c.cmd.redirs {
		switch r.op {
		case ">", ">>", ">|", "&>", "&>>", "<>":
		case ">&":
			if isDigits(r.target.raw) || r.target.raw == "-" {
				continue
			}
		default:
			continue
		}
		out = append(out, target{r.target.text, viaRedirect, r.target.raw})
	}
	switch c.name {
	case "tee":
		for _, w := range getopt(c.args, "", "output-error").operands {
			out = append(out, target{w.text, viaTee, w.raw})
		}
	case "cp", "mv", "install", "ln", "rsync", "scp":
		out = append(out, copyTargets(c)...)
	case "curl":
		if v, ok := getopt(c.args, "oAHdXeuTxKrCEwYyz", "output user-agent header data request referer user upload-file proxy config range continue-at cert write-out speed-limit speed-time time-cond").value("o", "output"); ok {
			out = append(out, target{lower(v), viaDownload, v})
		}
	case "wget":
		if v, ok := getopt(c.args, "OoaPeUiTtwQ", "output-document output-file append-output directory-prefix execute user-agent input-file timeout tries wait quota").value("O", "output-document"); ok {
			out = append(out, target{lower(v), viaDownload, v})
		}
	case "dd":
		for _, a := range c.args {
			if v, ok := strings.CutPrefix(a.text, "of="); ok {
				out = append(out, target{v, viaDD, v})
			}
		}
	case "sed", "perl", "ruby":
		if files, ok := inPlaceFiles(c); ok {
			for _, w := range files {
				out = append(out, target{w.text, viaInPlace, w.raw})
			}
		}
	case "truncate":
		for _, w := range getopt(c.args, "sr", "size reference").operands {
			out = append(out, target{w.text, viaTruncate, w.raw})
		}
	}
	return append(out, modifyTargets(c)...)
}

// modifyTargets returns what a call removes, moves away, changes the
// metadata of, creates or fills without writing a file's content.
func modifyTargets(c *call) []target {
	var ws []word
	kind := viaModify
	switch c.name {
	case "rm", "unlink", "shred", "rmdir", "touch", "mkdir", "mkfifo", "mknod", "srm":
		ws = getopt(c.args, "mrdtZ", "mode reference date time context").operands
	case "mv":
		ws = deleted(c)
	case "chmod", "chown", "chgrp", "chattr", "setfacl":
		o := getopt(c.args, "mMxX", "reference from modify set-file remove")
		ws = o.operands
		if _, ref := o.value("reference"); !ref && len(ws) > 0 && c.name != "setfacl" {
			ws = ws[1:]
		}
	case "tar", "bsdtar", "gtar":
		if d, ok := getopt(c.args, "CfbHIKLNTVX", "directory file").value("C", "directory"); ok {
			return []target{{lower(d), viaExtract, d}}
		}
	case "unzip":
		if d, ok := getopt(c.args, "dxP", "").value("d"); ok {
			return []target{{lower(d), viaExtract, d}}
		}
	case "git":
		if sub, rest := subcommand(c.args, "cC", "git-dir work-tree"); sub == "clone" {
			if o := getopt(rest, "objuc", "origin branch reference upload-pack config depth template separate-git-dir"); len(o.operands) >= 2 {
				return []target{{o.operands[1].text, viaExtract, o.operands[1].raw}}
			}
		}
	case "sqlite3", "litecli":
		if o := getopt(c.args, "", "cmd"); len(o.operands) > 0 {
			ws, kind = o.operands[:1], viaExtract
		}
	}
	out := make([]target, 0, len(ws))
	for _, w := range ws {
		out = append(out, target{w.text, kind, w.raw})
	}
	return out
}

// copyTargets returns the destination of a cp-like command: the -t
// directory or the last operand, and for a directory destination also the
// files it receives.
func copyTargets(c *call) []target {
	argShort, argLong := "St", "suffix target-directory"
	switch c.name {
	case "install":
		argShort, argLong = "gmoSt", "group mode owner suffix target-directory strip-program"
	case "rsync":
		argShort, argLong = "efTBM", "rsh filter exclude include temp-dir block-size remote-option"
	case "scp":
		argShort, argLong = "cFiJlopPSoX", ""
	}
	o := getopt(c.args, argShort, argLong)
	dest, rawDest, sources := "", "", o.operands
	if v, ok := o.value("t", "target-directory"); ok && c.name != "scp" {
		dest, rawDest = lower(v), v
	} else if len(o.operands) >= 2 {
		last := o.operands[len(o.operands)-1]
		dest, rawDest, sources = last.text, last.raw, o.operands[:len(o.operands)-1]
	} else {
		return nil
	}
	out := []target{{dest, viaCopy, rawDest}}
	if !strings.HasSuffix(dest, "/") && strings.Contains(strings.TrimPrefix(path.Base(dest), "."), ".") {
		return out // backup.yaml: a file name, not a directory receiving files
	}
	for _, s := range sources {
		if base := path.Base(s.text); base != "." && base != "/" && base != ".." {
			out = append(out, target{strings.TrimSuffix(dest, "/") + "/" + base, viaCopy,
				strings.TrimSuffix(rawDest, "/") + "/" + path.Base(s.raw)})
		}
	}
	return out
}

// inPlaceFiles returns the files sed, perl or ruby edit in place, and
// whether the call edits in place at all (-i, -i.bak, -pi, --in-place).
// Every operand counts, including sed's script position: sed -i FILE with
// no script still names the file hermes must not let it touch.
func inPlaceFiles(c *call) ([]word, bool) {
	argShort, argLong := "efl", "expression file line-length"
	switch c.name {
	case "perl":
		argShort, argLong = "eEIMmx0FCdD", ""
	case "ruby":
		argShort, argLong = "eIrCEFKx", ""
	}
	inPlace := false
	for _, a := range c.args {
		s := a.raw
		if s == "--" || !strings.HasPrefix(s, "-") {
			continue
		}
		if strings.HasPrefix(s, "--") {
			if name, _, _ := strings.Cut(s[2:], "="); name != "" && strings.HasPrefix("in-place", name) {
				inPlace = true
			}
			continue
		}
		for k := 1; k < len(s); k++ {
			if s[k] == 'i' {
				inPlace = true
				break
			}
			if strings.IndexByte(argShort, s[k]) >= 0 {
				break
			}
		}
	}
	if !inPlace {
		return nil, false
	}
	return getopt(c.args, argShort, argLong).operands, true
}

// writesTo returns a check that fires when the call writes, in one of the
// given ways, a file for which is holds.
func writesTo(is func(string) bool, kinds writeKind) func(*call) bool {
	return func(c *call) bool {
		for _, t := range c.writes() {
			if t.kind&kinds == 0 {
				continue
			}
			for _, p := range c.spellings(t.path) {
				if is(p) {
					return true
				}
			}
		}
		return false
	}
}
