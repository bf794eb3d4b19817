package kb

import (
	"fmt"
	"strings"
	"testing"
)

// para is a paragraph of about n tokens (four characters each).
func para(word string, n int) string {
	return strings.TrimSpace(strings.Repeat(word+" ", n*4/(len(word)+1)))
}

// TestChunkMarkdown: chunks follow headings and carry their path, fenced
// code is not cut at a "#" line, line ranges point into the source, and a
// long section is cut at paragraphs with overlap.
func TestChunkMarkdown(t *testing.T) {
	long := strings.Join([]string{para("alpha", 300), para("beta", 300), para("gamma", 300)}, "\n\n")
	type want struct {
		heading    string
		start, end int
		contains   string
	}
	tests := []struct {
		name string
		doc  string
		want []want
	}{
		{"preamble and nested headings",
			"intro text\n\n# Guide\nguide text\n## Install\ninstall text\n### Linux\napt install\n## Use\nuse text\n",
			[]want{{"", 1, 1, "intro"}, {"Guide", 3, 4, "guide text"}, {"Guide > Install", 5, 6, "install text"},
				{"Guide > Install > Linux", 7, 8, "apt"}, {"Guide > Use", 9, 10, "use text"}}},
		{"skipped level and closing hashes",
			"# Top #\n### Deep ###\ndeep text\n",
			[]want{{"Top > Deep", 2, 3, "deep text"}}},
		{"fenced code keeps its # lines",
			"# Script\n```sh\n# not a heading\necho hi\n```\n",
			[]want{{"Script", 1, 5, "# not a heading"}}},
		{"not headings",
			"#hashtag\n    # indented code\ntext\n",
			[]want{{"", 1, 3, "#hashtag"}}},
		{"headings without text are dropped",
			"# A\n\n# B\nb text\n",
			[]want{{"B", 3, 4, "b text"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ChunkMarkdown(tt.doc, ChunkOptions{})
			if len(got) != len(tt.want) {
				t.Fatalf("%d chunks, want %d: %+v", len(got), len(tt.want), got)
			}
			for i, w := range tt.want {
				c := got[i]
				if c.Heading != w.heading || c.LineStart != w.start || c.LineEnd != w.end || !strings.Contains(c.Text, w.contains) {
					t.Errorf("chunk %d = %q lines %d-%d %q, want %q lines %d-%d containing %q", i, c.Heading, c.LineStart, c.LineEnd, c.Text, w.heading, w.start, w.end, w.contains)
				}
			}
		})
	}
	t.Run("long section", func(t *testing.T) {
		got := ChunkMarkdown("# Long\n"+long+"\n", ChunkOptions{Target: 400, Overlap: 50})
		if len(got) < 3 {
			t.Fatalf("%d chunks, want at least 3", len(got))
		}
		for i, c := range got {
			if c.Heading != "Long" {
				t.Errorf("chunk %d heading %q", i, c.Heading)
			}
			if c.Tokens > 450 {
				t.Errorf("chunk %d has %d tokens, target 400", i, c.Tokens)
			}
			if i > 0 && c.LineStart > got[i-1].LineEnd+2 {
				t.Errorf("chunk %d starts at line %d, after a gap from %d", i, c.LineStart, got[i-1].LineEnd)
			}
		}
	})
}

// TestPackOverlap: with lines of text and no paragraph breaks, each chunk
// after the first repeats the last lines of the one before, about the
// overlap's worth, and every line is in some chunk.
func TestPackOverlap(t *testing.T) {
	var lines []string
	for i := range 100 {
		lines = append(lines, fmt.Sprintf("line %03d %s", i, para("word", 10)))
	}
	got := ChunkText(strings.Join(lines, "\n"), ChunkOptions{Target: 100, Overlap: 25})
	covered := map[int]bool{}
	for i, c := range got {
		for l := c.LineStart; l <= c.LineEnd; l++ {
			covered[l] = true
		}
		if i > 0 {
			overlap := got[i-1].LineEnd - c.LineStart + 1
			if overlap < 1 || overlap > 3 {
				t.Errorf("chunk %d overlaps the previous by %d lines", i, overlap)
			}
		}
		if first := strings.SplitN(c.Text, "\n", 2)[0]; first != lines[c.LineStart-1] {
			t.Errorf("chunk %d text starts %q, line %d is %q", i, first, c.LineStart, lines[c.LineStart-1])
		}
	}
	if len(covered) != 100 {
		t.Errorf("%d of 100 lines are in a chunk", len(covered))
	}
	// One line longer than the target is a chunk of its own, not lost.
	if got := ChunkText(para("huge", 1000), ChunkOptions{Target: 100}); len(got) != 1 || got[0].Tokens < 900 {
		t.Errorf("a long line: %+v", got)
	}
}

// TestChunkPages: chunks never span pages and count lines per page.
func TestChunkPages(t *testing.T) {
	got := ChunkPages([]string{"first page\n\nsecond para", "", "third page"}, ChunkOptions{})
	if len(got) != 2 || got[0].Page != 1 || got[0].LineEnd != 3 || got[1].Page != 3 || got[1].LineStart != 1 || got[1].Text != "third page" {
		t.Errorf("chunks %+v", got)
	}
}

// TestChunkCode: code is cut at top-level declarations per language, with
// the comments above a declaration kept with it and the declaration's
// line as the heading.
func TestChunkCode(t *testing.T) {
	big := func(name string) string { return "\tcall(" + para(name, 300) + ")\n" }
	tests := []struct {
		file     string
		src      string
		headings []string
	}{
		{"main.go", "package main\n\n// Serve serves.\nfunc Serve() {\n" + big("serve") + "}\n\ntype T struct{}\n" + big("tee") + "\nfunc (t T) M() {\n" + big("em") + "}\n",
			[]string{"", "func Serve() {", "type T struct{}", "func (t T) M() {"}},
		{"app.py", "import os\n\n" + "class Store:\n" + big("store") + "\n@cached\ndef load():\n" + big("load"),
			[]string{"", "class Store:", "def load():"}},
		{"lib.rs", "use std::io;\n" + big("use") + "#[derive(Debug)]\nstruct S {\n" + big("s") + "}\n",
			[]string{"", "struct S {"}},
		{"x.ts", "export function a() {\n" + big("a") + "}\nexport class B {\n" + big("b") + "}\n",
			[]string{"export function a() {", "export class B {"}},
		{"notes.unknownext", "first\n" + big("x"), []string{""}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			got := ChunkCode(tt.file, tt.src, ChunkOptions{Target: 300})
			var headings []string
			for _, c := range got {
				if len(headings) == 0 || headings[len(headings)-1] != c.Heading {
					headings = append(headings, c.Heading)
				}
			}
			if fmt.Sprint(headings) != fmt.Sprint(tt.headings) {
				t.Errorf("headings %q, want %q", headings, tt.headings)
			}
		})
	}
	// Small declarations share a chunk, and the comment above a
	// declaration starts its chunk; decorators and attributes lead
	// theirs too (the headings above).
	got := ChunkCode("a.go", "package a\n\n// A is a.\nfunc A() {}\n\nfunc B() {}\n", ChunkOptions{})
	if len(got) != 1 || got[0].LineStart != 1 || got[0].LineEnd != 6 {
		t.Errorf("small declarations: %+v", got)
	}
	got = ChunkCode("a.go", "package a\n"+big("pkg")+"// A is a.\nfunc A() {\n"+big("body")+"}\n", ChunkOptions{Target: 400})
	if len(got) != 2 || !strings.HasPrefix(got[1].Text, "// A is a.") || got[1].LineStart != 3 {
		t.Errorf("comment above a declaration: %+v", got)
	}
}
