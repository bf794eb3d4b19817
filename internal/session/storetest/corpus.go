package storetest

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/session"
)

// Corpus generates conversations that look like an agent's history, for
// benchmarks: each session has a topic, most in English and some in
// Chinese (with English terms mixed in, as people write), and turns of a
// user request, tool calls, tool output (listings, logs, JSON, code with
// paths, hashes and numbers that bloat a real index) and an answer.
// It is deterministic for a seed, so figures can be compared across runs.
type Corpus struct {
	rng     *rand.Rand
	topic   topic
	chinese bool
	calls   int
}

// topic is what a session is about, in both languages.
type topic struct {
	en []string
	zh []string
}

// NewCorpus returns a generator seeded with seed.
func NewCorpus(seed uint64) *Corpus {
	return &Corpus{rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))}
}

// NewSession picks the topic and language of the next session and
// returns the session to create.
func (c *Corpus) NewSession() *session.Session {
	c.topic = topics[c.rng.IntN(len(topics))]
	c.chinese = c.rng.IntN(10) < 3
	src := []string{"cli", "cli", "cli", "telegram", "cron", "api"}[c.rng.IntN(6)]
	return &session.Session{Source: src, Model: "qwen3:32b", Title: c.title()}
}

// Turn returns one exchange: a user message, zero to three rounds of tool
// calls with their results, and the assistant's answer.
func (c *Corpus) Turn() []*session.Message {
	msgs := []*session.Message{{Message: llm.UserMessage(c.prose(1, 3))}}
	for range c.rng.IntN(4) {
		n := 1 + c.rng.IntN(2)
		call := &session.Message{Message: llm.AssistantMessage(""), FinishReason: "tool_calls", Tokens: 40}
		if c.rng.IntN(2) == 0 {
			call.Content = []llm.Part{llm.TextPart(c.prose(1, 1))}
		}
		var results []*session.Message
		for range n {
			c.calls++
			id := fmt.Sprintf("call_%06d", c.calls)
			name, args, out := c.toolCall()
			call.ToolCalls = append(call.ToolCalls, llm.ToolCall{ID: id, Name: name, Arguments: args})
			results = append(results, &session.Message{Message: llm.ToolResultMessage(id, name, out)})
		}
		msgs = append(msgs, call)
		msgs = append(msgs, results...)
	}
	answer := &session.Message{Message: llm.AssistantMessage(c.prose(2, 6)), FinishReason: "stop", Tokens: 200}
	if c.rng.IntN(4) == 0 {
		answer.Reasoning = c.prose(1, 2)
	}
	return append(msgs, answer)
}

func (c *Corpus) title() string {
	if c.chinese {
		return c.pick(c.topic.zh) + c.pick(c.topic.zh)
	}
	return c.pick(c.topic.en) + " " + c.pick(c.topic.en)
}

// prose is between lo and hi sentences in the session's language.
func (c *Corpus) prose(lo, hi int) string {
	var b strings.Builder
	for i := range lo + c.rng.IntN(hi-lo+1) {
		if i > 0 && !c.chinese {
			b.WriteByte(' ')
		}
		if c.chinese {
			c.zhSentence(&b)
		} else {
			c.enSentence(&b)
		}
	}
	return b.String()
}

func (c *Corpus) enSentence(b *strings.Builder) {
	n := 6 + c.rng.IntN(14)
	for i := range n {
		w := c.word(enWords)
		if c.rng.IntN(5) == 0 {
			w = c.pick(c.topic.en)
		}
		if i == 0 {
			w = strings.ToUpper(w[:1]) + w[1:]
		} else {
			b.WriteByte(' ')
		}
		b.WriteString(w)
	}
	b.WriteString([]string{".", ".", ".", "?", "!"}[c.rng.IntN(5)])
}

func (c *Corpus) zhSentence(b *strings.Builder) {
	n := 4 + c.rng.IntN(10)
	for i := range n {
		switch r := c.rng.IntN(10); {
		case r < 3:
			b.WriteString(c.pick(c.topic.zh))
		case r < 4:
			b.WriteString(" " + c.pick(c.topic.en) + " ")
		default:
			b.WriteString(c.word(zhWords))
		}
		if i == n/2 {
			b.WriteString("，")
		}
	}
	b.WriteString([]string{"。", "。", "？", "！"}[c.rng.IntN(4)])
}

// word picks from list with a Zipf-like bias towards its first entries,
// as word frequencies in real text are.
func (c *Corpus) word(list []string) string {
	i := int(float64(len(list)) * c.rng.Float64() * c.rng.Float64() * c.rng.Float64())
	return list[min(i, len(list)-1)]
}

func (c *Corpus) pick(list []string) string { return list[c.rng.IntN(len(list))] }

func (c *Corpus) hex(n int) string {
	const digits = "0123456789abcdef"
	b := make([]byte, n)
	for i := range b {
		b[i] = digits[c.rng.IntN(16)]
	}
	return string(b)
}

func (c *Corpus) path() string {
	return fmt.Sprintf("%s/%s/%s_%d.%s", c.pick(dirs), c.pick(dirs), c.word(enWords), c.rng.IntN(100),
		[]string{"go", "py", "ts", "md", "yaml", "sql"}[c.rng.IntN(6)])
}
