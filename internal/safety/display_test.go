package safety

import (
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/safety/shell"
)

func TestEscape(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"ls -la", "ls -la"},
		{"\x1b[2K\rls -la /tmp", `\x1b[2K\rls -la /tmp`},
		{"a\nb\tc", `a\nb\tc`},
		{"\x1b]0;title\x07x", `\x1b]0;title\x07x`},
		{"\u009b31mx", `\u009b31mx`},
		{"rm \u202e/ fr-", `rm \u202e/ fr-`},
		{"r\u200bm", `r\u200bm`},
		{"a\u00a0b", `a\u00a0b`},
		{"bad\xffbyte", `bad\xffbyte`},
		{"ｒｍ -rf", "ｒｍ -rf"},
		{"日本語", "日本語"},
	} {
		if got := Escape(tc.in); got != tc.want {
			t.Errorf("Escape(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// An approval prompt cannot be made to lie: whatever the command holds,
// what it shows has no control characters, and always shows the part
// the rule matched.
func TestRequestDisplay(t *testing.T) {
	request := func(cmd string) Request {
		r := Request{Command: cmd}
		if fs := shell.Inspect(cmd).Findings; len(fs) > 0 {
			r.Verdict = fs[0]
		}
		return r
	}
	padding := "echo " + strings.Repeat("harmless ", 60) + "; "
	for _, tc := range []struct {
		name, cmd string
		shows     []string // in the command line
		match     string   // shown beside it
	}{
		{"redraw", "rm -rf /tmp/x\x1b[2K\r\x1b[1Als -la /tmp", []string{`rm -rf /tmp/x\x1b[2K\r\x1b[1Als -la /tmp`}, `rm -rf /tmp/x\rls -la /tmp`},
		{"long harmless prefix", padding + "rm -rf ~/work", []string{"rm -rf ~/work", "characters cut"}, ""},
		{"long harmless suffix", "rm -rf ~/work; " + strings.Repeat("echo x; ", 80), []string{"rm -rf ~/work", "characters cut"}, ""},
		{"prefix and suffix", padding + "git push --force origin main; " + strings.Repeat("echo x; ", 80), []string{"git push --force origin main"}, ""},
		{"decoded payload", padding + "echo cm0gLXJmIC90bXAveA== | base64 -d | sh", []string{"characters cut"}, "rm -rf /tmp/x"},
		{"escaped comment", "echo 'rm -rf /tmp/x' | sh # \r\x1b[Kls -la", []string{`\r\x1b[Kls -la`, "rm -rf /tmp/x"}, ""},
	} {
		r := request(tc.cmd)
		if r.Verdict.IsSafe() {
			t.Fatalf("%s: %q is safe; the test needs a dangerous command", tc.name, tc.cmd)
		}
		cmd, match := r.Display(300)
		for _, want := range tc.shows {
			if !strings.Contains(cmd, want) {
				t.Errorf("%s: the prompt shows %q, without %q", tc.name, cmd, want)
			}
		}
		if match != tc.match {
			t.Errorf("%s: the prompt shows the match %q beside the command, want %q", tc.name, match, tc.match)
		}
		for _, s := range []string{cmd, match} {
			if strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0 }) {
				t.Errorf("%s: the prompt shows a control character: %q", tc.name, s)
			}
		}
		if n := len([]rune(cmd)); n > 300+2*len("[… 12345 characters cut …] ") {
			t.Errorf("%s: the prompt line is %d characters long", tc.name, n)
		}
	}
}

// A match longer than the prompt's width is shown whole, not cut.
func TestRequestDisplayLongMatch(t *testing.T) {
	target := "/tmp/" + strings.Repeat("x", 400)
	r := Request{Command: "ls; rm -rf " + target + "; ls"}
	r.Verdict = shell.Inspect(r.Command).Findings[0]
	cmd, _ := r.Display(100)
	if !strings.Contains(cmd, "rm -rf "+target) {
		t.Errorf("the matched command was cut: %q", cmd)
	}
}
