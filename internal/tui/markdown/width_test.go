package markdown

import (
	"strings"
	"testing"
)

// TestWidthOfCharacters pins the columns of the character classes wrapping
// counts: CJK and fullwidth forms two, combining marks none.
func TestWidthOfCharacters(t *testing.T) {
	for s, want := range map[string]int{
		"abc":             3,
		"中文":              4,
		"ｆｕｌｌ":            8,
		"カタカナ":            8,
		"한국어":             6,
		"e\u0301":         1,
		"🚀":               2,
		"\x1b[1mb\x1b[0m": 1,
	} {
		if got := StringWidth(s); got != want {
			t.Errorf("StringWidth(%q) = %d, want %d", s, got, want)
		}
	}
}

// TestCJKWrapsByDisplayWidth checks that Chinese, Japanese and mixed text
// fill lines to the width in columns, never over, and that Chinese breaks
// between characters while Korean keeps its words whole.
func TestCJKWrapsByDisplayWidth(t *testing.T) {
	zh := strings.Repeat("这是一个很长的中文段落用来测试换行", 6)
	for _, width := range []int{10, 11, 20, 40, 79} {
		lines := strings.Split(Render(zh, width, NoColor()), "\n")
		for i, l := range lines {
			w := StringWidth(l)
			if w > width {
				t.Errorf("width %d: line %d is %d columns: %q", width, i, w, l)
			}
			if i < len(lines)-1 && w < width-1 {
				t.Errorf("width %d: line %d is %d columns, not filled: %q", width, i, w, l)
			}
		}
	}
	ko := "한국어 문장도 포함합니다 한국어 문장도 포함합니다"
	for _, l := range strings.Split(Render(ko, 16, NoColor()), "\n") {
		for _, word := range strings.Fields(l) {
			if !strings.Contains(ko, " "+word+" ") && !strings.HasPrefix(ko, word+" ") && !strings.HasSuffix(ko, " "+word) {
				t.Errorf("Korean word broken: %q in line %q", word, l)
			}
		}
	}
	mixed := "Mixed English words 和中文混排 also wrap correctly 在同一行里。"
	for _, l := range strings.Split(Render(mixed, 12, NoColor()), "\n") {
		if StringWidth(l) > 12 {
			t.Errorf("mixed line over 12 columns: %q", l)
		}
		if strings.Contains(l, "Engli") && !strings.Contains(l, "English") {
			t.Errorf("English word broken: %q", l)
		}
	}
}

// TestTableRowsAlignWithCJK checks that every line of a table with wide
// characters has the same display width, so the borders line up.
func TestTableRowsAlignWithCJK(t *testing.T) {
	src := "| 名称 | 说明 |\n|---|---:|\n| 模型 | 使用的语言模型，例如 gpt-5 或者 claude |\n| a | 会话 |"
	for _, width := range []int{20, 30, 80} {
		for _, style := range []Style{NoColor(), DefaultStyle()} {
			lines := strings.Split(Render(src, width, style), "\n")
			for _, l := range lines {
				if StringWidth(l) != StringWidth(lines[0]) || StringWidth(l) > width {
					t.Errorf("width %d: table lines differ in width or overflow:\n%s", width, strings.Join(lines, "\n"))
					break
				}
			}
		}
	}
}

// TestNarrowWidthsStayInBounds renders a long reply at widths down to one
// column (clamped to the minimum) and checks that nothing runs over.
func TestNarrowWidthsStayInBounds(t *testing.T) {
	src := readReply(t)
	for width := -5; width <= 30; width++ {
		out := Render(src, width, DefaultStyle())
		for i, l := range strings.Split(out, "\n") {
			if w := StringWidth(l); w > max(width, minWidth) && !strings.ContainsAny(l, "│┌└├") {
				t.Fatalf("width %d: line %d is %d columns: %q", width, i, w, l)
			}
		}
	}
}

// TestEveryLineClosesItsSGR checks that a line never leaves a color open,
// so the terminal UI can draw lines one at a time and next to other text.
func TestEveryLineClosesItsSGR(t *testing.T) {
	out := Render(readReply(t), 40, DefaultStyle())
	for i, l := range strings.Split(out, "\n") {
		open := strings.LastIndex(l, "\x1b[")
		if open >= 0 && !strings.HasPrefix(l[open:], "\x1b[0m") {
			t.Errorf("line %d leaves SGR open: %q", i, l)
		}
	}
}
