package shell

import "strings"

// Programs that run code handed to them as text: shells, interpreters and
// the wrappers that pass a command line on (su -c, ssh host cmd). hermes
// reads such text as a command of its own wherever it is plain shell, so
// bash -c 'rm -rf /' is as hardline as rm -rf /.

// shellCall is what a shell's arguments ask it to run.
type shellCall struct {
	// command is the -c command string (fish: --command), when given.
	command *word
	// hasC is set when -c was given, even with its string missing.
	hasC bool
	// script is the script file operand, when given.
	script *word
	// stdin is set by -s: read commands from stdin whatever follows.
	stdin bool
}

// shellArgs reads a shell's arguments.
func shellArgs(c *call) shellCall {
	var sh shellCall
	operand := func(w *word) shellCall {
		if sh.hasC {
			sh.command = w
		} else if !sh.stdin {
			sh.script = w
		}
		return sh
	}
	for i := 0; i < len(c.args); i++ {
		a := c.args[i].raw
		switch {
		case a == "--" || a == "-":
			if i+1 < len(c.args) {
				return operand(&c.args[i+1])
			}
			return sh
		case strings.HasPrefix(a, "--"):
			name, value, hasValue := strings.Cut(a[2:], "=")
			switch name {
			case "rcfile", "init-file":
				if !hasValue {
					i++
				}
			case "command":
				sh.hasC = true
				if hasValue {
					w := c.args[i]
					w.raw, w.text = value, lower(value)
					sh.command = &w
					return sh
				}
			}
		case len(a) > 1 && (a[0] == '-' || a[0] == '+'):
			if a[0] == '-' && strings.IndexByte(a, 'c') > 0 {
				sh.hasC = true
			}
			if a[0] == '-' && strings.IndexByte(a, 's') > 0 {
				sh.stdin = true
			}
			if strings.ContainsAny(a[1:], "oO") {
				i++ // -o option, +O shopt: the next word is its value
			}
		default:
			return operand(&c.args[i])
		}
	}
	return sh
}

// commandString returns the command line a call hands to a shell to run:
// sh -c, cmd /c, powershell -Command (or a bare PowerShell command), su
// -c, script -c. ok is false when the call runs no command string.
func commandString(c *call) (payload string, ok bool) {
	switch {
	case isShell(c.name):
		sh := shellArgs(c)
		if sh.command != nil {
			return sh.command.raw, true
		}
		return "", sh.hasC
	case c.name == "cmd":
		for i, a := range c.args {
			if t := a.text; t == "/c" || t == "/k" || t == "/r" {
				return joinRaw(c.args[i+1:]), true
			}
		}
	case c.name == "powershell":
		return powershellCommand(c)
	case c.name == "su" || c.name == "runuser" || c.name == "script":
		if v, found := getopt(c.args, "cslgGuw", "command shell login group supp-group user whitelist-environment").value("c", "command"); found {
			return v, true
		}
	}
	return "", false
}

// powershellCommand reads PowerShell's arguments the way it binds them:
// -Command (or any prefix such as -c, -com) takes the rest of the line, a
// first argument that is not a parameter is a command too, and -File runs
// a script instead.
func powershellCommand(c *call) (string, bool) {
	for i := 0; i < len(c.args); i++ {
		a := c.args[i].text
		if a == "-" {
			return "", false
		}
		name, isParam := strings.CutPrefix(a, "-")
		if !isParam {
			return joinRaw(c.args[i:]), true
		}
		name, _, _ = strings.Cut(name, ":")
		switch {
		case name == "c" || len(name) >= 3 && strings.HasPrefix("command", name):
			return joinRaw(c.args[i+1:]), true
		case name == "f" || len(name) >= 2 && strings.HasPrefix("file", name),
			name == "e" || name == "ec" || len(name) >= 2 && strings.HasPrefix("encodedcommand", name):
			return "", false
		case strings.HasPrefix("executionpolicy", name) && len(name) >= 2, name == "ep", name == "w", name == "wd", name == "v",
			strings.HasPrefix("windowstyle", name) && len(name) >= 2, strings.HasPrefix("version", name) && len(name) >= 2,
			strings.HasPrefix("inputformat", name) && len(name) >= 2, strings.HasPrefix("outputformat", name) && len(name) >= 2,
			strings.HasPrefix("configurationname", name) && len(name) >= 4, strings.HasPrefix("workingdirectory", name) && len(name) >= 2,
			strings.HasPrefix("settingsfile", name) && len(name) >= 2, strings.HasPrefix("custompipename", name) && len(name) >= 2:
			i++ // the parameter's value
		}
	}
	return "", false
}

// inlineCode reports whether an interpreter runs code given on its command
// line: python -c, perl -e, ruby -e, node -e/-p, php -r, deno eval, lua
// -e. perl and ruby with -n or -p are line filters, read like sed and awk,
// and are not counted.
func inlineCode(c *call) bool {
	code, filter := false, false
	for i := 0; i < len(c.args); i++ {
		a := c.args[i].raw
		if a == "--" || !strings.HasPrefix(a, "-") || a == "-" {
			return c.name == "deno" && strings.EqualFold(a, "eval") && !code || code && !filter
		}
		if name, ok := strings.CutPrefix(a, "--"); ok {
			name, _, _ = strings.Cut(name, "=")
			code = code || name == "eval" || name == "print" && c.name == "node"
			continue
		}
		letters, takesArg := inlineLetters(c.name)
		for k := 1; k < len(a); k++ {
			switch {
			case strings.IndexByte(letters, a[k]) >= 0:
				code = true
			case (c.name == "perl" || c.name == "ruby") && (a[k] == 'n' || a[k] == 'p'):
				filter = true
			case c.name == "python" && a[k] == 'm':
				return code // -m runs a module; what follows is its arguments
			}
			if strings.IndexByte(takesArg, a[k]) >= 0 || strings.IndexByte(letters, a[k]) >= 0 {
				if k == len(a)-1 {
					i++
				}
				break
			}
		}
	}
	return code && !filter
}

// inlineLetters returns an interpreter's short options that take code and
// those that take some other value.
func inlineLetters(name string) (code, takesArg string) {
	switch name {
	case "python":
		return "c", "WXQ"
	case "perl":
		return "eE", "IMmxFCdDl0"
	case "ruby":
		return "e", "IrCEFKx"
	case "node", "bun":
		return "ep", "rC"
	case "php":
		return "rBRE", "cdz"
	case "lua", "osascript", "rscript":
		return "e", "l"
	}
	return "", ""
}

// readsCode reports whether the call takes the program it runs from stdin:
// a shell or interpreter with no -c, no inline code and no script file (or
// the script "-" or /dev/stdin), PowerShell's iex, source /dev/stdin, at
// and batch (which run their stdin later), and su, sudo -s or sudo -i
// with no command (a root shell reading stdin).
func readsCode(c *call) bool {
	switch {
	case isShell(c.name):
		sh := shellArgs(c)
		return !sh.hasC && (sh.stdin || stdinPath(sh.script))
	case isInterpreter(c.name):
		if inlineCode(c) {
			return false
		}
		o := interpreterOpts(c)
		if c.name == "python" && o.has("m") {
			return false
		}
		return len(o.operands) == 0 || stdinPath(&o.operands[0])
	case c.name == "iex" || c.name == "invoke-expression":
		return true
	case c.name == "powershell":
		return len(c.args) == 0 || c.args[len(c.args)-1].text == "-"
	case c.name == "source" || c.name == ".":
		return len(c.args) > 0 && stdinPath(&c.args[0])
	case c.name == "at" || c.name == "batch":
		o := getopt(c.args, "fqtm", "")
		_, file := o.value("f")
		return !file && !o.has("lcdrV")
	case c.name == "su":
		_, ok := commandString(c)
		return !ok
	case c.name == "" && len(c.wraps) > 0:
		last := c.wraps[len(c.wraps)-1]
		return (last.name == "sudo" || last.name == "doas") && anyWord(last.opts, func(s string) bool {
			return s == "--shell" || s == "--login" || len(s) > 1 && s[0] == '-' && s[1] != '-' && strings.ContainsAny(s, "si")
		})
	}
	return false
}

// stdinPath reports whether a script operand names stdin: missing, "-",
// /dev/stdin or file descriptor 0.
func stdinPath(w *word) bool {
	if w == nil {
		return true
	}
	switch w.text {
	case "-", "/dev/stdin", "/dev/fd/0", "/proc/self/fd/0", "/proc/thread-self/fd/0":
		return true
	}
	return false
}

// interpreterOpts reads an interpreter's arguments: its options, and its
// script and the script's arguments as operands.
func interpreterOpts(c *call) opts {
	return getopt(c.args, "WXQIMmxFCdDlrEKc", "require import loader eval")
}

func joinRaw(ws []word) string {
	parts := make([]string, len(ws))
	for i, w := range ws {
		parts[i] = w.raw
	}
	return strings.Join(parts, " ")
}
