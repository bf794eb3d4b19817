package llm

import (
	"sync"
	"unicode/utf8"
)

// Token estimation. hermes does not ship a tokenizer per vendor: a long
// session only needs to know roughly how full the context window is, and the
// provider's own count (Usage.InputTokens) corrects the estimate after every
// call (see Tally). The rule of thumb is the one the vendors publish: about
// four characters per token for English and code, and about one token per
// character for Chinese, Japanese and Korean text.

// ImageTokens is the fixed cost counted for one image part. Vendors charge
// images by resolution (OpenAI: 85 + 170 per 512-pixel tile, about 765 for a
// 1024×1024 image at high detail; Anthropic: width×height/750, about 1,600
// at the 1.15-megapixel limit); hermes does not decode images to measure
// them, so it counts a round figure between the two.
const ImageTokens = 1_000

// Fixed overheads, from OpenAI's published counting recipe: each message
// costs a few tokens of role and separator markup, and every reply is primed
// with a few more. Other vendors' templates are similar in size.
const (
	messageOverhead  = 4
	toolCallOverhead = 3
	toolSpecOverhead = 8
	replyPriming     = 3
)

// EstimateText estimates the tokens of s: one per CJK character (Han, kana,
// Hangul and CJK or full-width punctuation) plus one per four other
// characters, counted in runes and rounded up.
func EstimateText(s string) int {
	var other, cjk int
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			other++
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		if isCJK(r) {
			cjk++
		} else {
			other++
		}
	}
	return cjk + (other+3)/4
}

// estimateBytes is EstimateText for JSON held as bytes, without copying it
// into a string.
func estimateBytes(b []byte) int {
	var other, cjk int
	for i := 0; i < len(b); {
		if b[i] < utf8.RuneSelf {
			other++
			i++
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		i += size
		if isCJK(r) {
			cjk++
		} else {
			other++
		}
	}
	return cjk + (other+3)/4
}

// isCJK reports whether r is written one token per character by the common
// tokenizers: Han ideographs, kana, Hangul, Bopomofo and the CJK and
// full-width punctuation blocks.
func isCJK(r rune) bool {
	switch {
	case r < 0x1100:
		return false
	case r <= 0x11FF: // Hangul Jamo
		return true
	case r >= 0x2E80 && r <= 0x2FDF: // CJK radicals, Kangxi radicals
		return true
	case r >= 0x3000 && r <= 0x4DBF: // CJK punctuation, kana, Bopomofo, Hangul compatibility, extension A
		return true
	case r >= 0x4E00 && r <= 0x9FFF: // CJK unified ideographs
		return true
	case r >= 0xA960 && r <= 0xA97F: // Hangul Jamo extended A
		return true
	case r >= 0xAC00 && r <= 0xD7FF: // Hangul syllables, Jamo extended B
		return true
	case r >= 0xF900 && r <= 0xFAFF: // CJK compatibility ideographs
		return true
	case r >= 0xFE30 && r <= 0xFE4F: // CJK compatibility forms
		return true
	case r >= 0xFF00 && r <= 0xFFEF: // half-width and full-width forms
		return true
	case r >= 0x20000 && r <= 0x3FFFF: // ideograph extensions B and later
		return true
	}
	return false
}

// EstimateMessage estimates the tokens m costs in a request: its text parts,
// ImageTokens per image, each tool call's id, name and JSON arguments, a
// tool result's call id and name, the reasoning blocks that are sent back
// (their text and opaque data), and a fixed overhead per message.
// Message.Reasoning is not counted: adapters do not send the visible
// reasoning back.
func EstimateMessage(m Message) int {
	n := messageOverhead
	for _, p := range m.Content {
		switch p.Type {
		case PartImage:
			n += ImageTokens
		default:
			n += EstimateText(p.Text)
		}
	}
	for _, c := range m.ToolCalls {
		n += toolCallOverhead + EstimateText(c.ID) + EstimateText(c.Name) + EstimateText(c.Arguments)
	}
	if m.ToolCallID != "" {
		n += EstimateText(m.ToolCallID)
	}
	if m.Name != "" {
		n += EstimateText(m.Name)
	}
	for _, b := range m.ReasoningBlocks {
		n += EstimateText(b.Text) + EstimateText(b.Data)
	}
	return n
}

// EstimateTool estimates the tokens one tool definition costs: its name,
// description and JSON Schema, plus a fixed overhead.
func EstimateTool(t ToolSpec) int {
	return toolSpecOverhead + EstimateText(t.Name) + EstimateText(t.Description) + estimateBytes(t.Parameters)
}

// EstimateRequest estimates the input tokens of a whole request: the system
// prompt, every message, every tool definition and the reply priming.
func EstimateRequest(system string, msgs []Message, tools []ToolSpec) int {
	n := replyPriming
	if system != "" {
		n += messageOverhead + EstimateText(system)
	}
	for i := range msgs {
		n += EstimateMessage(msgs[i])
	}
	for i := range tools {
		n += EstimateTool(tools[i])
	}
	return n
}

// Tally applies the rule that the provider's last reported usage is the
// truth and only what was added since is estimated. The estimate drifts by
// a few percent either way (more for code and non-English text), while the
// provider's count is exact, so a long conversation measured this way stays
// accurate however long it grows.
//
// Messages are counted in the conversation as Estimate receives it: the
// msgs slice without the system prompt, which Estimate takes apart. After a
// call that sent the first n messages, Observe(usage, n) records it; the
// model's reply, appended as message n, is counted by the reported output
// tokens (an overcount when hidden reasoning is not sent back, which errs on
// the safe side), and messages n+1 onward are estimated. When message n is
// not a reply (the call failed before answering), it is estimated too.
//
// A compression replaces messages, so the reported count no longer describes
// any prefix of the conversation: call Reset after it, and Estimate falls
// back to a full estimate until the next call reports usage. Reset is also
// needed when the system prompt or the tool set changes. As a safety net,
// Estimate makes a full estimate by itself when the conversation became
// shorter than the observed prefix.
//
// The zero Tally is ready to use and it is safe for concurrent use.
type Tally struct {
	mu      sync.Mutex
	known   bool
	input   int
	output  int
	covered int
}

// Observe records the usage of a call that sent the first messagesSent
// messages of the conversation. A call that reported no usage changes
// nothing, so the previous observation keeps standing.
func (t *Tally) Observe(u Usage, messagesSent int) {
	if u.IsZero() || messagesSent < 0 {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.known, t.input, t.output, t.covered = true, u.InputTokens, u.OutputTokens, messagesSent
}

// Reset forgets the last observation, after messages were replaced.
func (t *Tally) Reset() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.known, t.input, t.output, t.covered = false, 0, 0, 0
}

// Estimate returns the tokens the next request would carry: the last
// reported input and output tokens plus an estimate of the messages added
// after the reply, or a full EstimateRequest when nothing was reported yet.
func (t *Tally) Estimate(system string, msgs []Message, tools []ToolSpec) int {
	t.mu.Lock()
	known, input, output, covered := t.known, t.input, t.output, t.covered
	t.mu.Unlock()
	if !known || covered > len(msgs) {
		return EstimateRequest(system, msgs, tools)
	}
	n := input + output
	rest := msgs[covered:]
	if len(rest) > 0 && rest[0].Role == RoleAssistant {
		rest = rest[1:] // the reply, counted by the output tokens
	}
	for i := range rest {
		n += EstimateMessage(rest[i])
	}
	return n
}
