package shell

import (
	"regexp"
	"slices"
	"strings"
)

// The structural checks on processes, privileges, services and packages.

// killAllProcesses fires when kill targets pid -1 (every process the user
// may signal): kill -9 -1, kill -- -1, kill -s KILL -1, and the bare
// kill -1 that hermes's upstream also refuses; on killall5; and on pkill
// and killall matching every process, by a pattern that matches any name
// (pkill -9 ., killall -r '.*', pkill -v nothing-like-this) or by user
// alone (pkill -u alice, killall -u alice).
func killAllProcesses(c *call) bool {
	switch c.name {
	case "killall5":
		return true
	case "pkill", "killall":
		return killsEveryName(c)
	}
	signal, pids := killArgs(c)
	for _, p := range pids {
		if p == "-1" {
			return true
		}
	}
	return len(pids) == 0 && signal == "-1"
}

// killInit fires on a fatal signal to PID 1 (init, or a container's only
// process), which panics the kernel or ends the container: kill 1,
// kill -9 1, kill -s TERM 1. Signals init treats as requests (HUP, USR1 …)
// are for signalInit.
func killInit(c *call) bool {
	signal, pids := killArgs(c)
	return slicesContains(pids, "1") && !harmlessToInit(signal)
}

// signalInit fires on any other signal to PID 1.
func signalInit(c *call) bool {
	signal, pids := killArgs(c)
	return slicesContains(pids, "1") && harmlessToInit(signal) && signal != "-0"
}

// harmlessToInit reports whether init survives the signal (given as
// kill's option, "-hup"; "" is SIGTERM).
func harmlessToInit(signal string) bool {
	switch strings.TrimPrefix(strings.TrimPrefix(signal, "-"), "sig") {
	case "0", "hup", "1", "usr1", "10", "usr2", "12", "cont", "18", "winch", "28", "chld", "17", "urg", "23", "alrm", "14":
		return true
	}
	return false
}

func slicesContains(s []string, v string) bool { return slices.Contains(s, v) }

// sampleProcesses are process names a pattern must match to match every
// process: init's, a kernel thread's, a daemon's, a shell's, hermes's.
func sampleProcesses() [10]string {
	return [...]string{"systemd", "init", "kthreadd", "kworker/0:1", "sshd", "bash", "sh", "python3", "hermes", "x"}
}

// isSignalOption reports whether s is a signal given as an option: -9,
// -KILL, -SIGTERM.
func isSignalOption(s string) bool {
	if len(s) < 2 || s[0] != '-' {
		return false
	}
	rest := s[1:]
	return isDigits(rest) || len(rest) >= 2 && strings.Trim(rest, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+") == ""
}

// killsEveryName reports whether a pkill or killall call selects every
// process (of a user): see killAllProcesses.
func killsEveryName(c *call) bool {
	args := c.args
	if len(args) > 0 && isSignalOption(args[0].raw) {
		args = args[1:] // pkill -9, pkill -KILL: the signal
	}
	o := getopt(args, "uUGgPstcOFnsoyZ", "signal euid uid group pgroup parent session terminal older ns nslist pidfile context younger-than older-than user")
	if c.name == "killall" {
		o = getopt(args, "sunyoZ", "signal user ns younger-than older-than context")
	}
	narrow := "gPstcOFno"
	if c.name == "killall" {
		narrow = "noyZ"
	}
	for _, v := range o.values {
		if strings.ContainsAny(v.name, narrow) && len(v.name) == 1 || oneOf(v.name, "pgroup", "parent", "session", "terminal", "older", "ns", "pidfile", "younger-than", "older-than", "context") {
			return false
		}
	}
	if o.has("noxI") || o.hasLong("newest", 3) || o.hasLong("oldest", 3) || o.hasLong("exact", 3) || o.hasLong("interactive", 3) {
		return false
	}
	_, byUser := o.value("u", "U", "G", "euid", "uid", "group", "user")
	if len(o.operands) == 0 {
		return byUser
	}
	if c.name == "killall" && !o.has("r") && !o.hasLong("regexp", 3) {
		return false // killall NAME matches the name exactly
	}
	for _, w := range o.operands {
		re, err := regexp.Compile(w.raw)
		if err != nil {
			return false
		}
		all := true
		for _, name := range sampleProcesses() {
			if re.MatchString(name) == o.has("v") {
				all = false
				break
			}
		}
		if all {
			return true
		}
	}
	return false
}

// killArgs splits kill's arguments into the signal option and the pids.
func killArgs(c *call) (signal string, pids []string) {
	for i := 0; i < len(c.args); i++ {
		a := c.args[i].text
		switch {
		case a == "--":
			return signal, append(pids, texts(c.args[i+1:])...)
		case a == "-l" || a == "-L" || a == "--list" || a == "--table":
			return "", nil
		case a == "-s" || a == "-n" || a == "--signal":
			i++
			if i < len(c.args) {
				signal = "-" + strings.TrimPrefix(c.args[i].text, "sig")
			}
		case strings.HasPrefix(a, "-") && signal == "" && len(pids) == 0:
			signal = a
		default:
			pids = append(pids, a)
		}
	}
	return signal, pids
}

// sudoStdin fires when sudo is told to read the password from stdin (-S,
// --stdin) or an askpass helper (-A, --askpass): with no terminal, that is
// the model supplying a password it guessed or found.
func sudoStdin(c *call) bool {
	for _, w := range c.wraps {
		if w.name != "sudo" {
			continue
		}
		for _, o := range w.opts {
			a := o.raw
			if name, ok := strings.CutPrefix(a, "--"); ok {
				name, _, _ = strings.Cut(name, "=")
				if len(name) >= 2 && strings.HasPrefix("stdin", name) || name != "" && strings.HasPrefix("askpass", name) {
					return true
				}
				continue
			}
			if !strings.HasPrefix(a, "-") {
				continue
			}
			for k := 1; k < len(a); k++ {
				if a[k] == 'S' || a[k] == 'A' {
					return true
				}
				if strings.IndexByte("CDghpRrTtUuc", a[k]) >= 0 {
					break
				}
			}
		}
	}
	return false
}

// killHermes fires when pkill or killall name hermes or its gateway, or
// kill targets a pid found by a command substitution (pgrep, pidof, a
// hermes pid file) or hermes's own pid ($PPID).
func killHermes(c *call) bool {
	if c.name != "kill" {
		return anyWord(c.args, mentionsHermes)
	}
	if _, pids := killArgs(c); slices.Contains(pids, "0") {
		return true // the whole process group, hermes with it
	}
	for _, a := range c.args {
		if strings.Contains(a.text, "$ppid") || strings.Contains(a.text, "${ppid}") {
			return true
		}
		for _, sc := range a.subs {
			for i, cmd := range sc.cmds {
				sub := newCall(sc, i, cmd, c.env)
				if sub.name == "pgrep" || sub.name == "pidof" || anyWord(cmd.words, mentionsHermes) {
					return true
				}
			}
		}
	}
	return false
}

func mentionsHermes(s string) bool {
	return strings.Contains(s, "hermes") || strings.Contains(s, "gateway") || strings.Contains(s, "cli.py")
}

// forceKill fires when pkill or killall send SIGKILL, or killall matches
// process names by regular expression (which sweeps up more than meant).
func forceKill(c *call) bool {
	for i, a := range c.args {
		t := a.text
		switch {
		case t == "-9" || t == "-kill" || t == "-sigkill" || t == "--signal=kill" || t == "--signal=9" || t == "--signal=sigkill":
			return true
		case (t == "-s" || t == "--signal") && i+1 < len(c.args):
			switch c.args[i+1].text {
			case "9", "kill", "sigkill":
				return true
			}
		case c.name == "killall" && (t == "-r" || t == "--regexp"):
			return true
		}
	}
	return false
}

// launchctlHermes fires when launchctl stops, unloads or restarts a job
// and the command mentions hermes anywhere (the label may be built from a
// variable).
func launchctlHermes(c *call) bool {
	sub, _ := subcommand(c.args, "", "")
	switch sub {
	case "stop", "kickstart", "bootout", "unload", "kill", "disable", "remove":
		return anyWord(c.args, func(s string) bool { return strings.Contains(s, "hermes") })
	}
	return false
}

// awkExec fires when an awk program runs shell commands: system(), or a
// pipe to or from a command string (print | "sh", "cmd" | getline).
func awkExec(c *call) bool {
	return anyWord(c.args, func(s string) bool {
		return strings.Contains(s, "system(") || strings.Contains(s, "|&") ||
			strings.Contains(s, "| \"") || strings.Contains(s, "|\"") || strings.Contains(s, "\" |") || strings.Contains(s, "\"|")
	})
}

// networkShell fires on redirections to /dev/tcp and /dev/udp (bash's
// network sockets, the usual reverse shell) and on netcat's -e/-c, which
// hand a shell to whoever connects.
func networkShell(c *call) bool {
	socket := func(s string) bool { return strings.HasPrefix(s, "/dev/tcp/") || strings.HasPrefix(s, "/dev/udp/") }
	for _, r := range c.cmd.redirs {
		if socket(r.target.text) {
			return true
		}
	}
	if anyWord(c.args, socket) {
		return true
	}
	switch c.name {
	case "nc", "ncat", "netcat":
		o := getopt(c.args, "egIiOpqsTwXx", "exec sh-exec")
		return o.has("ec") || o.hasLong("exec", 2) || o.hasLong("sh-exec", 2)
	}
	return false
}

// kexecReboot fires when kexec boots into another kernel now: kexec -e,
// or kexec given a kernel without -l, -p or -u, which loads and boots it
// at once.
func kexecReboot(c *call) bool {
	if c.name != "kexec" {
		return false
	}
	o := getopt(c.args, "tirsc", "type initrd append command-line reuse-cmdline dtb mem-min mem-max")
	if o.has("e") || o.hasLong("exec", 2) {
		return true
	}
	loadOnly := o.has("lpuSh") || o.hasLong("load", 4) || o.hasLong("unload", 2) || o.hasLong("status", 2) || o.hasLong("help", 1)
	return !loadOnly && len(o.operands) > 0
}

// scheduleCommand fires when a command is left to run later, outside
// hermes's sight: at and batch jobs, a crontab installed from a file or
// stdin, systemd-run with a timer.
func scheduleCommand(c *call) bool {
	switch c.name {
	case "at", "batch":
		return !getopt(c.args, "fqtm", "").has("lcdrV")
	case "crontab":
		o := getopt(c.args, "u", "user")
		return !o.has("lr") && (len(o.operands) > 0 || o.has("e"))
	}
	for _, w := range c.wraps {
		if w.name == "systemd-run" && anyWord(w.opts, func(s string) bool { return strings.HasPrefix(s, "--on-") }) {
			return true
		}
	}
	return false
}
