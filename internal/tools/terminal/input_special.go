package terminal

import (
	"slices"
	"strings"
)

// The runners whose arguments the fields of runSpec cannot describe.

// machinectlRunner reads machinectl shell [[user@]machine [command]].
func machinectlRunner(r *inputReader, all, args []word, depth int) {
	if len(args) > 0 && args[0].value == "shell" {
		r.run(all, runSpec{operands: 1, shellWithout: true}, args[1:], depth)
	}
}

// envRunner reads env [options] [NAME=VALUE]... [command], where -S
// splits a string into the command's first words.
func envRunner(r *inputReader, all, args []word, depth int) {
	for i := 0; i < len(args); i++ {
		v := args[i].value
		split, hasSplit := "", false
		switch {
		case v == "--":
			r.command(all, dropAssignments(args[i+1:]), depth)
			return
		case v == "-S" || v == "--split-string":
			if i+1 < len(args) {
				i++
				split, hasSplit = args[i].value, !args[i].dynamic
				if args[i].dynamic {
					r.opaque = true
					return
				}
			}
		case strings.HasPrefix(v, "--split-string="):
			split, hasSplit = strings.TrimPrefix(v, "--split-string="), true
		case strings.HasPrefix(v, "-S"):
			split, hasSplit = v[2:], true
		case v == "-u" || v == "-C" || v == "--unset" || v == "--chdir":
			i++
			continue
		case len(v) > 1 && v[0] == '-' || isAssignment(v):
			continue
		default:
			r.command(all, args[i:], depth)
			return
		}
		if hasSplit {
			var ws []word
			for _, t := range lexShell(split, true).tokens {
				if t.op == "" {
					ws = append(ws, t.w)
				}
			}
			r.command(all, append(dropAssignments(ws), args[i+1:]...), depth)
			return
		}
	}
}

func dropAssignments(ws []word) []word {
	for len(ws) > 0 && isAssignment(ws[0].raw) {
		ws = ws[1:]
	}
	return ws
}

// suOpts are the options of su and runuser that take a value.
var suOpts = optSpec{short: "csgGwu", long: []string{"command", "shell", "group", "supp-group", "whitelist-environment", "user"}}

// suRunner reads su and runuser: -c runs a command string, runuser -u
// runs the command that follows, and otherwise the user's shell (or -s
// SHELL) reads stdin.
func suRunner(r *inputReader, all, args []word, depth int) {
	var shell *word
	user := false
	for i := 0; i < len(args); i++ {
		v := args[i].value
		name, value, has := "", "", false
		switch {
		case v == "--":
			if user && i+1 < len(args) {
				r.command(all, args[i+1:], depth)
				return
			}
			continue
		case strings.HasPrefix(v, "--"):
			name, value, has = strings.Cut(v[2:], "=")
		case len(v) == 2 && v[0] == '-':
			name = v[1:]
		default:
			if user {
				r.command(all, args[i:], depth)
				return
			}
			continue // the user to become, or arguments for the shell
		}
		if !has && (len(name) == 1 && strings.Contains(suOpts.short, name) || slices.Contains(suOpts.long, name)) {
			if i+1 >= len(args) {
				break
			}
			i++
			value = args[i].value
			if args[i].dynamic {
				r.opaque = true
				return
			}
		}
		switch name {
		case "c", "command":
			r.commandString(word{raw: value, value: value}, depth)
			return
		case "s", "shell":
			shell = &word{raw: value, value: value}
		case "u", "user":
			user = true
		}
	}
	if shell != nil {
		r.command(all, []word{*shell}, depth)
		return
	}
	r.shell = true
}

// scriptRunner reads script [options] [file]: -c runs a command string;
// otherwise it starts a shell that reads stdin.
func scriptRunner(r *inputReader, all, args []word, depth int) {
	for i := 0; i < len(args); i++ {
		v := args[i].value
		switch {
		case v == "-c" || v == "--command":
			if i+1 < len(args) {
				r.commandString(args[i+1], depth)
			}
			return
		case strings.HasPrefix(v, "--command="):
			r.commandString(word{raw: v[10:], value: v[10:]}, depth)
			return
		case v == "-E" || v == "-I" || v == "-O" || v == "-B" || v == "-T" || v == "-m":
			i++
		}
	}
	r.shell = true
}

// sgRunner reads sg GROUP [-c] COMMAND, whose command is a string for
// sh -c; without one a shell reads stdin.
func sgRunner(r *inputReader, all, args []word, depth int) {
	if len(args) > 1 && args[1].value == "-c" {
		args = append(args[:1:1], args[2:]...)
	}
	if len(args) < 2 {
		r.shell = true
		return
	}
	r.remoteLine(args[1:], depth)
}

// remoteLine reads words that a shell elsewhere joins with spaces and
// runs as one command line (ssh host WORDS, sg group WORDS).
func (r *inputReader) remoteLine(ws []word, depth int) {
	vals := make([]string, len(ws))
	for i, w := range ws {
		if w.dynamic {
			r.opaque = true
			return
		}
		vals[i] = w.value
	}
	r.line(strings.Join(vals, " "), depth+1)
}

// sshOpts are ssh's options that take a value.
var sshOpts = optSpec{short: "BbcDEeFIiJLlmOopQRSWw"}

// sshRunner reads ssh [options] host [command]: the remote login shell
// reads stdin when no command is given; -N runs none; a subsystem (-s)
// is opaque.
func sshRunner(r *inputReader, all, args []word, depth int) {
	if hasFlag(args, sshOpts, "N") {
		return
	}
	if hasFlag(args, sshOpts, "s") {
		r.opaque = true
		return
	}
	rest, _ := skipOptions(args, sshOpts)
	if len(rest) <= 1 {
		r.shell = true
		return
	}
	r.remoteLine(rest[1:], depth)
}

// afterDashes reads programs whose command follows "--" (mosh host --
// cmd); without one, a shell reads stdin when shellWithout is set.
func afterDashes(shellWithout bool) func(r *inputReader, all, args []word, depth int) {
	return func(r *inputReader, all, args []word, depth int) {
		for i, a := range args {
			if a.value == "--" {
				r.command(all, args[i+1:], depth)
				return
			}
		}
		if shellWithout {
			r.shell = true
		}
	}
}

// flockRunner reads flock [options] FILE (-c COMMAND | COMMAND...).
func flockRunner(r *inputReader, all, args []word, depth int) {
	o := optSpec{short: "wE", long: []string{"timeout", "conflict-exit-code"}}
	for i, a := range args {
		if a.value == "-c" || a.value == "--command" {
			if i+1 < len(args) {
				r.commandString(args[i+1], depth)
			}
			return
		}
	}
	rest, ok := skipOptions(args, o)
	if ok && len(rest) > 1 {
		r.command(all, rest[1:], depth)
	}
}

// atRunner reads at and batch, which read shell commands from stdin
// unless -f names a file or an option lists, removes or shows jobs.
func atRunner(r *inputReader, all, args []word, depth int) {
	o := optSpec{short: "qtf", stop: "lrdcf"}
	if _, ok := skipOptions(args, o); ok {
		r.shell = true
	}
}

// sourceRunner reads source and ".": a shell reading stdin when the file
// is stdin.
func sourceRunner(r *inputReader, all, args []word, depth int) {
	switch {
	case len(args) == 0:
	case args[0].dynamic:
		r.opaque = true
	case args[0].value == "/dev/stdin" || args[0].value == "/dev/fd/0" || args[0].value == "/proc/self/fd/0":
		r.shell = true
	}
}

// evalRunner reads eval, which runs its arguments joined as a command
// line.
func evalRunner(r *inputReader, all, args []word, depth int) {
	r.remoteLine(args, depth)
}

// containerRunner reads the program name, one of docker, podman,
// nerdctl, kubectl, oc, lxc and incus. A command given after the
// container (or after --) is read; an interactive run or attach whose
// command is the image's is opaque. Without -i (--interactive, --stdin)
// stdin is not passed on at all.
func containerRunner(name string) func(r *inputReader, all, args []word, depth int) {
	return func(r *inputReader, all, args []word, depth int) { r.container(name, all, args, depth) }
}

func (r *inputReader) container(name string, all, args []word, depth int) {
	// Global options come before the subcommand (kubectl -n prod exec).
	global := optSpec{short: "Hclns", long: []string{"host", "context", "config", "log-level", "namespace", "kubeconfig",
		"server", "cluster", "user", "project"}}
	cmd, _ := skipOptions(args, global)
	if len(cmd) == 0 {
		return
	}
	sub, rest := cmd[0].value, cmd[1:]
	interactive := false
	for _, a := range rest {
		v := a.value
		if v == "--" {
			break
		}
		if v == "--interactive" || v == "--stdin" || len(v) > 1 && v[0] == '-' && v[1] != '-' && strings.ContainsRune(v, 'i') {
			interactive = true
		}
	}
	kube := name == "kubectl" || name == "oc"
	lxd := name == "lxc" || name == "incus"
	switch {
	case sub == "exec" && lxd, sub == "exec" && kube && interactive:
		afterDashes(false)(r, all, rest, depth)
		if !slices.Contains(valuesOf(rest), "--") {
			r.opaque = true
		}
	case sub == "exec" && interactive:
		o := optSpec{short: "eulw", long: []string{"env", "env-file", "user", "workdir", "detach-keys"}}
		if ctr, _ := skipOptions(rest, o); len(ctr) > 1 {
			r.command(all, ctr[1:], depth)
		}
	case interactive && (sub == "run" || sub == "attach" || sub == "start" || sub == "debug" || sub == "compose"):
		r.opaque = true
	}
}

// vagrantRunner reads vagrant ssh [-c COMMAND].
func vagrantRunner(r *inputReader, all, args []word, depth int) {
	if len(args) == 0 || args[0].value != "ssh" {
		return
	}
	for i, a := range args {
		if (a.value == "-c" || a.value == "--command") && i+1 < len(args) {
			r.commandString(args[i+1], depth)
			return
		}
	}
	r.shell = true
}

func valuesOf(ws []word) []string {
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = w.value
	}
	return out
}
