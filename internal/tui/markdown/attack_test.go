package markdown

import (
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// controls are the characters that must never reach the terminal raw, each
// with the visible form the render must show instead.
var controls = []struct {
	name, raw, shown string
}{
	{"ESC clear screen", "\x1b[2J\x1b[H", "␛[2J␛[H"},
	{"SGR forging color", "\x1b[32m✔ approved\x1b[0m", "␛[32m✔ approved␛[0m"},
	{"OSC 8 hyperlink", "\x1b]8;;https://evil.example\x1b\\click\x1b]8;;\x1b\\", "␛]8;;https://evil.example␛\\click␛]8;;␛\\"},
	{"OSC title with BEL", "\x1b]0;pwned\x07", "␛]0;pwned␇"},
	{"cursor up and erase line", "\x1b[1A\x1b[2K", "␛[1A␛[2K"},
	{"C1 CSI", "\u009b2J", "<U+009B>2J"},
	{"C1 OSC", "\u009d8;;x\u009c", "<U+009D>8;;x<U+009C>"},
	{"backspace", "rm -rf /\b\b\b\bls", "rm -rf /␈␈␈␈ls"},
	{"carriage return", "Run `ls`?\rApprove? [y]", "␍Approve"},
	{"bidi override", "file\u202Etxt.exe", "file<U+202E>txt.exe"},
	{"bidi isolate", "a\u2066b\u2069c", "a<U+2066>b<U+2069>c"},
	{"invisible tags", "ok\U000E0041\U000E0042", "ok<U+E0041><U+E0042>"},
	{"NUL and DEL", "a\x00b\x7fc", "a␀b␡c"},
	{"line separator", "a\u2028b", "a<U+2028>b"},
	{"invalid UTF-8", "a\xff\xfeb", "a\uFFFD\uFFFDb"},
}

// contexts place an attack in every part of a reply the renderer draws.
var contexts = []struct {
	name string
	wrap func(string) string
}{
	{"paragraph", func(s string) string { return "text " + s + " more" }},
	{"heading", func(s string) string { return "## head " + s }},
	{"strong", func(s string) string { return "**" + s + "**" }},
	{"code span", func(s string) string { return "`" + s + "`" }},
	{"fenced code", func(s string) string { return "```sh\necho " + s + "\n```" }},
	{"unterminated fence", func(s string) string { return "```go\nx := \"" + s }},
	{"fence language", func(s string) string { return "```" + strings.ReplaceAll(s, " ", "") + "\ncode\n```" }},
	{"indented code", func(s string) string { return "    " + s }},
	{"link text", func(s string) string { return "[" + s + "](https://example.com)" }},
	{"link url", func(s string) string { return "[x](<https://example.com/" + s + ">)" }},
	{"image alt", func(s string) string { return "![" + s + "](p.png)" }},
	{"quote", func(s string) string { return "> " + s }},
	{"list item", func(s string) string { return "- " + s }},
	{"task item", func(s string) string { return "- [ ] " + s }},
	{"table cell", func(s string) string { return "| a | b |\n|---|---|\n| " + s + " | c |" }},
	{"html block", func(s string) string { return "<div>\n" + s + "\n</div>" }},
	{"inline html", func(s string) string { return "a <span title=\"" + s + "\">b</span>" }},
}

// TestControlCharactersShownVisibly puts each control sequence in each
// context and checks that the output carries no control character but the
// style's own SGR, and that the attack is shown in its visible form.
func TestControlCharactersShownVisibly(t *testing.T) {
	for _, c := range controls {
		for _, ctx := range contexts {
			src := ctx.wrap(c.raw)
			for _, style := range []Style{NoColor(), DefaultStyle()} {
				out := Render(src, 80, style)
				if bad := rawControl(out, style); bad != "" {
					t.Errorf("%s in %s: output carries %s raw:\n%q", c.name, ctx.name, bad, out)
				}
				if !strings.Contains(loose(stripSGR(out)), loose(visibleCore(c.shown))) {
					t.Errorf("%s in %s: output does not show %q:\n%q", c.name, ctx.name, c.shown, stripSGR(out))
				}
			}
		}
	}
}

// TestEntitiesDecodingToControlsShownVisibly checks that character
// references, which CommonMark decodes, cannot smuggle a control in.
func TestEntitiesDecodingToControlsShownVisibly(t *testing.T) {
	for src, want := range map[string]string{
		"a &#27;[2J b":        "␛[2J",
		"a &#x1b;]8;;u&#7; b": "␛]8;;u␇",
		"a &#x9b;2J b":        "<U+009B>2J",
		"a &#x202e;b":         "<U+202E>b",
		"a &#8232;b":          "<U+2028>b",
	} {
		for _, style := range []Style{NoColor(), DefaultStyle()} {
			out := Render(src, 80, style)
			if bad := rawControl(out, style); bad != "" {
				t.Errorf("%q: output carries %s raw: %q", src, bad, out)
			}
			if !strings.Contains(stripSGR(out), want) {
				t.Errorf("%q: output does not show %q: %q", src, want, stripSGR(out))
			}
		}
	}
}

// FuzzRender checks on any input that Render does not panic and lets no
// control character through but the style's SGR.
func FuzzRender(f *testing.F) {
	for _, c := range controls {
		for _, ctx := range contexts {
			f.Add(ctx.wrap(c.raw), 40)
		}
	}
	f.Add("| a |\n|---|\n| \x1b[2J |", 12)
	f.Fuzz(func(t *testing.T, src string, width int) {
		width = width%200 + 1
		for _, style := range []Style{NoColor(), DefaultStyle()} {
			out := Render(src, width, style)
			if bad := rawControl(out, style); bad != "" {
				t.Fatalf("output carries %s raw: %q", bad, out)
			}
		}
	})
}

// rawControl returns a description of the first character in out that a
// terminal would act on, other than the newline and the SGR sequences the
// style itself writes; "" when there is none.
func rawControl(out string, style Style) string {
	ours := map[string]bool{"0": true}
	for a := attr(1); a < 1<<attrCount; a <<= 1 {
		for _, p := range strings.Split(style.field(a), ";") {
			ours[p] = true
		}
	}
	for i := 0; i < len(out); {
		if out[i] == 0x1b {
			end := skipSGR(out, i)
			seq := out[i:end]
			if !strings.HasPrefix(seq, "\x1b[") || !strings.HasSuffix(seq, "m") {
				return "escape sequence " + strconv.Quote(seq)
			}
			for _, p := range strings.Split(seq[2:len(seq)-1], ";") {
				if !ours[p] || p == "" {
					return "foreign SGR " + strconv.Quote(seq)
				}
			}
			i = end
			continue
		}
		r, size := decodeRune(out[i:])
		if r == '\n' {
			i += size
			continue
		}
		if r < 0x20 || (r >= 0x7f && r <= 0x9f) || r == 0x2028 || r == 0x2029 ||
			(unicode.Is(unicode.Cf, r) && r != 0x200C && r != 0x200D) {
			return "control " + strconv.Quote(string(r))
		}
		i += size
	}
	return ""
}

// visibleCore drops the parts of an expected visible form that the
// markdown context may change (a backslash escape, a text after a CR), so
// that the check looks for the control's symbol itself.
func visibleCore(shown string) string {
	if i := strings.Index(shown, "\\"); i > 0 {
		return shown[:i]
	}
	return shown
}

// loose drops the characters that markdown may consume around an attack
// (brackets taken for a link, spaces dropped from a fence's language), so
// the check compares only what has to be shown.
func loose(s string) string {
	return strings.NewReplacer("[", "", "]", "", " ", "", "\n", "").Replace(s)
}

// stripSGR removes SGR sequences.
func stripSGR(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		if s[i] == 0x1b {
			i = skipSGR(s, i)
			continue
		}
		b.WriteByte(s[i])
		i++
	}
	return b.String()
}
