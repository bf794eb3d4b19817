package shell

import "strings"

// Command lines a call builds from its input and arguments and then runs:
// xargs appends what it reads, GNU parallel fills its command with each
// argument, find -exec runs a command for each file it finds, and a
// crontab runs each of its jobs' commands.

// findExec returns the command lines find runs for each file (-exec,
// -execdir, -ok, -okdir … ; or +). When find's expression only walks the
// tree (no test such as -name narrows it), {} stands for its starting
// points too, and find / -exec rm -rf {} + removes /.
func findExec(c *call) []string {
	starts, narrowed := findTargets(c)
	var out []string
	for i := 0; i < len(c.args); i++ {
		switch c.args[i].text {
		case "-exec", "-execdir", "-ok", "-okdir":
		default:
			continue
		}
		j := i + 1
		for j < len(c.args) && c.args[j].raw != ";" && c.args[j].raw != "+" {
			j++
		}
		if j > i+1 {
			line := quoteWords(c.args[i+1 : j])
			out = append(out, line)
			if !narrowed {
				for _, s := range starts {
					out = append(out, strings.ReplaceAll(line, "{}", quoteWord(s.raw)))
				}
			}
		}
		i = j
	}
	return out
}

// findTargets returns find's starting points ("." when none is given)
// and whether a test narrows what it visits below them.
func findTargets(c *call) (starts []word, narrowed bool) {
	i := 0
	for i < len(c.args) {
		a := c.args[i].raw
		if a == "-H" || a == "-L" || a == "-P" || strings.HasPrefix(a, "-O") {
			i++
			continue
		}
		if a == "-D" {
			i += 2
			continue
		}
		break
	}
	for ; i < len(c.args); i++ {
		a := c.args[i].raw
		if strings.HasPrefix(a, "-") || a == "(" || a == "!" || a == "," {
			break
		}
		starts = append(starts, c.args[i])
	}
	if len(starts) == 0 {
		starts = []word{{raw: ".", text: "."}}
	}
	for ; i < len(c.args); i++ {
		narrowed = narrowed || findTest(c.args[i].text)
	}
	return starts, narrowed
}

// findTest reports whether a find primary selects only some files.
func findTest(s string) bool {
	switch strings.TrimPrefix(s, "-") {
	case "name", "iname", "path", "ipath", "wholename", "iwholename", "regex", "iregex", "lname", "ilname",
		"newer", "anewer", "cnewer", "newerat", "newermt", "newerct", "mtime", "mmin", "atime", "amin", "ctime", "cmin",
		"size", "user", "uid", "group", "gid", "perm", "empty", "links", "inum", "samefile", "used", "fstype",
		"nouser", "nogroup", "readable", "writable", "executable", "context", "maxdepth":
		return strings.HasPrefix(s, "-")
	}
	return false
}

// findStarts returns the starting points of a find that feeds a pipe at
// sc.cmds[i] without narrowing them: what find / | xargs rm -rf surely
// receives.
func findStarts(sc *script, i int) []string {
	c := newCall(sc, i, sc.cmds[i], nil)
	if c.name != "find" {
		return nil
	}
	starts, narrowed := findTargets(c)
	if narrowed {
		return nil
	}
	var out []string
	for _, s := range starts {
		out = append(out, s.raw)
	}
	return out
}

// splitItems splits xargs input into its items: at NULs with -0, at the
// -d delimiter, else at blanks and newlines.
func splitItems(c *call, in string) []string {
	for _, w := range c.wraps {
		if w.name != "xargs" {
			continue
		}
		o := getopt(w.opts, "aEdILnPs", "arg-file delimiter eof replace max-lines max-args max-procs max-chars process-slot-var")
		if o.has("0") || o.hasLong("null", 2) {
			return strings.FieldsFunc(in, func(r rune) bool { return r == 0 })
		}
		if d, ok := o.value("d", "delimiter"); ok && d != "" {
			var b strings.Builder
			writeEscaped(&b, d)
			return strings.Split(in, b.String())
		}
	}
	return strings.Fields(in)
}

// xargsLines returns the command lines xargs builds from items: one per
// item with -I (or -i), else the items appended to the command.
func xargsLines(c *call, items []string) []string {
	if len(items) == 0 {
		return nil
	}
	base := "echo"
	for _, w := range c.wraps {
		if w.name != "xargs" {
			continue
		}
		if len(w.rest) > 0 {
			base = quoteWords(w.rest)
		}
		o := getopt(w.opts, "aEdILnPs", "arg-file delimiter eof replace max-lines max-args max-procs max-chars process-slot-var")
		repl, ok := o.value("I", "replace")
		if !ok && (o.has("i") || o.hasLong("replace", 3)) {
			repl, ok = "{}", true
		}
		if ok && repl != "" {
			var out []string
			for _, it := range items[:min(len(items), maxVariants)] {
				out = append(out, strings.ReplaceAll(base, repl, quoteWord(it)))
			}
			return out
		}
	}
	quoted := make([]string, len(items))
	for i, it := range items {
		quoted[i] = quoteWord(it)
	}
	return []string{base + " " + strings.Join(quoted, " ")}
}

// parallelLines returns the command lines GNU parallel builds: its
// command (a shell line, with {} replaced or the argument appended) for
// each argument after :::, or each argument as a command when no command
// is given.
func (a *analysis) parallelLines(c *call) []string {
	o := getopt(c.args, "jPSadEIlLnNsX", "jobs sshlogin arg-file delimiter eof replace max-lines max-args max-replace-args timeout delay results joblog tmpdir colsep basefile workdir env")
	var cmd []word
	var groups [][]string
	for i, w := range o.operands {
		switch w.raw {
		case ":::", ":::+":
			groups = append(groups, nil)
		case "::::", "::::+":
			return nil // arguments from a file
		default:
			if len(groups) == 0 {
				cmd = o.operands[:i+1]
				continue
			}
			groups[len(groups)-1] = append(groups[len(groups)-1], w.raw)
		}
	}
	if len(groups) == 0 {
		in, ok := a.env.stdinOf(c.sc, c.idx)
		if !ok {
			return nil
		}
		groups = [][]string{strings.Split(strings.TrimRight(in, "\n"), "\n")}
	}
	repl, _ := o.value("I", "replace")
	if repl == "" {
		repl = "{}"
	}
	line := joinRaw(cmd)
	var out []string
	for _, g := range groups {
		for _, arg := range g[:min(len(g), maxVariants)] {
			switch {
			case line == "":
				out = append(out, arg)
			case strings.Contains(line, repl):
				out = append(out, strings.ReplaceAll(line, repl, quoteWord(arg)))
			default:
				out = append(out, line+" "+quoteWord(arg))
			}
		}
	}
	return out
}

// crontabCommands returns the commands of crontab lines: each line's
// text after its five time fields (or an @reboot-style special).
func crontabCommands(text string) []string {
	var out []string
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fields := strings.Fields(line)
		skip := 5
		if strings.HasPrefix(fields[0], "@") {
			skip = 1
		} else if isAssignment(fields[0]) && len(fields) == 1 {
			continue
		}
		if len(fields) > skip {
			out = append(out, strings.Join(fields[skip:], " "))
		}
	}
	return out
}
