package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/hermes-go/hermes/internal/llm"
)

// liveText shows a streamed reply as it arrives: text on stdout,
// reasoning and retries on stderr. A nil *liveText shows nothing.
type liveText struct {
	out, errOut io.Writer
	reasoning   bool
	wrote       bool
}

func (l *liveText) show(ev llm.Event) {
	if l == nil {
		return
	}
	switch ev.Kind {
	case llm.EventReasoning:
		if !l.reasoning {
			fmt.Fprint(l.errOut, "[thinking] ")
			l.reasoning = true
		}
		fmt.Fprint(l.errOut, ev.Text)
	case llm.EventText:
		if l.reasoning {
			fmt.Fprintln(l.errOut)
			l.reasoning = false
		}
		fmt.Fprint(l.out, ev.Text)
		l.wrote = true
	case llm.EventRetry:
		l.end()
		r := ev.Retry
		where := r.Provider
		if r.Model != "" {
			where += "/" + r.Model
		}
		fmt.Fprintf(l.errOut, "[retry %d on %s in %s: %v]\n", r.Attempt, where, r.Delay.Round(100_000_000), r.Err)
	}
}

// end finishes the line the stream was writing on.
func (l *liveText) end() {
	if l == nil {
		return
	}
	if l.reasoning {
		fmt.Fprintln(l.errOut)
		l.reasoning = false
	}
	if l.wrote {
		fmt.Fprintln(l.out)
		l.wrote = false
	}
}

// printReply prints a finished reply for a person: reasoning and the
// summary on stderr, text and tool calls on stdout. streamed says the
// text and reasoning were already shown as they arrived (and their lines
// ended by liveText.end).
func printReply(cmd *cobra.Command, r *llm.Response, streamed bool) {
	out, errOut := cmd.OutOrStdout(), cmd.ErrOrStderr()
	if !streamed {
		if r.Message.Reasoning != "" {
			fmt.Fprintf(errOut, "[thinking] %s\n", strings.TrimSpace(r.Message.Reasoning))
		}
		if t := r.Text(); t != "" {
			fmt.Fprintln(out, t)
		}
	}
	for _, c := range r.Message.ToolCalls {
		fmt.Fprintf(out, "tool call %s %s(%s)\n", c.ID, c.Name, c.Arguments)
	}
	u := r.Usage
	fmt.Fprintf(errOut, "[%s · finish %s (%q) · tokens in %d, out %d, cache read %d, cache write %d, reasoning %d]\n",
		r.Model, r.FinishReason, r.RawFinishReason, u.InputTokens, u.OutputTokens, u.CacheReadTokens, u.CacheWriteTokens, u.ReasoningTokens)
}
