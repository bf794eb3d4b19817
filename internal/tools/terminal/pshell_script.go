package terminal

import (
	"slices"
	"strconv"
	"strings"
)

// The persistent shell is bash running driverScript, started by a
// procgroup guard, with file descriptor 3 the read end of a pipe hermes
// sends requests on and 4 the write end of a pipe it reports on. The loop, the
// way a call's command is handed over, and the report are all here, so
// the protocol reads in one place.
//
// A request is its length in bytes on a line of its own, then that many
// bytes of script, all ASCII: read -N takes the script in one read, and
// bash counts ASCII bytes as characters whatever the locale. The script
// is a call script (callScript): it runs one command and reports.
//
// The loop stops, and the shell exits, when a call leaves __hermes_busy
// set: a `break 2` or `continue 2` at the top of a command would
// otherwise leave the loop without a report, or wait for the next request
// while hermes waits for this one's report.
//
// When the request pipe ends (hermes is gone, killed or closing the
// shell), the shell kills its process group on its way out: what its
// commands left running in the background goes with it. The guard would
// too, on the parent-death signal, but the shell may see the pipe end and
// exit first, and a guard whose program has exited exits without running
// its trap.
const driverScript = `while [[ -z ${__hermes_busy-} ]] && IFS= builtin read -r -u 3 __hermes_n && ` +
	`IFS= builtin read -r -N "$__hermes_n" -u 3 __hermes_r; do builtin eval "$__hermes_r"; done; ` +
	`[[ -n ${__hermes_busy-} ]] || builtin kill -9 0`

// request frames script for driverScript.
func request(script string) []byte {
	b := make([]byte, 0, len(script)+8)
	b = strconv.AppendInt(b, int64(len(script)), 10)
	b = append(b, '\n')
	return append(b, script...)
}

// shellCall is one request: code to run at a place, reporting under
// nonce.
type shellCall struct {
	nonce string
	// dir, when set, is changed into before code runs; when that fails
	// the code does not run and the report says so.
	dir string
	// fifo is the named pipe the code's stdout and stderr go to.
	fifo string
	// code is the text bash evaluates (see commandCode).
	code string
	// prelude runs after code and before the report: putting back shell
	// options code changed.
	prelude string
}

// commandCode is the code that runs command as the model wrote it: in a
// brace group, so that bash parses all of it before running any (a
// syntax error runs nothing, as with bash -c), starting on line 1 so
// error messages give the model's own line numbers, with `:` first so
// that a command that is only a comment is still a group, and a newline
// before the closing brace so that a last line ending in a comment or a
// backslash does not swallow it.
func commandCode(command string) string {
	return "{ :; " + command + "\n\n}"
}

// script is the text bash evaluates for c. It is one line so that the
// code keeps line 1; the nonce appears in it only as a word bash has
// parsed before the code runs, never in a variable the code could print.
// The code runs with stdin from /dev/null, stdout and stderr to the
// FIFO, and the request and report pipes closed, so neither it nor
// anything it starts can read requests or forge a report.
func (c shellCall) script() string {
	var b strings.Builder
	b.WriteString("builtin unset __hermes_r __hermes_n; __hermes_busy=1; if ")
	if c.dir != "" {
		b.WriteString("builtin cd -- " + ansiC(c.dir) + " 2>/dev/null")
	} else {
		b.WriteString(":")
	}
	b.WriteString("; then builtin eval " + ansiC(c.code) + " </dev/null >" + ansiC(c.fifo) + " 2>&1 3<&- 4>&-; " +
		"__hermes_s=$? __hermes_c=1; else __hermes_s=1 __hermes_c=0; fi; ")
	if c.prelude != "" {
		b.WriteString(c.prelude + "; ")
	}
	b.WriteString(reportTail(c.nonce))
	return b.String()
}

// reportTail ends every call script. It first removes a function named
// builtin and clears the DEBUG, ERR and RETURN traps, which would run
// before each command that follows; every later command is `builtin
// NAME`, so no function of the session's can stand in for it. It then
// writes the report (see readRecords) — a shell that cannot, because a
// command broke its report pipe, exits rather than leave hermes waiting —
// and clears what must not carry over
// to the next call: aliases, the hash table, the directory stack and the
// positional parameters. Other traps and shell options are put back by a
// follow-up request when the report shows them changed (see
// pshell.followUp).
func reportTail(nonce string) string {
	return "__hermes_busy=; unset -f builtin; builtin trap - DEBUG ERR RETURN; " +
		"{ builtin printf '\\0N:%s\\0%s\\0%s\\0' " + nonce + ` "$__hermes_s" "$__hermes_c"; builtin pwd -P; ` +
		`builtin printf '\0'; builtin declare -p; builtin printf '\0'; builtin declare -f; builtin printf '\0'; ` +
		`builtin trap -p; builtin printf '\0'; builtin enable -a; builtin printf '\0E:%s\0' ` + nonce + "; } >&4 2>/dev/null || builtin exit 70; " +
		"builtin unalias -a; builtin hash -r; builtin dirs -c; builtin set --"
}

// ansiC quotes s as a bash $'…' word in ASCII: printable ASCII stays,
// quote and backslash are escaped, a newline is \n and every other byte
// \xHH, so any text — other quotes, heredocs, unbalanced braces, \r,
// UTF-8 — reaches bash as exactly those bytes.
func ansiC(s string) string {
	const hex = "0123456789abcdef"
	b := make([]byte, 0, len(s)+len(s)/8+3)
	b = append(b, '$', '\'')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\\' || c == '\'':
			b = append(b, '\\', c)
		case c == '\n':
			b = append(b, '\\', 'n')
		case c >= 0x20 && c < 0x7f:
			b = append(b, c)
		default:
			b = append(b, '\\', 'x', hex[c>>4], hex[c&15])
		}
	}
	return string(append(b, '\''))
}

// optionReset returns the commands that put shell options back to what
// they were when the shell started (base), from what they are now (cur):
// SHELLOPTS for set -o, BASHOPTS for shopt, as colon-separated lists.
// It returns "" when nothing changed.
func optionReset(baseSet, curSet, baseShopt, curShopt string) string {
	var parts []string
	diff := func(base, cur, on, off string) {
		b, c := splitColons(base), splitColons(cur)
		for _, name := range c {
			if !slices.Contains(b, name) {
				parts = append(parts, off+" "+name)
			}
		}
		for _, name := range b {
			if !slices.Contains(c, name) {
				parts = append(parts, on+" "+name)
			}
		}
	}
	diff(baseSet, curSet, "builtin set -o", "builtin set +o")
	diff(baseShopt, curShopt, "builtin shopt -s", "builtin shopt -u")
	return strings.Join(parts, "; ")
}

// splitColons returns the names of a colon-separated list that are plain
// option names.
func splitColons(s string) []string {
	var names []string
	for _, name := range strings.Split(s, ":") {
		if name != "" && strings.Trim(name, "abcdefghijklmnopqrstuvwxyz_-0123456789") == "" {
			names = append(names, name)
		}
	}
	return names
}
