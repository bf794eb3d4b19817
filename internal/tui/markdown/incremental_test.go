package markdown

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestIncrementalEqualsWhole streams every testdata reply into one Renderer
// a byte at a time and checks each render against a fresh render of the
// same prefix: reusing the closed blocks must never change the output.
func TestIncrementalEqualsWhole(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.md")
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		src := string(b)
		for _, width := range []int{40} {
			rr := New(DefaultStyle())
			for n := 0; n <= len(src); n++ {
				got := rr.Render(src[:n], width)
				if want := Render(src[:n], width, DefaultStyle()); got != want {
					t.Fatalf("%s width %d prefix %d (…%q): streamed render\n%s\ndiffers from the whole\n%s",
						f, width, n, src[max(0, n-40):n], got, want)
				}
			}
		}
	}
}

// TestIncrementalAfterEditOrResize checks that a Renderer given a source
// that does not extend the last one, or a new width, renders it whole.
func TestIncrementalAfterEditOrResize(t *testing.T) {
	rr := New(NoColor())
	first := "# One\n\npara one\n\npara two\n\npara"
	rr.Render(first, 80)
	for _, c := range []struct {
		src   string
		width int
	}{
		{"# Uno\n\npara one\n\npara two\n\npara three", 80},
		{"# Uno\n\npara one\n\npara two\n\npara three", 20},
		{"# Uno\n\npara one\n\n[x]\n\n[x]: https://x.example", 20},
		{"short", 20},
	} {
		if got, want := rr.Render(c.src, c.width), Render(c.src, c.width, NoColor()); got != want {
			t.Errorf("%q at %d: got\n%s\nwant\n%s", c.src, c.width, got, want)
		}
	}
}

// FuzzIncremental streams any input in steps of any size and compares each
// render with a fresh one.
func FuzzIncremental(f *testing.F) {
	for _, name := range []string{"reply", "code", "lists", "basics", "tables"} {
		b, err := os.ReadFile("testdata/" + name + ".md")
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(b), uint8(7))
	}
	f.Add("```\nx\n\n```\nz\n\nw", uint8(1))
	f.Add("<pre>\nx\n\n</pre>\n\nz", uint8(1))
	f.Fuzz(func(t *testing.T, src string, step uint8) {
		rr := New(NoColor())
		for n := 0; n <= len(src); n += int(step%16) + 1 {
			if got, want := rr.Render(src[:n], 30), Render(src[:n], 30, NoColor()); got != want {
				t.Fatalf("prefix %d of %q: streamed\n%s\nwhole\n%s", n, src, got, want)
			}
		}
	})
}

// blockPieces are lines that open, continue and close every kind of block,
// including those whose end is not a blank line (fences, raw HTML, setext
// underlines, lazy continuations).
var blockPieces = []string{
	"para text\n", "\n", "\n", "- item\n", "  continued\n", "1. one\n", "> quote\n",
	"```\n", "```go\n", "code line\n", "    indented\n", "---\n", "===\n", "# h\n",
	"| a | b |\n", "|---|---|\n", "<div>\n", "</div>\n", "<pre>\n", "</pre>\n",
	"<!--\n", "-->\n", "* * *\n", "~~~\n", "- [ ] task\n", "text *em\n", "more* text\n",
	"\t tabbed\n", "[x]: /url\n", "[x]\n", "  - nested\n", "lazy\n", ">\n",
}

// TestIncrementalOnMixedBlocks streams many documents made of random runs
// of blockPieces (from a fixed seed) and compares every prefix's render
// with a fresh one.
func TestIncrementalOnMixedBlocks(t *testing.T) {
	rnd := rand.New(rand.NewPCG(21, 1))
	for doc := range 400 {
		var b strings.Builder
		for range 6 + rnd.IntN(14) {
			b.WriteString(blockPieces[rnd.IntN(len(blockPieces))])
		}
		src := b.String()
		rr := New(NoColor())
		for n := 0; n <= len(src); n++ {
			if got, want := rr.Render(src[:n], 30), Render(src[:n], 30, NoColor()); got != want {
				t.Fatalf("doc %d prefix %d of %q: streamed\n%s\nwhole\n%s", doc, n, src, got, want)
			}
		}
	}
}
