package compress

import (
	"fmt"
	"slices"
	"strings"

	"github.com/hermes-go/hermes/internal/llm"
)

// SummaryMarker opens every summary message, so the model reads it as
// background and hermes can find it at the next compression.
const SummaryMarker = "[Context summary — earlier turns were compressed. This is background for reference, not new instructions.]"

// fallbackFlag opens a fallback summary and says why the summarizer's
// output was not used.
const fallbackFlag = "[fallback summary — the summarizer failed: %s]"

// summaryText is the text of the summary message: the marker, then the
// summary.
func summaryText(summary string) string {
	return SummaryMarker + "\n\n" + strings.TrimSpace(summary)
}

// isSummaryPart reports whether p is a summary written by this package.
func isSummaryPart(p llm.Part) bool {
	return p.Type == llm.PartText && strings.HasPrefix(p.Text, SummaryMarker)
}

// FindSummary returns the text of the last summary in msgs, without its
// marker, and whether there is one. A conversation that holds a summary
// has been compressed before.
func FindSummary(msgs []llm.Message) (string, bool) {
	for i := len(msgs) - 1; i >= 0; i-- {
		for _, p := range msgs[i].Content {
			if isSummaryPart(p) {
				return strings.TrimSpace(strings.TrimPrefix(p.Text, SummaryMarker)), true
			}
		}
	}
	return "", false
}

// stripSummaries returns msgs without summary parts; a message that held
// nothing else is removed.
func stripSummaries(msgs []llm.Message) []llm.Message {
	out := make([]llm.Message, 0, len(msgs))
	for _, m := range msgs {
		if !slices.ContainsFunc(m.Content, isSummaryPart) {
			out = append(out, m)
			continue
		}
		m.Content = slices.DeleteFunc(slices.Clone(m.Content), isSummaryPart)
		if len(m.Content) == 0 && len(m.ToolCalls) == 0 && m.Role != llm.RoleTool {
			continue
		}
		out = append(out, m)
	}
	return out
}

// Limits of the fallback summary.
const (
	fallbackAsks    = 15
	fallbackResults = 8
)

// fallbackSummary builds a summary without a model from the turns being
// dropped: the user's requests, the tools used with counts and the last
// results, one line each, after the previous summary if there was one. It
// is flagged with why the summarizer failed.
func fallbackSummary(turns []llm.Message, previous string, cause error) string {
	var b strings.Builder
	fmt.Fprintf(&b, fallbackFlag+"\n\n", oneLine(cause.Error(), 200))
	calls := callIndex(turns)

	var asks []string
	for _, m := range turns {
		if m.Role == llm.RoleUser {
			if t := oneLine(m.Text(), 300); t != "" {
				asks = append(asks, t)
			}
		}
	}
	b.WriteString("## Goal\nThe user's requests in the compressed turns, oldest first:\n")
	if len(asks) == 0 {
		b.WriteString("- (none in these turns)\n")
	}
	if len(asks) > fallbackAsks {
		fmt.Fprintf(&b, "- (%d earlier requests omitted)\n", len(asks)-fallbackAsks)
		asks = asks[len(asks)-fallbackAsks:]
	}
	for _, a := range asks {
		b.WriteString("- " + a + "\n")
	}

	counts := map[string]int{}
	for _, m := range turns {
		for _, c := range m.ToolCalls {
			counts[c.Name]++
		}
	}
	names := make([]string, 0, len(counts))
	for n := range counts {
		names = append(names, n)
	}
	slices.SortFunc(names, func(a, b string) int {
		if counts[a] != counts[b] {
			return counts[b] - counts[a]
		}
		return strings.Compare(a, b)
	})
	b.WriteString("\n## Progress\n### Done\nTools used:\n")
	if len(names) == 0 {
		b.WriteString("- (none)\n")
	}
	for _, n := range names {
		fmt.Fprintf(&b, "- %s ×%d\n", n, counts[n])
	}

	var results []string
	for _, m := range turns {
		if m.Role != llm.RoleTool {
			continue
		}
		text := m.Text()
		if len(text) > MinPrunedResultChars {
			c := calls[m.ToolCallID]
			text = describeResult(firstNonEmpty(m.Name, c.Name, "tool"), c.Arguments, text)
		}
		results = append(results, oneLine(text, 200))
	}
	if len(results) > fallbackResults {
		results = results[len(results)-fallbackResults:]
	}
	b.WriteString("\nLast results:\n")
	if len(results) == 0 {
		b.WriteString("- (none)\n")
	}
	for _, r := range results {
		b.WriteString("- " + r + "\n")
	}
	if previous != "" {
		b.WriteString("\n## Earlier Summary\n")
		b.WriteString(strings.TrimSpace(previous))
		b.WriteByte('\n')
	}
	return strings.TrimSpace(b.String())
}
