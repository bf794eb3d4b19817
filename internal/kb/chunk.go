package kb

import (
	"strings"

	"github.com/hermes-go/hermes/internal/llm"
)

// Chunk is one passage of a source, with what a citation needs.
type Chunk struct {
	// Heading is the heading path the passage sits under, outermost
	// first, joined by " > " ("Install > Linux"); for code, the
	// declaration that starts it; empty when there is none.
	Heading string
	// Page is the passage's PDF page, from 1; 0 for other sources.
	Page int
	// LineStart and LineEnd are the passage's first and last lines, from
	// 1, in the source (in the page for a PDF, in the converted Markdown
	// for HTML).
	LineStart, LineEnd int
	// Text is the passage.
	Text string
	// Tokens is llm.EstimateText of Text.
	Tokens int
}

// ChunkOptions size the chunks. The zero value means the defaults.
type ChunkOptions struct {
	// Target is the tokens a chunk aims at (500): large enough to hold
	// an answer with its context, small enough that ten fit a prompt.
	Target int
	// Overlap is the tokens of a section's previous chunk repeated at the
	// start of the next (50), so a sentence cut at a boundary is whole in
	// one of them.
	Overlap int
}

func (o ChunkOptions) withDefaults() ChunkOptions {
	if o.Target <= 0 {
		o.Target = 500
	}
	if o.Overlap < 0 || o.Overlap >= o.Target {
		o.Overlap = 0
	} else if o.Overlap == 0 {
		o.Overlap = 50
	}
	return o
}

// section is a run of lines that share a heading and a page: the unit a
// chunker cuts into chunks, never across.
type section struct {
	heading string
	page    int
	first   int // line number of lines[0], from 1
	lines   []string
}

// pack cuts a section into chunks of about o.Target tokens, at blank
// lines where it can and at line ends where a paragraph alone is too
// long, each after the first starting with about o.Overlap tokens of the
// lines before it. A line longer than the target is a chunk of its own.
func pack(s section, o ChunkOptions) []Chunk {
	var out []Chunk
	tokens := make([]int, len(s.lines))
	for i, l := range s.lines {
		tokens[i] = llm.EstimateText(l) + 1
	}
	// start is the chunk's first line, fresh the first line no chunk
	// holds yet: every chunk takes at least that one, so none lies
	// wholly inside the overlap of the one before.
	start, fresh := 0, 0
	for start < len(s.lines) {
		// Skip blank lines at the start of a chunk.
		for start < len(s.lines) && strings.TrimSpace(s.lines[start]) == "" {
			start++
		}
		if start == len(s.lines) {
			break
		}
		fresh = max(fresh, start)
		end, sum, lastBlank := start, 0, -1
		for end < len(s.lines) && (end <= fresh || sum+tokens[end] <= o.Target) {
			if strings.TrimSpace(s.lines[end]) == "" {
				lastBlank = end
			}
			sum += tokens[end]
			end++
		}
		if end < len(s.lines) && lastBlank > fresh {
			end = lastBlank // cut at the last paragraph break that fits
		}
		out = append(out, makeChunk(s, start, end))
		if end == len(s.lines) {
			break
		}
		// The next chunk starts o.Overlap tokens back, but always after
		// this one's start, so every step makes progress.
		fresh = end
		next, back := end, 0
		for next-1 > start && back+tokens[next-1] <= o.Overlap {
			next--
			back += tokens[next]
		}
		start = next
	}
	return out
}

// makeChunk is lines [i, j) of s, trailing blank lines dropped.
func makeChunk(s section, i, j int) Chunk {
	for j > i+1 && strings.TrimSpace(s.lines[j-1]) == "" {
		j--
	}
	text := strings.Join(s.lines[i:j], "\n")
	return Chunk{
		Heading:   s.heading,
		Page:      s.page,
		LineStart: s.first + i,
		LineEnd:   s.first + j - 1,
		Text:      text,
		Tokens:    llm.EstimateText(text),
	}
}

// packAll packs every section with text in order.
func packAll(secs []section, o ChunkOptions) []Chunk {
	o = o.withDefaults()
	var out []Chunk
	for _, s := range secs {
		out = append(out, pack(s, o)...)
	}
	return out
}

// splitLines splits text into lines without their "\n" or "\r\n".
func splitLines(text string) []string {
	lines := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	if n := len(lines); n > 0 && lines[n-1] == "" {
		lines = lines[:n-1]
	}
	return lines
}
