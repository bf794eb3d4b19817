package terminal

import (
	"bytes"
	"os/exec"
	"strings"
	"testing"
	"unicode/utf8"
)

// trickyValues are values whose quoting is easy to get wrong.
var trickyValues = []string{
	"", "plain", "two words", `"double" 'single'`, `back\slash`, "$HOME `x` $(y)", "tab\there", "new\nline",
	"\r\x01\x1b[31m\x7f", "你好 🙂", "\xff\xfe invalid", "ends with \\", "'", "''\\''", "}{)(",
}

// Values read back from declare -p are the values bash holds, whatever
// they contain, for plain variables and arrays.
func TestDeclarationsReadBack(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip(err)
	}
	var script strings.Builder
	names := make([]string, len(trickyValues))
	for i, v := range trickyValues {
		names[i] = "V" + string(rune('A'+i))
		script.WriteString(names[i] + "=" + ansiC(v) + "\n")
	}
	script.WriteString("ARR=(" + ansiC(trickyValues[3]) + " " + ansiC(trickyValues[6]) + ")\n")
	script.WriteString("declare -A MAP=([" + ansiC("k y") + "]=" + ansiC(trickyValues[7]) + ")\n")
	script.WriteString("declare -p " + strings.Join(names, " ") + " ARR MAP\n")
	for _, locale := range []string{"C", "C.UTF-8"} {
		cmd := exec.Command(bash, "--noprofile", "--norc", "-c", script.String())
		cmd.Env = []string{"LC_ALL=" + locale}
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%v: %s", err, out)
		}
		decls := parseDeclarations(string(out))
		for i, name := range names {
			if got := decls[name].value(); got != trickyValues[i] {
				t.Errorf("%s: %s read back as %q, want %q (printed %s)", locale, name, got, trickyValues[i], decls[name].raw)
			}
		}
		if got, want := decls["ARR"].value(), trickyValues[3]+" "+trickyValues[6]; got != want {
			t.Errorf("%s: ARR = %q, want %q", locale, got, want)
		}
		if got := decls["MAP"].value(); got != trickyValues[7] {
			t.Errorf("%s: MAP = %q, want %q", locale, got, trickyValues[7])
		}
	}
}

// FuzzShellReport checks the readers of the shell's report: a word
// quoted for bash reads back as itself, trap -p output as bash writes it
// reads back, and nothing in a report, however malformed, stops the
// readers.
func FuzzShellReport(f *testing.F) {
	for _, v := range trickyValues {
		f.Add(v)
	}
	f.Add("declare -a X=([0]=\"a\" [1]=$'b\\nc')\ndeclare -- Y\nf () \n{ \n    echo\n}\n")
	f.Add("trap -- 'echo '\\''x'\\''' EXIT\ntrap -- '' SIGINT\n")
	f.Add("\x00N:n\x000\x001\x00/\x00\x00\x00\x00\x00E:n\x00")
	f.Fuzz(func(t *testing.T, s string) {
		if got, rest := unquoteWord(ansiC(s)); got != s || rest != "" {
			t.Fatalf("ansiC(%q) read back as %q, rest %q", s, got, rest)
		}
		quoted := "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
		if traps := parseTraps("trap -- " + quoted + " EXIT\n"); traps["EXIT"] != s {
			t.Fatalf("trap code %q read back as %q", s, traps["EXIT"])
		}
		for name, d := range parseDeclarations(s) {
			_ = d.value()
			if !utf8.ValidString(name) && d.name != name {
				t.Fatalf("declaration %q under name %q", d.name, name)
			}
		}
		for name, def := range parseFunctions(s) {
			if !strings.HasPrefix(def, name+" () ") {
				t.Fatalf("function %q: definition %q", name, def)
			}
		}
		out := make(chan record, 8)
		done := make(chan struct{})
		go func() {
			for range out {
			}
			close(done)
		}()
		readRecords(bytes.NewReader([]byte(s)), out, nil)
		<-done
	})
}
