package compress

import (
	"context"
	"errors"
	"fmt"
	"net"
	"slices"
	"time"

	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/safety/redact"
)

// CompressOptions tune one compression.
type CompressOptions struct {
	// Force compresses even during the cooldown after a failure
	// ("/compress", a context_overflow error).
	Force bool
	// Focus is what the user asked the summary to concentrate on
	// ("/compress <focus>").
	Focus string
	// PreviousSummary is the summary of an earlier compression, to be
	// updated. Empty uses the summary found in the messages, if any.
	PreviousSummary string
}

// Result is the outcome of a compression.
type Result struct {
	// Messages is the compressed conversation (without the system
	// prompt); on an error it is a copy of the input, unchanged.
	Messages []llm.Message
	// Summary is the summary inserted, without its marker; empty when no
	// turns were summarized.
	Summary string
	// Fallback is set when Summary was built without the summarizer
	// because its output could not be used.
	Fallback bool
	// Before and After are the estimated tokens of the input and of
	// Messages.
	Before, After int
	// Dropped is how many input messages the summary replaced.
	Dropped int
}

// Compress runs the four phases on msgs, which exclude the system prompt,
// and returns the compressed conversation; msgs is not modified. When the
// boundaries leave no middle to summarize, only phase 1 applies and
// Dropped is zero.
//
// When the summary model cannot be reached (see Summarizer) the error
// wraps ErrSummaryUnavailable and the cause, Result.Messages is the input
// unchanged, and the compressor cools down: an unforced Compress fails
// with ErrCoolingDown, and Due reports false, until Options.Cooldown has
// passed.
func (c *Compressor) Compress(ctx context.Context, msgs []llm.Message, opts CompressOptions) (Result, error) {
	start := c.opts.Clock.Now()
	before := c.Estimate(msgs)
	unchanged := Result{Messages: slices.Clone(msgs), Before: before, After: before}
	if !opts.Force {
		if until, cause, ok := c.cooling(); ok {
			return unchanged, fmt.Errorf("%w until %s (last failure: %v)", ErrCoolingDown, until.Format(time.RFC3339), cause)
		}
	}

	previous, compressed := FindSummary(msgs)
	if opts.PreviousSummary != "" {
		previous, compressed = opts.PreviousSummary, true
	}
	b := findBounds(msgs, boundaryRules{
		ProtectFirstN: c.opts.ProtectFirstN,
		MinTail:       c.opts.ProtectLastN,
		Compressed:    compressed,
		TailTokens:    TailBudget(c.Window(), c.opts.Threshold, c.opts.TargetRatio),
		Estimate:      c.opts.Estimate,
	})
	pruned, _ := prune(msgs, b.Prune)
	if b.Tail <= b.Head {
		out := sanitize(pruned)
		return Result{Messages: out, Before: before, After: c.Estimate(out)}, nil
	}

	middle := stripSummaries(pruned[b.Head:b.Tail])
	req := SummaryRequest{
		Turns:           redactTurns(middle),
		PreviousSummary: redact.Secrets(previous),
		Focus:           opts.Focus,
		Language:        detectLanguage(msgs),
		BudgetTokens:    SummaryBudget(c.Estimate(middle), c.Window()),
	}
	summary, err := c.opts.Summarizer.Summarize(ctx, req)
	if err == nil {
		err = checkSummary(summary)
	}
	fallback := false
	if err != nil {
		if unreachable(err) {
			if ctx.Err() != context.Canceled {
				c.coolDown(err)
			}
			c.opts.Logger.Warn("context compression aborted", "error", err, "messages", len(msgs),
				"duration_ms", c.opts.Clock.Now().Sub(start).Milliseconds())
			return unchanged, fmt.Errorf("%w: %w", ErrSummaryUnavailable, err)
		}
		c.opts.Logger.Warn("context summary unusable, using a fallback summary", "error", err)
		summary, fallback = fallbackSummary(req.Turns, req.PreviousSummary, err), true
	}

	head := stripSummaries(pruned[:b.Head])
	tail := stripSummaries(pruned[b.Tail:])
	out := sanitize(assemble(head, tail, summary))
	if verr := Validate(out); verr != nil && Validate(msgs) == nil {
		return unchanged, fmt.Errorf("compress: the compressed conversation breaks the protocol, left unchanged: %w", verr)
	}
	res := Result{
		Messages: out,
		Summary:  summary,
		Fallback: fallback,
		Before:   before,
		After:    c.Estimate(out),
		Dropped:  b.Tail - b.Head,
	}
	c.opts.Logger.Info("context compressed", "before_tokens", res.Before, "after_tokens", res.After,
		"dropped", res.Dropped, "fallback", fallback, "duration_ms", c.opts.Clock.Now().Sub(start).Milliseconds())
	return res, nil
}

// unreachable reports whether a summary call failed because the model
// could not be reached or refused the credentials, as opposed to
// answering badly: compression then aborts instead of losing turns to a
// fallback summary that a later try could do better.
func unreachable(err error) bool {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return true
	}
	switch llm.KindOf(err) {
	case llm.ErrAuth, llm.ErrNetwork, llm.ErrRateLimited, llm.ErrOverloaded, llm.ErrServer, llm.ErrNotFound:
		return true
	case "":
		var ne net.Error
		return errors.As(err, &ne)
	}
	return false
}

// redactTurns returns copies of turns with secrets removed from text,
// reasoning and tool-call arguments, since the summary call may go to
// another provider and the summary outlives the turns.
func redactTurns(turns []llm.Message) []llm.Message {
	out := make([]llm.Message, len(turns))
	for i, m := range turns {
		if len(m.Content) > 0 {
			parts := slices.Clone(m.Content)
			for j := range parts {
				parts[j].Text = redact.Secrets(parts[j].Text)
			}
			m.Content = parts
		}
		if len(m.ToolCalls) > 0 {
			calls := slices.Clone(m.ToolCalls)
			for j := range calls {
				calls[j].Arguments = redact.Secrets(calls[j].Arguments)
			}
			m.ToolCalls = calls
		}
		m.Reasoning = redact.Secrets(m.Reasoning)
		m.ReasoningBlocks = nil
		out[i] = m
	}
	return out
}
