package shell

import (
	"path"
	"strings"
)

// The commands hermes runs get an environment without its secrets, but
// the secrets are still on disk in .env files and in memory, where
// /proc/<pid>/environ, mem and cmdline show them for hermes and its
// parents. Reading those (by any program: cat, base64, rev, strings, a
// < redirection) needs approval, as does attaching a debugger to a
// running process.

// secretRead fires when a call reads a .env file or a process's /proc
// secrets, or ps prints processes' environments.
func secretRead(c *call) bool {
	if c.name == "ps" {
		return psEnvironment(c)
	}
	secret := func(p string) bool { return envFile(p) || procSecret(p) }
	check := func(w word) bool {
		t := w.text
		if i := strings.LastIndexByte(t, '='); i >= 0 && !strings.HasPrefix(t, "/") {
			t = t[i+1:] // if=.env, --env-file=.env
		}
		t = strings.TrimPrefix(t, "@") // curl -d @.env
		if !strings.Contains(t, "env") && !strings.Contains(t, "proc") && !strings.ContainsAny(t, "$*?[{") {
			return false // no spelling of it can name a secret
		}
		return anySpelling(c, []word{{text: t}}, secret)
	}
	for _, r := range c.cmd.redirs {
		if (r.op == "<" || r.op == "<>") && check(r.target) {
			return true
		}
	}
	for _, wr := range c.wraps {
		for _, w := range wr.opts {
			if check(w) {
				return true
			}
		}
	}
	if !readsArguments(c.name) {
		return false
	}
	for _, w := range c.args {
		if check(w) {
			return true
		}
	}
	return false
}

// readsArguments reports whether a program may read the files its
// arguments name; the ones that only list, test, create, remove or
// change their metadata, and the ones whose arguments are text, do not.
func readsArguments(name string) bool {
	switch name {
	case "", "ls", "stat", "test", "[", "[[", "touch", "rm", "unlink", "mkdir", "rmdir", "chmod", "chown", "chgrp",
		"realpath", "readlink", "basename", "dirname", "echo", "printf", "file", "du", "cd", "pushd", "tee", "mv",
		"git", "docker", "docker-compose", "podman", "export", "unset", "which", "type", "command":
		return false
	}
	return true
}

// envFile reports whether p names a .env file with live secrets: .env,
// *.env, .env.<stage> (not examples and templates), in any directory
// (hermes's own $HERMES_HOME/.env included); a glob such as *.env or
// .env* counts when it would match one.
func envFile(p string) bool {
	base := path.Base(p)
	if strings.ContainsAny(base, "*?[") {
		for _, name := range [...]string{".env", "prod.env", ".env.local", ".env.production"} {
			if shellMatch(base, name) {
				return true
			}
		}
		return false
	}
	if base == ".env" || strings.HasSuffix(base, ".env") && len(base) > len(".env") {
		return true
	}
	return envOrConfigFile(p) && base != "config.yaml"
}

// procSecret reports whether p is a per-process /proc entry that shows
// a process's environment, memory or command line: /proc/self/environ,
// /proc/<pid>/mem, /proc/*/cmdline, /proc/$PPID/maps, the same under
// task/<tid>, and what a process's fd, cwd and root links lead to.
func procSecret(p string) bool {
	c, abs := cleanPath(p)
	if !abs {
		return false
	}
	rest, ok := strings.CutPrefix(c, "/proc/")
	if !ok {
		return false
	}
	parts := strings.Split(rest, "/")
	if len(parts) < 2 || !procProcess(parts[0]) {
		return false
	}
	parts = parts[1:]
	if len(parts) >= 3 && parts[0] == "task" {
		parts = parts[2:]
	}
	switch parts[0] {
	case "environ", "mem", "maps", "smaps", "smaps_rollup", "cmdline", "auxv", "pagemap", "stack", "syscall", "exe",
		"fd", "fdinfo", "cwd", "root", "map_files", "numa_maps", "personality":
		return true
	}
	return strings.ContainsAny(parts[0], "*?[")
}

// procProcess reports whether a /proc component names a process: self,
// thread-self, a pid, or anything not literal (a glob, $PPID, $(pgrep …)).
func procProcess(s string) bool {
	return s == "self" || s == "thread-self" || isDigits(s) || strings.ContainsAny(s, "*?[$`")
}

// psEnvironment fires on ps with the BSD e option (ps e, ps auxe, ps
// eww), which prints each process's environment.
func psEnvironment(c *call) bool {
	for _, a := range c.args {
		if t := a.raw; t != "" && t[0] != '-' && strings.Contains(t, "e") && strings.Trim(t, "auxewflgjsvmcrnhSTZLHkKOopqtUGNC") == "" {
			return true
		}
	}
	return false
}

// attachProcess fires when a debugger or tracer attaches to a running
// process, whose memory holds its secrets: gdb -p, gdb attach, gcore,
// strace -p, ltrace -p.
func attachProcess(c *call) bool {
	switch c.name {
	case "gcore":
		return true
	case "gdb":
		return anyWord(c.args, func(s string) bool {
			return s == "-p" || strings.HasPrefix(s, "--pid") || s == "attach" || strings.HasPrefix(s, "-pid")
		})
	case "strace", "ltrace":
		return anyWord(c.args, func(s string) bool {
			return s == "-p" || strings.HasPrefix(s, "--attach") || strings.HasPrefix(s, "-p") && isDigits(s[2:])
		})
	}
	for _, w := range c.wraps {
		if (w.name == "strace" || w.name == "ltrace") && anyWord(w.opts, func(s string) bool { return s == "-p" }) {
			return true
		}
	}
	return false
}
