package facts

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/safety/redact"
)

// Extraction limits.
const (
	// maxTranscript is the most transcript text sent, in characters; a
	// longer conversation keeps its end, where decisions tend to land.
	maxTranscript = 24_000
	// maxFacts is the most facts one conversation yields.
	maxFacts = 8
	// minConfidence is the least confidence a fact is kept with.
	minConfidence = 0.7
	// maxToolArgs is how much of a tool call's arguments its summary
	// line shows.
	maxToolArgs = 120
	// maxExtractTokens caps the model's reply: eight one-sentence facts
	// fit many times over.
	maxExtractTokens = 2000
)

// extractInstructions is the system prompt of the extraction call. It
// asks for little, on purpose: a fact recalled wrongly costs more than a
// fact never kept.
const extractInstructions = `You read a finished conversation between a user and hermes, an AI agent, and pick out what is worth remembering in later conversations.

Keep only facts that the user stated explicitly or that the conversation clearly demonstrated:
- "preference": how the user wants things done (language, tone, formats, tools, style).
- "pattern": a task the user does repeatedly and how they want it done.
- "decision": a decision the user made that later work must respect.
- "fact": a stable fact about the user or their environment (projects, systems, versions, paths, people's roles).

Do not keep:
- small talk, greetings, thanks, opinions in passing;
- the transient state of the current task (what was just run, what failed, what is left to do);
- anything you had to guess;
- secrets of any kind: passwords, API keys, tokens, private keys, connection strings with credentials.

Reply with ONLY a JSON array, no other text, of at most 8 objects:
[{"kind": "preference|pattern|decision|fact", "subject": "a few words naming the topic", "content": "the fact as one sentence", "confidence": 0.0-1.0}]
Name the subject in the plainest words for the topic (such as "weekly report day" or "answer language"): a later fact with the same subject replaces an earlier one, so a changed preference keeps its subject. Write subject and content in the language the user writes in. Refer to the user as "the user" (or the equivalent in their language). Confidence is how sure you are that the fact is true and will still matter in later conversations.
If there is nothing worth keeping, reply with [].`

// Extract asks the model to distil the facts worth keeping from a
// finished conversation. The transcript sent is the user's and hermes's
// text with each tool call summarized on one line, secrets
// redacted, cut to its last 24,000 characters. The reply is parsed
// tolerantly (code fences, text around the array); facts below 0.7
// confidence, with an unknown kind or no content, or holding anything
// that looks like a secret are dropped, and each kept fact gets
// sessionID as its source. A conversation with nothing to keep yields
// no facts and no error.
func Extract(ctx context.Context, p llm.Provider, model string, sessionID string, transcript []llm.Message) ([]Fact, error) {
	text := compactTranscript(transcript)
	if strings.TrimSpace(text) == "" {
		return nil, nil
	}
	temp := 0.0
	req := &llm.Request{
		Model: model,
		Messages: []llm.Message{
			llm.SystemMessage(extractInstructions),
			llm.UserMessage("<transcript>\n" + text + "\n</transcript>"),
		},
		MaxTokens:   maxExtractTokens,
		Temperature: &temp,
		NoStream:    true,
	}
	resp, err := llm.Generate(ctx, p, req)
	if err != nil {
		return nil, fmt.Errorf("facts: extract from %s: %w", sessionID, err)
	}
	items, err := parseReply(resp.Text())
	if err != nil {
		return nil, fmt.Errorf("facts: extract from %s: %w", sessionID, err)
	}
	return keep(items, sessionID), nil
}

// keep turns the model's items into facts, dropping what Extract
// promises to drop.
func keep(items []item, sessionID string) []Fact {
	var out []Fact
	for i, it := range items {
		if len(out) == maxFacts {
			break
		}
		if it.Confidence < minConfidence {
			continue
		}
		f, err := validate(i, Fact{Kind: Kind(it.Kind), Subject: it.Subject, Content: it.Content,
			SourceSession: sessionID, Confidence: float64(it.Confidence)})
		if err != nil {
			continue
		}
		if redact.Secrets(f.Content) != f.Content || redact.Secrets(f.Subject) != f.Subject ||
			strings.Contains(f.Content, "[REDACTED") {
			continue
		}
		out = append(out, f)
	}
	return out
}

// compactTranscript renders the conversation for extraction: one
// "user:" or "hermes:" paragraph per message with text, one
// "hermes called name(args)" line per tool call, nothing of system
// prompts or tool output (the facts worth keeping are in what the user
// said and what was done, not in the output's bulk). Secrets are
// redacted, and when the result is over maxTranscript characters its
// beginning is dropped.
func compactTranscript(msgs []llm.Message) string {
	var parts []string
	for _, m := range msgs {
		var who string
		switch m.Role {
		case llm.RoleUser:
			who = "user"
		case llm.RoleAssistant:
			who = "hermes"
		default:
			continue
		}
		if t := strings.TrimSpace(m.Text()); t != "" {
			parts = append(parts, who+": "+t)
		}
		for _, c := range m.ToolCalls {
			args := oneLine(c.Arguments)
			if utf8.RuneCountInString(args) > maxToolArgs {
				args = string([]rune(args)[:maxToolArgs]) + "…"
			}
			parts = append(parts, "hermes called "+c.Name+"("+args+")")
		}
	}
	text := redact.Secrets(strings.Join(parts, "\n\n"))
	if n := utf8.RuneCountInString(text); n > maxTranscript {
		rs := []rune(text)
		text = "[earlier part of the conversation omitted]\n…" + string(rs[n-maxTranscript:])
	}
	return text
}
