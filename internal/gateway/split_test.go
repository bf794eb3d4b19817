package gateway

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestSplit(t *testing.T) {
	tests := []struct {
		name    string
		text    string
		max     int
		measure func(string) int
		want    []string
	}{
		{"empty", "", 10, nil, nil},
		{"fits", "hello world", 11, nil, []string{"hello world"}},
		{"paragraph before line", "aaaa bbbb\ncc\n\ndddd", 14, nil, []string{"aaaa bbbb\ncc", "dddd"}},
		{"line before space", "aaaa bbbb\ncccc dddd eeee", 16, nil, []string{"aaaa bbbb", "cccc dddd eeee"}},
		{"space before hard", "aaaa bbbb cccc", 10, nil, []string{"aaaa bbbb", "cccc"}},
		{"hard cut", "abcdefghij", 4, nil, []string{"abcd", "efgh", "ij"}},
		{"whitespace run dropped", "aaaa \n \n\t bbbb", 6, nil, []string{"aaaa", "bbbb"}},
		{"early break kept over a hard cut", "ab cdefghijkl", 8, nil, []string{"ab", "cdefghij", "kl"}},
		{"late break preferred to early paragraph", "aa\n\nbbbb cccc dd", 12, nil, []string{"aa\n\nbbbb", "cccc dd"}},
		{"two-byte runes by bytes", "ééééé", 3, nil, []string{"é", "é", "é", "é", "é"}},
		{"three-byte runes by bytes", "日本語です", 7, ByteLen, []string{"日本", "語で", "す"}},
		{"emoji by UTF-16", "😀😀😀", 3, UTF16Len, []string{"😀", "😀", "😀"}},
		{"emoji and text by UTF-16", "ab😀cd", 3, UTF16Len, []string{"ab", "😀c", "d"}},
		{"UTF-16 counts BMP runes once", "日本語です", 5, UTF16Len, []string{"日本語です"}},
		{"inline code kept whole", "say `a b c d` now", 10, nil, []string{"say", "`a b c d`", "now"}},
		{"double-backtick code kept whole", "x ``a ` b c`` y", 12, nil, []string{"x", "``a ` b c``", "y"}},
		{"link kept whole", "read [the docs](http://x.y/z) now", 24, nil, []string{"read", "[the docs](http://x.y/z)", "now"}},
		{"image kept whole", "see ![a b](u/v.png) ok", 16, nil, []string{"see", "![a b](u/v.png)", "ok"}},
		{"strong emphasis kept whole", "go **very far away** now", 18, nil, []string{"go", "**very far away**", "now"}},
		{"strikethrough kept whole", "a ~~b c d~~ e", 9, nil, []string{"a", "~~b c d~~", "e"}},
		{"underscore emphasis kept whole", "x _a b c_ y", 8, nil, []string{"x", "_a b c_", "y"}},
		{"underscores inside words are no emphasis", "xx a_b c_d", 8, nil, []string{"xx a_b", "c_d"}},
		{"an underscore after a word opens nothing", "xx a_b c_ d", 8, nil, []string{"xx a_b", "c_ d"}},
		{"a star before a space opens nothing", "2 * 3 * 4 * 5", 8, nil, []string{"2 * 3 *", "4 * 5"}},
		{"unavoidable cut in inline code", "`aaaaaaaaaaaa`", 8, nil, []string{"`aaaaaaa", "aaaaa`"}},
		{
			"fence closed and reopened",
			"Intro.\n\n```go\nfmt.Println(1)\nfmt.Println(2)\nfmt.Println(3)\n```\nDone.",
			40, nil,
			[]string{
				"Intro.\n\n```go\nfmt.Println(1)\n```",
				"```go\nfmt.Println(2)\nfmt.Println(3)\n```",
				"Done.",
			},
		},
		{
			"a code block that fits in the next chunk is not cut",
			"Run this:\n\n```sh\nmake build\nmake test\n```\n\nThen deploy.",
			32, UTF16Len,
			[]string{"Run this:", "```sh\nmake build\nmake test\n```", "Then deploy."},
		},
		{
			"cut before a fence rather than inside its first line",
			"Some words here.\n```sh\nls -la\n```",
			24, nil,
			[]string{"Some words here.", "```sh\nls -la\n```"},
		},
		{
			"blank lines inside a fence are kept",
			"~~~\na\n\n\nb\n~~~",
			12, nil,
			[]string{"~~~\na\n\n\n~~~", "~~~\nb\n~~~"},
		},
		{
			"long fence marker and no info",
			"````\nx `` y\nz\n````",
			16, nil,
			[]string{"````\nx `` y\n````", "````\nz\n````"},
		},
		{
			"long code line cut at a rune and wrapped",
			"```\nabcdefghijklmnop\n```",
			16, nil,
			[]string{"```\nabcdefgh\n```", "```\nijklmnop\n```"},
		},
		{
			"unclosed fence reopened but not closed at the end",
			"```py\nprint(1)\nprint(2)",
			20, nil,
			[]string{"```py\nprint(1)\n```", "```py\nprint(2)"},
		},
		{
			"tilde fence with info and UTF-16 measure",
			"~~~ text\n😀😀😀\n😀😀😀\n~~~",
			20, UTF16Len,
			[]string{"~~~ text\n😀😀😀\n~~~", "~~~ text\n😀😀😀\n~~~"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Split(tt.text, tt.max, tt.measure)
			if !slices.Equal(got, tt.want) {
				t.Fatalf("Split(%q, %d) =\n%q\nwant\n%q", tt.text, tt.max, got, tt.want)
			}
			checkSplit(t, tt.text, tt.max, tt.measure)
		})
	}
}

func TestUTF16Len(t *testing.T) {
	for s, want := range map[string]int{"": 0, "abc": 3, "é": 1, "日本": 2, "😀": 2, "a😀b": 4, "\xff": 1, "👍🏽": 4} {
		if got := UTF16Len(s); got != want {
			t.Errorf("UTF16Len(%q) = %d, want %d", s, got, want)
		}
	}
	if got := ByteLen("😀"); got != 4 {
		t.Errorf("ByteLen(😀) = %d, want 4", got)
	}
}

// longReply is a reply of about n paragraphs with code, links, emoji and
// code blocks.
func longReply(n int) string {
	var b strings.Builder
	for i := range n {
		b.WriteString("Paragraph with `code` and [a link](https://example.com/x) 😀 日本語.\n")
		if i%7 == 0 {
			b.WriteString("\n```go\nfunc f() {\n\treturn\n}\n```\n\n")
		}
	}
	return b.String()
}

func TestSplitLongText(t *testing.T) {
	text := longReply(500)
	for _, max := range []int{64, 200, 4096} {
		chunks := Split(text, max, UTF16Len)
		if len(chunks) < 2 {
			t.Fatalf("max %d: %d chunks", max, len(chunks))
		}
		checkSplit(t, text, max, UTF16Len)
	}
}

// BenchmarkSplit splits a reply of about 100 KB into Telegram messages.
func BenchmarkSplit(b *testing.B) {
	text := longReply(1500)
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		Split(text, 4096, UTF16Len)
	}
}

func FuzzSplit(f *testing.F) {
	f.Add("Intro.\n\n```go\nfmt.Println(1)\nfmt.Println(2)\n```\nDone.", uint16(20), false)
	f.Add("say `a b c d` now [x](y) 😀😀😀 日本語", uint16(6), true)
	f.Add("~~~\na\n\n\nb\n~~~\n````\nx\n", uint16(12), false)
	f.Add("\xff\xfe\x80abc \n\n\t`` ` ``", uint16(4), true)
	f.Fuzz(func(t *testing.T, text string, max uint16, utf16 bool) {
		measure := ByteLen
		if utf16 {
			measure = UTF16Len
		}
		checkSplit(t, text, 4+int(max%300), measure)
	})
}

// checkSplit checks what Split promises of any text: every chunk fits; a
// chunk is a piece of the text with at most an opening fence line before
// it and a closing one after it; the pieces are in order, with only
// whitespace between them (one newline or none inside a code block); no
// chunk is only whitespace; no rune is cut.
func checkSplit(t *testing.T, text string, max int, measure func(string) int) {
	t.Helper()
	if measure == nil {
		measure = ByteLen
	}
	chunks := Split(text, max, measure)
	pieces := splitPieces(text, max, measure)
	if len(chunks) != len(pieces) {
		t.Fatalf("%d chunks, %d pieces", len(chunks), len(pieces))
	}
	if text != "" && strings.TrimLeft(text, spaces) != "" && len(chunks) == 0 {
		t.Fatalf("Split(%q) gave no chunks", text)
	}
	prev := 0
	for i, p := range pieces {
		c := chunks[i]
		if n := measure(c); n > max {
			t.Errorf("chunk %d %q measures %d > %d", i, c, n, max)
		}
		if c != p.open+text[p.start:p.end]+p.close {
			t.Fatalf("chunk %d %q is not its piece %+v", i, c, p)
		}
		if p.start < prev || p.end <= p.start {
			t.Fatalf("piece %d %+v after %d", i, p, prev)
		}
		gap := text[prev:p.start]
		if strings.TrimLeft(gap, spaces) != "" {
			t.Errorf("piece %d drops %q", i, gap)
		}
		if i > 0 && pieces[i-1].close != "" && p.open != "" && len(gap) > 1 {
			t.Errorf("piece %d drops %q inside a code block", i, gap)
		}
		if runeFloor(text, p.start) != p.start || runeFloor(text, p.end) != p.end {
			t.Errorf("piece %d %+v cuts a rune", i, p)
		}
		if utf8.ValidString(text) && !utf8.ValidString(c) {
			t.Errorf("chunk %d %q is not valid UTF-8", i, c)
		}
		if len(pieces) > 1 && strings.TrimLeft(c, spaces) == "" {
			t.Errorf("chunk %d is only whitespace", i)
		}
		if p.open != "" {
			line, ok := strings.CutSuffix(p.open, "\n")
			if _, _, fence := fenceOpen(line); !ok || !fence {
				t.Errorf("chunk %d opens with %q", i, p.open)
			}
		}
		if p.close != "" && (!strings.HasPrefix(p.close, "\n") || !fenceClose(p.close[1:], p.close[1:])) {
			t.Errorf("chunk %d closes with %q", i, p.close)
		}
		prev = p.end
	}
	if strings.TrimLeft(text[prev:], spaces) != "" {
		t.Errorf("the end %q is dropped", text[prev:])
	}
}
