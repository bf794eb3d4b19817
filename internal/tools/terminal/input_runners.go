package terminal

import (
	"slices"
	"strings"
)

// optSpec says which options of a program take a value, and which mean
// it runs no command.
type optSpec struct {
	short string   // short options that take a value (-u USER)
	long  []string // long options that take a value (--user USER)
	stop  string   // short options after which no command runs (sudo -l)
}

// skipOptions returns the arguments after the options; ok is false when
// an option says the program runs no command.
func skipOptions(args []word, o optSpec) (rest []word, ok bool) {
	for i := 0; i < len(args); i++ {
		v := args[i].value
		switch {
		case v == "--":
			return args[i+1:], true
		case strings.HasPrefix(v, "--"):
			n, _, has := strings.Cut(v[2:], "=")
			if !has && slices.Contains(o.long, n) {
				i++
			}
		case len(v) > 1 && v[0] == '-':
			for k := 1; k < len(v); k++ {
				if strings.IndexByte(o.stop, v[k]) >= 0 {
					return nil, false
				}
				if strings.IndexByte(o.short, v[k]) >= 0 {
					if k == len(v)-1 {
						i++
					}
					break
				}
			}
		default:
			return args[i:], true
		}
	}
	return nil, true
}

// hasFlag reports whether one of the short flags, or one of the long
// ones, is among the options before the first operand.
func hasFlag(args []word, o optSpec, short string, long ...string) bool {
	for i := 0; i < len(args); i++ {
		v := args[i].value
		switch {
		case v == "--":
			return false
		case strings.HasPrefix(v, "--"):
			n, _, has := strings.Cut(v[2:], "=")
			if slices.Contains(long, n) {
				return true
			}
			if !has && slices.Contains(o.long, n) {
				i++
			}
		case len(v) > 1 && v[0] == '-':
			for k := 1; k < len(v); k++ {
				if strings.IndexByte(short, v[k]) >= 0 {
					return true
				}
				if strings.IndexByte(o.short, v[k]) >= 0 {
					if k == len(v)-1 {
						i++
					}
					break
				}
			}
		default:
			return false
		}
	}
	return false
}

// runSpec describes a program that runs a command its arguments name.
type runSpec struct {
	opts optSpec
	// operands come before the command (timeout's duration, chroot's
	// new root).
	operands int
	// shellWithout is set when, given no command, it starts a shell
	// that reads stdin (su, chroot, nsenter); shellFlags are its options
	// that do so (sudo -s, sudo -i).
	shellWithout bool
	shellFlags   string
	// special reads the arguments of programs the fields cannot
	// describe.
	special func(r *inputReader, all, args []word, depth int)
}

// runner returns how the program name runs another, if it is one of the
// wrappers on this machine, or one that runs a command as another user,
// in a container or on another host.
func runner(name string) (runSpec, bool) {
	switch name {
	case "nohup", "setsid", "time", "builtin", "unbuffer", "valgrind", "dumb-init", "catchsegv", "firejail", "torsocks",
		"busybox", "toybox":
		return runSpec{}, true
	case "exec":
		return runSpec{opts: optSpec{short: "a"}}, true
	case "command":
		return runSpec{opts: optSpec{stop: "vV"}}, true
	case "nice":
		return runSpec{opts: optSpec{short: "n", long: []string{"adjustment"}}}, true
	case "ionice":
		return runSpec{opts: optSpec{short: "cn", stop: "p"}}, true
	case "chrt", "taskset":
		return runSpec{opts: optSpec{stop: "p"}, operands: 1}, true
	case "timeout":
		return runSpec{opts: optSpec{short: "sk", long: []string{"signal", "kill-after"}}, operands: 1}, true
	case "stdbuf":
		return runSpec{opts: optSpec{short: "ioe", long: []string{"input", "output", "error"}}}, true
	case "rlwrap":
		return runSpec{opts: optSpec{short: "bCfHlpPsSwzeOqgM"}}, true
	case "strace":
		return runSpec{opts: optSpec{short: "abeEIoOpPsSuUX"}}, true
	case "ltrace":
		return runSpec{opts: optSpec{short: "aeEnoOpsSuX"}}, true
	case "faketime":
		return runSpec{opts: optSpec{short: "f"}, operands: 1}, true
	case "tini":
		return runSpec{opts: optSpec{short: "pe"}}, true
	case "caffeinate":
		return runSpec{opts: optSpec{short: "tw"}}, true
	case "xvfb-run":
		return runSpec{opts: optSpec{short: "efnpsw"}}, true
	case "proxychains":
		return runSpec{opts: optSpec{short: "f"}}, true
	case "sudo":
		return runSpec{opts: optSpec{short: "ughpCDRTUrt", stop: "elvKV", long: []string{"user", "group", "host", "prompt",
			"close-from", "chdir", "chroot", "command-timeout", "other-user", "role", "type"}}, shellFlags: "si"}, true
	case "doas":
		return runSpec{opts: optSpec{short: "uC"}, shellFlags: "s"}, true
	case "pkexec":
		return runSpec{opts: optSpec{long: []string{"user"}}, shellWithout: true}, true
	case "chroot":
		return runSpec{opts: optSpec{long: []string{"userspec", "groups"}}, operands: 1, shellWithout: true}, true
	case "nsenter":
		return runSpec{opts: optSpec{short: "tSGrwF", long: []string{"target", "setuid", "setgid", "root", "wd"}}, shellWithout: true}, true
	case "unshare":
		return runSpec{opts: optSpec{short: "RwSG", long: []string{"root", "wd", "setuid", "setgid", "map-user", "map-group"}},
			shellWithout: true}, true
	case "newgrp":
		return runSpec{operands: 1, shellWithout: true}, true
	case "machinectl":
		return runSpec{special: machinectlRunner}, true
	case "env":
		return runSpec{special: envRunner}, true
	case "su", "runuser":
		return runSpec{special: suRunner}, true
	case "script":
		return runSpec{special: scriptRunner}, true
	case "sg":
		return runSpec{special: sgRunner}, true
	case "ssh":
		return runSpec{special: sshRunner}, true
	case "mosh":
		return runSpec{special: afterDashes(true)}, true
	case "flock":
		return runSpec{special: flockRunner}, true
	case "at", "batch":
		return runSpec{special: atRunner}, true
	case "source", ".":
		return runSpec{special: sourceRunner}, true
	case "eval":
		return runSpec{special: evalRunner}, true
	case "docker", "podman", "nerdctl", "kubectl", "oc", "lxc", "incus":
		return runSpec{special: containerRunner(name)}, true
	case "vagrant":
		return runSpec{special: vagrantRunner}, true
	}
	return runSpec{}, false
}
