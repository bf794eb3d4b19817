package shell

import (
	"slices"
	"strings"
)

// The structural checks on processes, privileges, services and packages.

// killAllProcesses fires when kill targets pid -1 (every process the user
// may signal): kill -9 -1, kill -- -1, kill -s KILL -1, and the bare
// kill -1 that hermes's upstream also refuses.
func killAllProcesses(c *call) bool {
	signal, pids := killArgs(c)
	for _, p := range pids {
		if p == "-1" {
			return true
		}
	}
	return len(pids) == 0 && signal == "-1"
}

// killInit fires on SIGKILL to PID 1, which panics the kernel.
func killInit(c *call) bool {
	signal, pids := killArgs(c)
	switch signal {
	case "-9", "-kill", "-sigkill":
		for _, p := range pids {
			if p == "1" {
				return true
			}
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
