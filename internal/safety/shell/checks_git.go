package shell

import "strings"

// git runs commands its configuration names — core.pager, core.hooksPath,
// alias.x=!…, credential helpers, filters — and hooks in .git/hooks, so a
// setting given with -c or written with git config, a hook file, or an
// ext:: URL is a command like any other.

// extCommand returns the command line of a git ext:: URL: its words
// split at spaces, with %20 a space inside a word and %% a percent sign.
func extCommand(s string) string {
	fields := strings.Fields(s)
	for i, f := range fields {
		fields[i] = quoteWord(strings.NewReplacer("%20", " ", "%%", "%").Replace(f))
	}
	return strings.Join(fields, " ")
}

// gitExec finds the commands git runs from -c key=value, --config-env,
// ext:: URLs and git config settings.
func gitExec(c *call, add func(string)) {
	for i := 0; i < len(c.args); i++ {
		a := c.args[i].raw
		switch {
		case a == "-c" && i+1 < len(c.args):
			i++
			gitSetting(c.args[i].raw, add)
		case strings.HasPrefix(a, "-c") && len(a) > 2:
			gitSetting(a[2:], add)
		case strings.HasPrefix(a, "--config-env=") || strings.HasPrefix(a, "--exec-path="):
			add("")
		case strings.HasPrefix(a, "ext::"):
			add(extCommand(strings.TrimPrefix(a, "ext::")))
		}
	}
	if key, value, ok := gitConfigSet(c); ok && gitExecKey(key) {
		gitSetting(key+"="+value, add)
	}
}

// gitSetting handles one key=value git setting.
func gitSetting(kv string, add func(string)) {
	key, value, _ := strings.Cut(kv, "=")
	if !gitExecKey(key) {
		return
	}
	if strings.HasPrefix(strings.ToLower(key), "alias.") {
		if cmd, isShell := strings.CutPrefix(strings.TrimSpace(value), "!"); isShell {
			add(cmd)
		}
		return
	}
	add(value)
}

// gitExecKey reports whether a git setting names a command git runs (or
// a file of settings that may).
func gitExecKey(key string) bool {
	k := strings.ToLower(key)
	switch k {
	case "core.pager", "core.editor", "core.sshcommand", "core.fsmonitor", "core.hookspath", "core.askpass", "core.gitproxy",
		"sequence.editor", "diff.external", "credential.helper", "gpg.program", "uploadpack.packobjectshook", "include.path",
		"web.browser", "protocol.allow", "protocol.ext.allow", "sendemail.smtpserver", "sendemail.sendmailcmd":
		return true
	}
	for _, prefix := range [...]string{"alias.", "pager.", "includeif.", "filter.", "remote."} {
		if strings.HasPrefix(k, prefix) {
			return prefix != "remote." || strings.HasSuffix(k, ".uploadpack") || strings.HasSuffix(k, ".receivepack") || strings.HasSuffix(k, ".proxy")
		}
	}
	for _, suffix := range [...]string{".textconv", ".command", ".driver", ".helper", ".cmd", ".program", ".path"} {
		if strings.HasSuffix(k, suffix) && strings.Count(k, ".") >= 2 {
			return true
		}
	}
	return false
}

// gitConfigChange fires when git config writes the user's or the
// system's git configuration (--global, --system, --file), or sets, in
// any file, a key that makes git run a command (core.hooksPath,
// core.pager, alias.x=!…, include.path …), or opens the file in an
// editor.
func gitConfigChange(c *call) bool {
	key, _, global, ok := gitConfigWrite(c)
	return ok && (global || key == "" || gitExecKey(key))
}

// gitConfigSet returns the key and value git config sets, when it sets
// one.
func gitConfigSet(c *call) (key, value string, ok bool) {
	key, value, _, ok = gitConfigWrite(c)
	return key, value, ok && key != ""
}

// gitConfigWrite reads a git config call: the key it writes ("" for
// --edit and section renames), the value, whether the file is not the
// repository's own, and whether it writes at all.
func gitConfigWrite(c *call) (key, value string, global, ok bool) {
	if c.name != "git" {
		return "", "", false, false
	}
	sub, rest := subcommand(c.args, "cC", "git-dir work-tree namespace exec-path config-env super-prefix")
	if sub != "config" {
		return "", "", false, false
	}
	o := getopt(rest, "f", "file blob type default comment value")
	if _, blob := o.value("blob"); blob {
		return "", "", false, false
	}
	_, file := o.value("f", "file")
	global = file || o.hasLong("global", 3) || o.hasLong("system", 3)
	ops := texts(o.operands)
	raw := o.operands
	switch {
	case len(ops) > 0 && oneOf(ops[0], "get", "list"):
		return "", "", false, false
	case len(ops) > 0 && oneOf(ops[0], "set", "unset", "edit", "rename-section", "remove-section"):
		if ops[0] == "set" && len(raw) >= 3 {
			return ops[1], raw[2].raw, global, true
		}
		if len(ops) > 1 && ops[0] == "unset" {
			return ops[1], "", global, true
		}
		return "", "", global, true
	}
	for _, l := range o.long {
		switch {
		case strings.HasPrefix(l, "get"), l == "list", strings.HasPrefix(l, "show"):
			return "", "", false, false
		case strings.HasPrefix(l, "unset"), l == "add", l == "replace-all":
			if len(ops) > 0 {
				return ops[0], "", global, true
			}
		case l == "edit", strings.HasSuffix(l, "-section"):
			return "", "", global, true
		}
	}
	if o.has("l") {
		return "", "", false, false
	}
	if o.has("e") {
		return "", "", global, true
	}
	if len(raw) >= 2 {
		return ops[0], raw[1].raw, global, true
	}
	return "", "", false, false
}

// gitHookPath reports whether writing p changes what git runs: a hook in
// .git/hooks, a repository's .git/config, or the user's git
// configuration (~/.gitconfig, ~/.config/git/).
func gitHookPath(p string) bool {
	c, abs := cleanPath(p)
	if !abs {
		c = "/" + strings.TrimPrefix(p, "./")
	}
	if strings.Contains(c+"/", "/.git/hooks/") || strings.HasSuffix(c, "/.git/config") || strings.HasSuffix(c, "/.git/info/attributes") {
		return true
	}
	return c == homeMark+"/.gitconfig" || under(c, homeMark+"/.config/git")
}
