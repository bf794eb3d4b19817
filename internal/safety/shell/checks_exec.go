package shell

import (
	"strings"
)

// Programs that run a command given in one of their options or in an
// environment variable: git -c core.pager=…, git -c alias.x='!…', tar
// --checkpoint-action=exec=…, vim -c '!…', rsync -e, ssh -o ProxyCommand,
// man -P, sed's e command, gdb -ex 'shell …', zip -TT, tcpdump -z, sort
// --compress-program, PAGER=… and GIT_SSH_COMMAND=…. The command is read
// as a script of its own, and the call itself needs approval: what it
// runs is not where a person looks for it.

// execOption reports whether c runs a command given in an option or an
// environment variable.
func execOption(c *call) bool {
	_, found := execSources(c)
	return found
}

// execOptions returns the commands c runs from its options and
// environment, where they are plain text.
func execOptions(c *call) []string {
	srcs, _ := execSources(c)
	return srcs
}

// execSources returns the command texts c's options and environment make
// it run, and whether any such option or variable is present (some, such
// as LD_PRELOAD or BASH_ENV, run code without a command text).
func execSources(c *call) (srcs []string, found bool) {
	add := func(s string) {
		found = true
		if s != "" {
			srcs = append(srcs, s)
		}
	}
	for _, a := range c.assigns {
		name, value, _ := strings.Cut(a.raw, "=")
		if cmd, runs := commandVariable(strings.ToUpper(name)); runs {
			found = true
			if cmd {
				add(value)
			}
		}
	}
	c.inheritedSources(add, func(s string) { srcs = append(srcs, s) })
	switch {
	case c.name == "git":
		gitExec(c, add)
	case c.name == "tar" || c.name == "bsdtar" || c.name == "gtar":
		for i, a := range c.args {
			for _, opt := range [...]string{"--checkpoint-action=exec=", "--to-command=", "--use-compress-program=", "--rsh-command=", "--info-script=", "--new-volume-script="} {
				if v, ok := cutOption(c.args, i, a.raw, opt); ok {
					add(v)
				}
			}
			if (a.raw == "-I" || a.raw == "-F") && i+1 < len(c.args) {
				add(c.args[i+1].raw)
			}
		}
	case isVim(c.name):
		vimExec(c, add)
	case c.name == "rsync":
		o := getopt(c.args, "efTBM", "rsh rsync-path filter exclude include temp-dir block-size remote-option")
		if v, ok := o.value("e", "rsh"); ok && !isRemoteShell(v) {
			add(v)
		}
	case c.name == "ssh" || c.name == "scp" || c.name == "sftp":
		sshExec(c, add)
	case c.name == "man":
		o := getopt(c.args, "PHCMLmpRSeEr", "pager html config-file manpath locale systems preprocessor recode sections extension encoding prompt")
		if v, ok := o.value("P", "pager", "H", "html"); ok && v != "" {
			add(v)
		}
	case c.name == "less" || c.name == "more":
		for _, a := range c.args {
			if rest, ok := strings.CutPrefix(a.raw, "+"); ok && strings.ContainsAny(rest, "!|") {
				_, cmd, _ := strings.Cut(rest, "!")
				add(cmd)
			}
		}
	case c.name == "sed" || c.name == "gsed":
		sedExec(c, add)
	case c.name == "gdb":
		for i, a := range c.args {
			v, ok := cutOption(c.args, i, a.raw, "--eval-command=")
			if !ok && (a.raw == "-ex" || a.raw == "-eval-command") && i+1 < len(c.args) {
				v, ok = c.args[i+1].raw, true
			}
			if ok {
				if rest, isShell := strings.CutPrefix(strings.TrimSpace(v), "shell "); isShell {
					add(rest)
				} else if rest, isBang := strings.CutPrefix(strings.TrimSpace(v), "!"); isBang {
					add(rest)
				}
			}
		}
	case c.name == "zip":
		o := getopt(c.args, "bDnPtx", "unzip-command")
		if v, ok := o.value("unzip-command"); ok {
			add(v)
		}
		for i, a := range c.args {
			if a.raw == "-TT" && i+1 < len(c.args) {
				add(c.args[i+1].raw)
			}
		}
	case c.name == "tcpdump":
		if v, ok := getopt(c.args, "BcCDEFGiMmrsTVwWyzZ", "").value("z"); ok {
			add(v)
		}
	case c.name == "sort":
		if v, ok := getopt(c.args, "kostST", "compress-program").value("compress-program"); ok {
			add(v)
		}
	case c.name == "tmux":
		tmuxExec(c, add)
	}
	return srcs, found
}

// commandVariable reports whether an environment variable makes programs
// run code (runs), and whether its value is a command line (cmd).
func commandVariable(name string) (cmd, runs bool) {
	switch name {
	case "PAGER", "MANPAGER", "GIT_PAGER", "SYSTEMD_PAGER", "EDITOR", "VISUAL", "GIT_EDITOR", "SYSTEMD_EDITOR",
		"GIT_SEQUENCE_EDITOR", "GIT_SSH_COMMAND", "GIT_SSH", "GIT_ASKPASS", "SSH_ASKPASS", "SUDO_ASKPASS",
		"GIT_EXTERNAL_DIFF", "GIT_PROXY_COMMAND", "LESSOPEN", "LESSCLOSE", "BROWSER", "PROMPT_COMMAND", "RSYNC_RSH":
		return true, true
	case "LD_PRELOAD", "LD_AUDIT", "DYLD_INSERT_LIBRARIES", "BASH_ENV", "ENV", "PERL5OPT", "NODE_OPTIONS", "RUBYOPT",
		"PYTHONSTARTUP", "GIT_EXEC_PATH", "GIT_CONFIG_PARAMETERS", "GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM", "GIT_TEMPLATE_DIR":
		return false, true
	}
	return false, strings.HasPrefix(name, "GIT_CONFIG_KEY_") || strings.HasPrefix(name, "GIT_CONFIG_VALUE_")
}

// cutOption returns the value of a long option written --opt=value, or
// --opt value when opt is given without "=" as the whole argument.
func cutOption(args []word, i int, arg, opt string) (string, bool) {
	if v, ok := strings.CutPrefix(arg, opt); ok {
		return v, true
	}
	if name := strings.TrimSuffix(opt, "="); arg == name && i+1 < len(args) && strings.HasSuffix(opt, "=") && !strings.Contains(name[2:], "=") {
		return args[i+1].raw, true
	}
	return "", false
}

// isVim reports whether name is vi or one of its family.
func isVim(name string) bool {
	switch name {
	case "vi", "vim", "nvim", "gvim", "view", "vimdiff", "ex", "rvim", "evim", "vim.basic", "vim.tiny":
		return true
	}
	return false
}

// vimExec finds the shell commands of vim's -c, --cmd and +cmd
// arguments: :!cmd, r !cmd, w !cmd, terminal cmd, system('cmd').
func vimExec(c *call, add func(string)) {
	for i := 0; i < len(c.args); i++ {
		a := c.args[i].raw
		var ex string
		switch {
		case (a == "-c" || a == "--cmd") && i+1 < len(c.args):
			i++
			ex = c.args[i].raw
		case strings.HasPrefix(a, "+") && len(a) > 1:
			ex = a[1:]
		case a == "-S" || a == "-u":
			add("")
			continue
		default:
			continue
		}
		ex = strings.TrimLeft(ex, ": \t")
		for _, prefix := range [...]string{"silent!", "silent", "exe", "execute"} {
			ex = strings.TrimLeft(strings.TrimPrefix(ex, prefix), " \t")
		}
		switch {
		case strings.HasPrefix(ex, "!"):
			add(ex[1:])
		case strings.HasPrefix(ex, "ter"):
			_, rest, _ := strings.Cut(ex, " ")
			add(rest)
		case strings.Contains(ex, "!") && (strings.HasPrefix(ex, "r") || strings.HasPrefix(ex, "w")):
			_, rest, _ := strings.Cut(ex, "!")
			add(rest)
		case strings.Contains(ex, "system") || strings.HasPrefix(ex, "py") || strings.HasPrefix(ex, "lua") || strings.HasPrefix(ex, "perl") || strings.HasPrefix(ex, "ruby"):
			found := codeCommands("vim", ex)
			add("")
			for _, f := range found {
				add(f)
			}
		}
	}
}

// isRemoteShell reports whether an rsync -e value is a plain ssh or rsh
// command, which is what -e is for.
func isRemoteShell(v string) bool {
	fields := strings.Fields(v)
	if len(fields) == 0 {
		return true
	}
	switch programName(strings.ToLower(fields[0])) {
	case "ssh", "rsh", "ssh.exe":
		return !strings.ContainsAny(v, ";|&`$()<>") && !strings.Contains(strings.ToLower(v), "proxycommand") &&
			!strings.Contains(strings.ToLower(v), "localcommand")
	}
	return false
}

// sshExec finds ssh's ProxyCommand, LocalCommand and KnownHostsCommand
// (-o), and scp's and sftp's -S program.
func sshExec(c *call, add func(string)) {
	for i := 0; i < len(c.args); i++ {
		a := c.args[i].raw
		var opt string
		switch {
		case a == "-o" && i+1 < len(c.args):
			i++
			opt = c.args[i].raw
		case strings.HasPrefix(a, "-o") && len(a) > 2:
			opt = a[2:]
		case (a == "-S" || a == "-D") && c.name != "ssh" && i+1 < len(c.args):
			i++
			add(c.args[i].raw)
			continue
		default:
			continue
		}
		key, value, ok := strings.Cut(opt, "=")
		if !ok {
			key, value, _ = strings.Cut(strings.TrimSpace(opt), " ")
		}
		switch strings.ToLower(strings.TrimSpace(key)) {
		case "proxycommand", "localcommand", "knownhostscommand", "permitlocalcommand":
			if v := strings.TrimSpace(value); v != "none" && v != "no" {
				add(strings.TrimPrefix(v, "exec "))
			}
		}
	}
}

// sedExec finds GNU sed's e command (and the s///e flag, whose command
// is the pattern space and so unknown).
func sedExec(c *call, add func(string)) {
	var scripts []string
	o := getopt(c.args, "eflsiE", "expression file line-length")
	for i := len(o.values) - 1; i >= 0; i-- {
		if o.values[i].name == "e" || o.values[i].name == "expression" {
			scripts = append(scripts, o.values[i].value)
		}
	}
	if len(scripts) == 0 && len(o.operands) > 0 {
		scripts = append(scripts, o.operands[0].raw)
	}
	for _, sc := range scripts {
		for _, cmd := range strings.FieldsFunc(sc, func(r rune) bool { return r == ';' || r == '\n' }) {
			cmd = strings.TrimLeft(cmd, " \t0123456789,$!")
			switch {
			case strings.HasPrefix(cmd, "e"):
				add(strings.TrimSpace(cmd[1:]))
			case strings.HasPrefix(cmd, "s") && len(cmd) > 1:
				parts := strings.Split(cmd[2:], cmd[1:2])
				if len(parts) == 3 && strings.Contains(parts[2], "e") {
					add(parts[1])
				}
			}
		}
	}
}

// tmuxExec finds the shell commands of tmux new-session, new-window,
// split-window, run-shell and respawn-pane, and the keys of send-keys.
func tmuxExec(c *call, add func(string)) {
	sub, rest := subcommand(c.args, "LSf", "")
	switch sub {
	case "new-session", "new", "new-window", "neww", "split-window", "splitw", "run-shell", "run", "respawn-pane", "respawnp", "respawn-window", "respawnw":
		o := getopt(rest, "cefFnstxyl", "")
		if len(o.operands) > 0 {
			add(joinRaw(o.operands))
		}
	case "send-keys", "send":
		o := getopt(rest, "tNH", "")
		var keys []string
		for _, w := range o.operands {
			switch w.raw {
			case "Enter", "C-m", "KPEnter":
				keys = append(keys, "\n")
			default:
				keys = append(keys, w.raw)
			}
		}
		add(strings.Join(keys, " "))
	}
}
