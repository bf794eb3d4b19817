package shell

import "strings"

// Wrappers are programs that run the command given as their arguments —
// sudo, env, nice, timeout, xargs, flock, unshare, systemd-run, setpriv,
// chpst, gosu and many more. The analysis peels them off a call, so that
// rules see the program that really runs: flock /tmp/l rm -rf / is rm -rf
// /. A wrapper whose -c option takes a command string (flock -c, sg -c)
// hands that string on as a payload.

// wrapSpec describes how a wrapper command's options are read.
type wrapSpec struct {
	// argShort lists the short options that take a value (case matters:
	// sudo -h takes a host, -H does not).
	argShort string
	// argLong lists, space-separated, the long options that take a value.
	argLong string
	// query lists short options that make the wrapper not run a command
	// (command -v, sudo -l), and queryLong their long forms.
	query     string
	queryLong string
	// positional is how many operands come before the command (timeout's
	// duration, chroot's directory).
	positional int
	// onlyWith, when set, lists short options without one of which the
	// program is no wrapper at all (runuser runs a command only with -u;
	// otherwise it is su).
	onlyWith string
}

// wrapperSpec returns how to read the options of name when it is a
// command that runs another command given as its arguments. It is a
// switch rather than a table so that it costs nothing at start-up.
func wrapperSpec(name string) (wrapSpec, bool) {
	switch name {
	case "sudo":
		return wrapSpec{argShort: "CDghpRrTtUuc", argLong: "close-from chdir group host prompt chroot role command-timeout type other-user user login-class",
			query: "lVve", queryLong: "list version validate edit help"}, true
	case "doas":
		return wrapSpec{argShort: "uC"}, true
	case "pkexec":
		return wrapSpec{argLong: "user"}, true
	case "run0":
		return wrapSpec{argShort: "u", argLong: "user unit description slice property setenv chdir"}, true
	case "runuser":
		return wrapSpec{argShort: "ugGcsw", argLong: "user group supp-group command shell whitelist-environment", onlyWith: "u"}, true
	case "env":
		return wrapSpec{argShort: "uCa", argLong: "unset chdir argv0"}, true
	case "exec":
		return wrapSpec{argShort: "a"}, true
	case "time":
		return wrapSpec{argShort: "fo", argLong: "format output"}, true
	case "nice":
		return wrapSpec{argShort: "n", argLong: "adjustment"}, true
	case "ionice":
		return wrapSpec{argShort: "cn", argLong: "class classdata", query: "pPu", queryLong: "pid pgid uid"}, true
	case "chrt", "taskset":
		return wrapSpec{query: "p", queryLong: "pid", positional: 1}, true
	case "timeout":
		return wrapSpec{argShort: "ks", argLong: "kill-after signal", positional: 1}, true
	case "stdbuf":
		return wrapSpec{argShort: "ioe", argLong: "input output error"}, true
	case "command":
		return wrapSpec{query: "vV"}, true
	case "caffeinate":
		return wrapSpec{argShort: "tw"}, true
	case "chroot":
		return wrapSpec{argLong: "userspec groups", positional: 1}, true
	case "strace":
		return wrapSpec{argShort: "abeEIoOpPsSuUX"}, true
	case "ltrace":
		return wrapSpec{argShort: "aeEnopsSuX"}, true
	case "proxychains":
		return wrapSpec{argShort: "f"}, true
	case "torsocks":
		return wrapSpec{argShort: "uPaw"}, true
	case "xargs":
		return wrapSpec{argShort: "aEdILnPs", argLong: "arg-file delimiter eof replace max-lines max-args max-procs max-chars process-slot-var",
			queryLong: "help version"}, true
	case "flock":
		return wrapSpec{argShort: "wEc", argLong: "timeout wait conflict-exit-code command", positional: 1}, true
	case "sg":
		return wrapSpec{argShort: "c", positional: 1}, true
	case "unshare":
		return wrapSpec{argShort: "SGRw", argLong: "setuid setgid root wd propagation setgroups map-user map-group map-users map-groups"}, true
	case "nsenter":
		return wrapSpec{argShort: "tSG", argLong: "target setuid setgid"}, true
	case "setpriv":
		return wrapSpec{argLong: "reuid regid ruid rgid euid egid groups inh-caps ambient-caps bounding-set securebits selinux-label apparmor-profile landlock-access landlock-rule pdeathsig"}, true
	case "prlimit":
		return wrapSpec{argShort: "o", argLong: "output", query: "p", queryLong: "pid"}, true
	case "systemd-run":
		return wrapSpec{argShort: "upEHM", argLong: "unit property setenv host machine slice description uid gid nice working-directory on-active on-boot " +
			"on-startup on-unit-active on-unit-inactive on-calendar timer-property path-property socket-property service-type"}, true
	case "systemd-inhibit":
		return wrapSpec{argLong: "what who why mode", queryLong: "list"}, true
	case "cgexec":
		return wrapSpec{argShort: "g"}, true
	case "numactl":
		return wrapSpec{argShort: "imNCpP", argLong: "interleave membind cpunodebind physcpubind preferred preferred-many", query: "sH", queryLong: "show hardware"}, true
	case "chpst":
		return wrapSpec{argShort: "uUbe/nlLmdopfcrt"}, true
	case "softlimit":
		return wrapSpec{argShort: "mdosleafcrpt"}, true
	case "gosu", "su-exec", "setuidgid", "envuidgid", "envdir", "faketime":
		return wrapSpec{positional: 1}, true
	case "fakeroot":
		return wrapSpec{argShort: "lsib", argLong: "lib faked"}, true
	case "fakechroot":
		return wrapSpec{argShort: "lecb", argLong: "lib environment config-dir bindir"}, true
	case "ssh-agent":
		return wrapSpec{argShort: "aEtPO", query: "k"}, true
	case "sshpass":
		return wrapSpec{argShort: "pfdP"}, true
	case "trickle":
		return wrapSpec{argShort: "udwtln"}, true
	case "xvfb-run":
		return wrapSpec{argShort: "nsfpwe", argLong: "server-num server-args auth-file xauth-protocol wait error-file"}, true
	case "dbus-launch":
		return wrapSpec{argLong: "config-file autolaunch"}, true
	case "tini":
		return wrapSpec{argShort: "pe"}, true
	case "dumb-init":
		return wrapSpec{argShort: "r", argLong: "rewrite"}, true
	case "screen":
		return wrapSpec{argShort: "SscTehpX"}, true
	case "watchexec":
		return wrapSpec{argShort: "ewisdfpEW", argLong: "exts watch ignore signal debounce filter shell project-origin env workdir"}, true
	case "nohup", "setsid", "builtin", "nocorrect", "noglob", "unbuffer", "busybox", "toybox", "firejail", "valgrind", "catchsegv",
		"nocache", "eatmydata", "chronic", "ifne", "dbus-run-session", "entr", "tsocks", "daemonize", "with-lock", "retry":
		return wrapSpec{}, true
	}
	return wrapSpec{}, false
}

// split separates a wrapper's options from the command it runs; runs is
// false when an option makes it run none.
func (s wrapSpec) split(args []word) (opts, rest []word, runs bool) {
	i, positional := 0, s.positional
	for i < len(args) {
		a := args[i].raw
		switch {
		case a == "--":
			return args[:i+1], args[i+1:], true
		case strings.HasPrefix(a, "--"):
			name, _, hasValue := strings.Cut(a[2:], "=")
			if matchLong(name, s.queryLong) != "" {
				return args, nil, false
			}
			if !hasValue && matchLong(name, s.argLong) != "" {
				i++
			}
		case len(a) > 1 && a[0] == '-' && !isDigits(a[1:]):
			for k := 1; k < len(a); k++ {
				if strings.IndexByte(s.query, a[k]) >= 0 {
					return args, nil, false
				}
				if strings.IndexByte(s.argShort, a[k]) >= 0 {
					if k == len(a)-1 {
						i++
					}
					break
				}
			}
		case len(a) > 1 && a[0] == '-': // nice -10, kill-style numbers
		case positional > 0:
			positional--
		default:
			return args[:i], args[i:], true
		}
		i++
	}
	return args, nil, true
}

// isWrapper reports whether a call of name with these options runs its
// arguments as a command (see wrapSpec.onlyWith).
func (s wrapSpec) isWrapper(opts []word) bool {
	if s.onlyWith == "" {
		return true
	}
	return anyWord(opts, func(t string) bool { return len(t) > 1 && t[0] == '-' && strings.ContainsAny(t[1:], s.onlyWith) }) ||
		anyWord(opts, func(t string) bool { return strings.HasPrefix(t, "--user") })
}

// wrapperCommands returns the command strings a call's wrappers take in
// a -c option (flock FILE -c CMD, sg GROUP -c CMD).
func wrapperCommands(c *call) []string {
	var out []string
	for _, w := range c.wraps {
		if w.name != "flock" && w.name != "sg" {
			continue
		}
		if v, ok := getopt(w.opts, "wEc", "timeout wait conflict-exit-code command").value("c", "command"); ok {
			out = append(out, v)
		}
	}
	return out
}
