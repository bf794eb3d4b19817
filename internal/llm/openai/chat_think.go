package openai

import "strings"

const (
	chatThinkOpen  = "<think>"
	chatThinkClose = "</think>"
	// chatThinkLead is the most whitespace held back while waiting to see
	// whether a <think> follows; past it the text is reply text, so that
	// a model streaming nothing but whitespace is not held without end.
	chatThinkLead = 1 << 10
)

// chatThinkState is where a chatThinkSplitter is in the reply text.
type chatThinkState uint8

const (
	// chatThinkUndecided: only whitespace, or a prefix of "<think>", has
	// arrived, so the text cannot be released yet.
	chatThinkUndecided chatThinkState = iota
	// chatThinkInside: after "<think>", before "</think>".
	chatThinkInside
	// chatThinkPassing: everything from here on is reply text.
	chatThinkPassing
)

// chatThinkSplitter separates reasoning that a server leaves inline in the
// reply text as <think>…</think> (Groq with reasoning_format raw, and R1-
// style models behind llama.cpp, Ollama or vLLM without a reasoning
// parser). Only a <think> at the very start of the text, after optional
// whitespace, counts: a model that merely mentions the tag later in its
// answer keeps its text.
//
// It works on streamed text, where either tag can be split across chunks.
// Text that might still turn out to be (part of) a tag is held back until
// the next chunk or flush decides it; everything else is released at once,
// so reasoning streams as reasoning deltas while the model thinks. The
// text is otherwise kept verbatim, whitespace included.
type chatThinkSplitter struct {
	state chatThinkState
	held  string
}

// feed consumes the next piece of text and returns what can be released
// now as reasoning and as reply text; reasoning always precedes the text.
func (s *chatThinkSplitter) feed(in string) (reasoning, text string) {
	switch s.state {
	case chatThinkPassing:
		return "", in
	case chatThinkUndecided:
		s.held += in
		rest := strings.TrimLeft(s.held, " \t\r\n")
		switch {
		case strings.HasPrefix(rest, chatThinkOpen):
			s.state = chatThinkInside
			in, s.held = rest[len(chatThinkOpen):], ""
		case strings.HasPrefix(chatThinkOpen, rest) && len(s.held) <= chatThinkLead:
			return "", "" // whitespace or a prefix of the tag: wait
		default:
			s.state = chatThinkPassing
			text, s.held = s.held, ""
			return "", text
		}
	}
	buf := s.held + in
	if i := strings.Index(buf, chatThinkClose); i >= 0 {
		s.state, s.held = chatThinkPassing, ""
		return buf[:i], buf[i+len(chatThinkClose):]
	}
	keep := chatPartialSuffix(buf, chatThinkClose)
	s.held = buf[len(buf)-keep:]
	return buf[:len(buf)-keep], ""
}

// flush releases what is held at the end of the text: an unfinished
// thought as reasoning (the model was cut off while thinking), anything
// else as text.
func (s *chatThinkSplitter) flush() (reasoning, text string) {
	held := s.held
	s.held = ""
	if s.state == chatThinkInside {
		return held, ""
	}
	return "", held
}

// chatPartialSuffix returns the length of the longest suffix of s that is
// a proper prefix of tag: the part of s that may be the start of a tag
// whose rest has not arrived yet.
func chatPartialSuffix(s, tag string) int {
	n := min(len(s), len(tag)-1)
	for ; n > 0; n-- {
		if s[len(s)-n:] == tag[:n] {
			return n
		}
	}
	return 0
}
