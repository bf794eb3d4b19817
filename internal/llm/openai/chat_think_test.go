package openai

import (
	"strings"
	"testing"
)

// chatSplit feeds chunks through a fresh splitter and returns everything it
// released, flush included.
func chatSplit(chunks []string) (reasoning, text string) {
	var s chatThinkSplitter
	var rb, tb strings.Builder
	for _, c := range chunks {
		r, t := s.feed(c)
		rb.WriteString(r)
		tb.WriteString(t)
	}
	r, t := s.flush()
	rb.WriteString(r)
	tb.WriteString(t)
	return rb.String(), tb.String()
}

func TestChatThinkSplitter(t *testing.T) {
	tests := []struct {
		name            string
		in              string
		reasoning, text string
	}{
		{"plain text", "Hello there", "", "Hello there"},
		{"think then text", "<think>plan</think>answer", "plan", "answer"},
		{"whitespace kept inside", "<think>\nplan\n</think>\n\nanswer", "\nplan\n", "\n\nanswer"},
		{"leading whitespace before the tag", " \r\n\t<think>x</think>y", "x", "y"},
		{"tag later in the text is text", "Answer: <think>x</think>", "", "Answer: <think>x</think>"},
		{"second think after the first is text", "<think>a</think>b<think>c</think>", "a", "b<think>c</think>"},
		{"unclosed thought is reasoning", "<think>cut off mid", "cut off mid", ""},
		{"empty thought", "<think></think>text", "", "text"},
		{"prefix of the tag only", "<thi", "", "<thi"},
		{"whitespace only", "  \n", "", "  \n"},
		{"longer tag name is text", "<thinking>x</thinking>", "", "<thinking>x</thinking>"},
		{"double angle is text", "<<think>x</think>", "", "<<think>x</think>"},
		{"partial close tag inside reasoning", "<think>a</thin b</ c</think>d", "a</thin b</ c", "d"},
		{"close tag with a stray lt before it", "<think>a<</think>b", "a<", "b"},
		{"multibyte text", "<think>日本</think>語", "日本", "語"},
		{"empty", "", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Whole, one byte at a time, and split at every point: the
			// result must not depend on where chunks break.
			r, x := chatSplit([]string{tt.in})
			if r != tt.reasoning || x != tt.text {
				t.Fatalf("whole: reasoning %q text %q, want %q %q", r, x, tt.reasoning, tt.text)
			}
			var bytes []string
			for i := range len(tt.in) {
				bytes = append(bytes, tt.in[i:i+1])
			}
			if r, x := chatSplit(bytes); r != tt.reasoning || x != tt.text {
				t.Errorf("byte by byte: reasoning %q text %q, want %q %q", r, x, tt.reasoning, tt.text)
			}
			for i := 1; i < len(tt.in); i++ {
				for j := i; j < len(tt.in); j++ {
					chunks := []string{tt.in[:i], tt.in[i:j], tt.in[j:]}
					if r, x := chatSplit(chunks); r != tt.reasoning || x != tt.text {
						t.Fatalf("split %q: reasoning %q text %q, want %q %q", chunks, r, x, tt.reasoning, tt.text)
					}
				}
			}
		})
	}
}

// TestChatThinkSplitterStreams checks that reasoning is released while the
// model thinks, not held back until the closing tag.
func TestChatThinkSplitterStreams(t *testing.T) {
	var s chatThinkSplitter
	steps := []struct {
		in, reasoning, text string
	}{
		{"\n<th", "", ""},
		{"ink>Let me", "Let me", ""},
		{" see.<", " see.", ""},
		{"/thi", "", ""},
		{"nk>Four", "", "Four"},
		{" and more", "", " and more"},
	}
	for _, st := range steps {
		r, x := s.feed(st.in)
		if r != st.reasoning || x != st.text {
			t.Fatalf("feed(%q) = %q, %q; want %q, %q", st.in, r, x, st.reasoning, st.text)
		}
	}
	if r, x := s.flush(); r != "" || x != "" {
		t.Errorf("flush = %q, %q; want nothing held", r, x)
	}
}

// A model that streams nothing but whitespace is not held back waiting
// for a <think> that never comes: past a short lead the whitespace is
// reply text, released as it arrives (and counted against the reply's
// budget like any text).
func TestChatThinkSplitterReleasesEndlessWhitespace(t *testing.T) {
	var s chatThinkSplitter
	released := 0
	for range 100_000 {
		_, text := s.feed("  ")
		released += len(text)
	}
	if held := len(s.held); held > chatThinkLead {
		t.Fatalf("the splitter holds %d bytes of whitespace", held)
	}
	if released < 200_000-chatThinkLead {
		t.Errorf("released %d bytes of 200000", released)
	}
}
