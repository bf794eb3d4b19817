package shell

import (
	"path"
	"strings"
)

// writeKind says how a command writes a file.
type writeKind uint8

const (
	viaRedirect writeKind = 1 << iota // > file, >> file, &> file
	viaTee                            // tee file
	viaCopy                           // cp, mv, install, ln, rsync destination
	viaDownload                       // curl -o file, wget -O file
	viaDD                             // dd of=file
	viaInPlace                        // sed -i, perl -i, ruby -i
	viaTruncate                       // truncate file

	anyWrite = viaRedirect | viaTee | viaCopy | viaDownload | viaDD | viaInPlace | viaTruncate
)

// target is one file a command writes.
type target struct {
	path string // word text: lower case, home folded
	kind writeKind
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
		out = append(out, target{r.target.text, viaRedirect})
	}
	switch c.name {
	case "tee":
		for _, w := range getopt(c.args, "", "output-error").operands {
			out = append(out, target{w.text, viaTee})
		}
	case "cp", "mv", "install", "ln", "rsync", "scp":
		out = append(out, copyTargets(c)...)
	case "curl":
		if v, ok := getopt(c.args, "oAHdXeuTxKrCEwYyz", "output user-agent header data request referer user upload-file proxy config range continue-at cert write-out speed-limit speed-time time-cond").value("o", "output"); ok {
			out = append(out, target{lower(v), viaDownload})
		}
	case "wget":
		if v, ok := getopt(c.args, "OoaPeUiTtwQ", "output-document output-file append-output directory-prefix execute user-agent input-file timeout tries wait quota").value("O", "output-document"); ok {
			out = append(out, target{lower(v), viaDownload})
		}
	case "dd":
		for _, a := range c.args {
			if v, ok := strings.CutPrefix(a.text, "of="); ok {
				out = append(out, target{v, viaDD})
			}
		}
	case "sed", "perl", "ruby":
		if files, ok := inPlaceFiles(c); ok {
			for _, w := range files {
				out = append(out, target{w.text, viaInPlace})
			}
		}
	case "truncate":
		for _, w := range getopt(c.args, "sr", "size reference").operands {
			out = append(out, target{w.text, viaTruncate})
		}
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
	dest, sources := "", o.operands
	if v, ok := o.value("t", "target-directory"); ok && c.name != "scp" {
		dest = lower(v)
	} else if len(o.operands) >= 2 {
		dest, sources = o.operands[len(o.operands)-1].text, o.operands[:len(o.operands)-1]
	} else {
		return nil
	}
	out := []target{{dest, viaCopy}}
	if !strings.HasSuffix(dest, "/") && strings.Contains(strings.TrimPrefix(path.Base(dest), "."), ".") {
		return out // backup.yaml: a file name, not a directory receiving files
	}
	for _, s := range sources {
		if base := path.Base(s.text); base != "." && base != "/" && base != ".." {
			out = append(out, target{strings.TrimSuffix(dest, "/") + "/" + base, viaCopy})
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
