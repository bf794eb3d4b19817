package shell

import (
	"path"
	"strings"
)

// A command can write a script and run it in the same breath —
// echo 'rm -rf /' > x.sh; sh x.sh — or copy a program under another name
// and run the copy — cp /bin/rm x; ./x -rf /. The analysis remembers what
// each command writes, and reads a file that is then run as what it
// holds: the script's text when that is known, the program it is a copy
// of, or, when neither is known, a file whose meaning only shows when it
// runs.

// written is what the command wrote to one file.
type written struct {
	// text is the file's content, when known.
	text  string
	known bool
	// program is the program the file is a copy of or a link to, by its
	// canonical name ("rm"); "" when it is not one.
	program string
}

// files are the files one input writes, by cleaned path text.
type files struct {
	byPath map[string]*written
}

// maxFiles bounds how many written files the analysis remembers.
const maxFiles = 256

// put records w under every spelling of a target path.
func (f *files) put(keys []string, w written) {
	if f.byPath == nil {
		f.byPath = make(map[string]*written)
	}
	for _, k := range keys {
		if len(f.byPath) >= maxFiles {
			return
		}
		cp := w
		f.byPath[k] = &cp
	}
}

// find returns what was written to any of the spellings keys.
func (f *files) find(keys []string) *written {
	for _, k := range keys {
		if w, ok := f.byPath[k]; ok {
			return w
		}
	}
	return nil
}

// keys returns the spellings of a path word of c, cleaned, under which a
// written file is filed and looked up.
func (c *call) keys(text string) []string {
	var out []string
	for _, s := range c.spellings(text) {
		if s == "" {
			continue
		}
		if c, abs := cleanPath(s); abs {
			s = strings.Replace(c, homeMark, "~", 1)
		} else {
			s = path.Clean(s)
		}
		out = append(out, s)
	}
	return out
}

// content returns the text of a file the input wrote, by its word text,
// for a < redirection.
func (f *files) content(e *env, text string) (string, bool) {
	if w := f.find([]string{path.Clean(text)}); w != nil && w.known {
		return w.text, true
	}
	return "", false
}

// concat returns the text of files the input wrote, one after another,
// as cat prints them.
func (f *files) concat(e *env, names []string) (string, bool) {
	var b strings.Builder
	for _, n := range names {
		t, ok := f.content(e, lower(n))
		if !ok {
			return "", false
		}
		b.WriteString(t)
	}
	return b.String(), true
}

// record notes the files the calls of sv write, with their content where
// it is known.
func (f *files) record(e *env, sv *scriptView) {
	for i, c := range sv.calls {
		for _, t := range c.writes() {
			keys := c.keys(t.path)
			if len(keys) == 0 || t.kind&(viaModify|viaExtract) != 0 {
				continue
			}
			w := written{}
			switch t.kind {
			case viaRedirect:
				w.text, w.known = e.produced(sv.sc, i)
				if prev := f.find(keys); prev != nil && appends(c, t.path) && prev.known && w.known {
					w.text = prev.text + w.text
				}
				if !w.known {
					w.program = copiedProgram(c, "cat")
				}
			case viaTee:
				w.text, w.known = e.stdinOf(sv.sc, i)
			case viaCopy:
				w = f.copied(c)
			}
			f.put(keys, w)
		}
	}
}

// appends reports whether c writes the target path with >>.
func appends(c *call, target string) bool {
	for _, r := range c.cmd.redirs {
		if r.target.text == target && (r.op == ">>" || r.op == "&>>") {
			return true
		}
	}
	return false
}

// copied returns what a cp, mv, install or ln of one source leaves at
// its destination: the source's own record, or a copy of a program.
func (f *files) copied(c *call) written {
	o := getopt(c.args, "St", "suffix target-directory")
	if len(o.operands) != 2 {
		return written{}
	}
	if w := f.find(c.keys(o.operands[0].text)); w != nil {
		return *w
	}
	return written{program: copiedProgram(c, c.name)}
}

// copiedProgram returns the program a cp/ln/install/mv (or a cat > file)
// of c copies, when its source is a program's path (/bin/rm,
// $(which rm)); "" otherwise.
func copiedProgram(c *call, via string) string {
	if c.name != via {
		return ""
	}
	o := getopt(c.args, "St", "suffix target-directory")
	if len(o.operands) == 0 {
		return ""
	}
	src := o.operands[0].text
	if programPath(src) {
		return programName(src)
	}
	return ""
}

// programPath reports whether p is in a directory programs are installed
// in.
func programPath(p string) bool {
	c, abs := cleanPath(p)
	if !abs {
		return false
	}
	switch path.Dir(c) {
	case "/bin", "/sbin", "/usr/bin", "/usr/sbin", "/usr/local/bin", "/usr/local/sbin", "/opt/homebrew/bin",
		"/snap/bin", "/usr/libexec", "/run/current-system/sw/bin":
		return true
	}
	return false
}

// runWritten reads the files the input both writes and runs as what they
// hold, and marks the calls that run them. It returns the scripts so
// derived; the analysis repeats it until nothing new is found, since a
// derived script may write and run files of its own.
func (a *analysis) runWritten() ([]*script, bool) {
	var out []*script
	for _, c := range a.calls {
		file, lang := runTarget(c)
		if file == "" {
			continue
		}
		keys := c.keys(file)
		w := a.env.files.find(keys)
		if w == nil {
			continue
		}
		c.runsWritten = true
		k := ranKey{c, keys[0]}
		if a.ran[k] {
			continue
		}
		if a.ran == nil {
			a.ran = make(map[ranKey]bool)
		}
		a.ran[k] = true
		var srcs []string
		switch {
		case w.program != "":
			srcs = []string{quoteWord(w.program) + " " + quoteWords(c.args)}
		case !w.known:
		case lang == "" && shebang(w.text) != "":
			srcs = codeCommands(shebang(w.text), w.text)
		case lang == "" || isShell(lang):
			srcs = []string{w.text}
		default:
			srcs = codeCommands(lang, w.text)
		}
		scs, ok := childrenOf(c, srcs)
		if !ok {
			return nil, false
		}
		out = append(out, scs...)
	}
	return out, true
}

// runTarget returns the file c runs — a shell's or interpreter's script,
// a sourced file, at -f's job, or the program itself when named by path —
// and the language it is read in ("" for a program run directly).
func runTarget(c *call) (file, lang string) {
	switch {
	case isShell(c.name):
		if sh := shellArgs(c); !sh.hasC && sh.script != nil && !readsCode(c) {
			return sh.script.text, c.name
		}
	case c.name == "source" || c.name == ".":
		if len(c.args) > 0 {
			return c.args[0].text, "sh"
		}
	case isInterpreter(c.name):
		if o := interpreterOpts(c); !inlineCode(c) && len(o.operands) > 0 && !readsCode(c) {
			return o.operands[0].text, c.name
		}
	case c.name == "at" || c.name == "batch":
		if f, ok := getopt(c.args, "fqtm", "").value("f"); ok {
			return lower(f), "sh"
		}
	}
	if strings.Contains(c.exe.text, "/") {
		return c.exe.text, ""
	}
	return "", ""
}

// shebang returns the interpreter a script's #! line names (python for
// #!/usr/bin/env python3), or "" when it names none or a shell.
func shebang(text string) string {
	line, ok := strings.CutPrefix(text, "#!")
	if !ok {
		return ""
	}
	line, _, _ = strings.Cut(line, "\n")
	fields := strings.Fields(line)
	if len(fields) == 0 {
		return ""
	}
	name := programName(fields[0])
	if name == "env" && len(fields) > 1 {
		name = programName(fields[len(fields)-1])
	}
	if isInterpreter(name) {
		return name
	}
	return ""
}
