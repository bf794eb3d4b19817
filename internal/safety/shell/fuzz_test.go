package shell

import (
	"encoding/base64"
	"encoding/hex"
	"strings"
	"testing"
)

// severity orders the levels, safe lowest.
func severity(l Level) int {
	switch l {
	case Hardline:
		return 2
	case Dangerous:
		return 1
	}
	return 0
}

// obfuscations rewrite a command into another that runs it, the ways a
// model might hide it: through a shell or eval, as a base64, hex or
// reversed payload piped to a shell, in a variable, in a file written
// and run, behind wrappers, and, for a simple command, with its words in
// variables, in the positional parameters or quoted apart.
var obfuscations = []struct {
	name string
	// simple is set when the rewrite is only valid for one simple
	// command of plain words.
	simple bool
	apply  func(cmd string) string
}{
	{"bash -c", false, func(c string) string { return "bash -c " + shellQuote(c) }},
	{"eval", false, func(c string) string { return "eval " + shellQuote(c) }},
	{"base64 pipe", false, func(c string) string {
		return "echo " + base64.StdEncoding.EncodeToString([]byte(c)) + " | base64 -d | sh"
	}},
	{"variable eval", false, func(c string) string { return "HERMES_FUZZ_X=" + shellQuote(c) + `; eval "$HERMES_FUZZ_X"` }},
	{"decoded substitution", false, func(c string) string {
		return `sh -c "$(echo ` + base64.StdEncoding.EncodeToString([]byte(c)) + ` | base64 -d)"`
	}},
	{"wrapped shell", false, func(c string) string { return "timeout 5 nice -n 5 sudo -E bash -c " + shellQuote(c) }},
	{"hex pipe", false, func(c string) string { return "echo " + hex.EncodeToString([]byte(c)) + " | xxd -r -p | bash" }},
	{"printf pipe", false, func(c string) string { return "printf '%s' " + shellQuote(c) + " | sh" }},
	{"reversed pipe", false, func(c string) string {
		lines := strings.Split(c, "\n")
		for i, l := range lines {
			r := []rune(l)
			for a, b := 0, len(r)-1; a < b; a, b = a+1, b-1 {
				r[a], r[b] = r[b], r[a]
			}
			lines[i] = string(r)
		}
		return "printf '%s\\n' " + shellQuote(strings.Join(lines, "\n")) + " | rev | sh"
	}},
	{"written file", false, func(c string) string {
		return "printf '%s' " + shellQuote(c) + " > /tmp/hermes-fuzz.sh; sh /tmp/hermes-fuzz.sh"
	}},
	{"here-string", false, func(c string) string { return "bash <<< " + shellQuote(c) }},
	{"word split", true, func(c string) string { return "HERMES_FUZZ_C=" + shellQuote(c) + "; $HERMES_FUZZ_C" }},
	{"positional", true, func(c string) string { return "set -- " + c + `; "$@"` }},
	{"quoted apart", true, func(c string) string { return c[:1] + "''" + c[1:] }},
	{"substituted name", true, func(c string) string {
		name, rest, _ := strings.Cut(c, " ")
		return "$(echo " + name + ") " + rest
	}},
	{"wrappers", true, func(c string) string { return "env nohup setsid stdbuf -o0 flock /tmp/l " + c }},
	{"xargs", true, func(c string) string {
		name, rest, _ := strings.Cut(c, " ")
		return "echo " + rest + " | xargs " + name
	}},
}

// plainWords reports whether cmd is one simple command of words that
// mean the same quoted or not, split at single spaces.
func plainWords(cmd string) bool {
	if cmd == "" || strings.HasPrefix(cmd, "-") || strings.Contains(cmd, "  ") || strings.HasSuffix(cmd, " ") {
		return false
	}
	for _, r := range cmd {
		if !(r == ' ' || r == '_' || r == '-' || r == '.' || r == '/' || r == ',' || r == ':' || r == '=' || r == '+' || r == '@' ||
			r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return false
		}
	}
	name, _, _ := strings.Cut(cmd, " ")
	return !isAssignment(name) && !keyword(name) && !noCommand(name) && len(name) > 1
}

// FuzzObfuscation checks that hiding a command never makes it less
// severe: whatever obfuscations ops picks, applied in turn, the verdict of
// the result is at least the verdict of the command itself. Commands past
// the analysis's limits are refused whole, as hardline, so a rewrite that
// grows a command past them only raises its verdict.
func FuzzObfuscation(f *testing.F) {
	for i, tc := range classifyCases {
		f.Add(tc.cmd, []byte{byte(i)})
	}
	for _, cmd := range []string{"rm -rf /", "rm -rf ~", "mkfs.ext4 /dev/sda", "reboot", "kill -9 -1", "git push --force", "chmod -R 000 /"} {
		for i := range obfuscations {
			f.Add(cmd, []byte{byte(i), byte(i * 7)})
		}
	}
	f.Fuzz(func(t *testing.T, cmd string, ops []byte) {
		if len(cmd) > 4096 || len(ops) > 3 {
			return
		}
		base := Classify(cmd)
		obf := cmd
		var applied []string
		for _, op := range ops {
			o := obfuscations[int(op)%len(obfuscations)]
			if o.simple && !plainWords(obf) {
				continue
			}
			obf = o.apply(obf)
			applied = append(applied, o.name)
		}
		if got := Classify(obf); severity(got.Level) < severity(base.Level) {
			t.Fatalf("%q is %s, but hidden by %v as %q it is %s", cmd, base, applied, obf, got)
		}
	})
}
