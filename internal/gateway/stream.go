package gateway

import (
	"context"
	"strings"
	"sync"

	"github.com/hermes-go/hermes/internal/agent"
)

// replyStream is the sink of a turn in a chat: it shows the reply as the
// model writes it. Where the platform can edit, the reply is one message
// edited as text arrives (the outbox paces and coalesces the edits, so a
// fast model costs no more sends than a slow one); past the platform's
// limit it goes on in a new message. Where it cannot edit, the text is
// sent when a step of the turn ends. Text written before a tool runs is
// sent before the tool's result can change it, so what the chat shows
// is in the order it happened. Where the platform wants final answers
// only (Caps.FinalOnly), the text of a step that ends in a tool call is
// dropped and only the text the turn ends with is sent.
type replyStream struct {
	ctx     context.Context
	canEdit bool
	// finalOnly sends only the turn's last text (Caps.FinalOnly).
	finalOnly bool
	// split cuts text into messages that fit the platform.
	split func(string) []string
	send  func(ctx context.Context, m Outgoing) (MessageRef, error)
	edit  func(ctx context.Context, ref MessageRef, m Outgoing) error
	// failed is told about a send or edit that failed for good.
	failed func(error)
	// replyTo is the message the reply's first message answers (in
	// groups, where several conversations interleave), "" for none.
	replyTo string
	// drafts, where the chat shows drafts, shows each step as it is
	// written; the step is sent when it ends, as where nothing can be
	// edited.
	drafts *drafts

	mu sync.Mutex
	// text is the reply since the last message that was finished.
	text strings.Builder
	// open is the message being edited, with the text it shows; nil
	// when none is.
	open  *MessageRef
	shown string
	// broken is set when a send failed (the outbox has already retried
	// and kept the text): the rest of this step is sent when it ends
	// instead of at every delta.
	broken bool
}

// Event takes one event of the turn.
func (s *replyStream) Event(e agent.Event) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch e.Kind {
	case agent.EventText:
		s.text.WriteString(e.Text)
		if s.drafts != nil {
			if parts := s.split(s.text.String()); len(parts) > 0 {
				s.drafts.offer(parts[len(parts)-1])
			}
		}
		if s.canEdit && !s.broken && !s.finalOnly {
			s.show(false)
		}
	case agent.EventToolStarted:
		if s.drafts != nil {
			s.drafts.stop()
		}
		if s.finalOnly {
			// Text before a tool call is a step on the way, not the
			// answer.
			s.reset()
			return
		}
		s.show(true)
	case agent.EventDone:
		if s.drafts != nil {
			s.drafts.stop()
		}
		s.show(true)
	}
}

// show brings the chat up to date with the text. With final set the text
// so far is finished: the next text starts a new message.
func (s *replyStream) show(final bool) {
	text := s.text.String()
	if strings.TrimSpace(text) == "" {
		if final {
			s.reset()
		}
		return
	}
	parts := s.split(text)
	for i, part := range parts {
		last := i == len(parts)-1
		if !last || final {
			s.put(part)
			s.open, s.shown = nil, ""
			continue
		}
		s.put(part)
	}
	// Everything but the last part is finished for good; keep only the
	// text of the message still open.
	if final {
		s.reset()
		return
	}
	s.text.Reset()
	s.text.WriteString(parts[len(parts)-1])
}

// put shows part in the open message, or in a new one.
func (s *replyStream) put(part string) {
	if s.open != nil {
		if part == s.shown {
			return
		}
		if err := s.edit(s.ctx, *s.open, Outgoing{Text: part}); err != nil && s.failed != nil {
			s.failed(err)
		}
		s.shown = part
		return
	}
	ref, err := s.send(s.ctx, Outgoing{Text: part, ReplyTo: s.replyTo})
	s.replyTo = ""
	if err != nil {
		s.broken = true
		if s.failed != nil {
			s.failed(err)
		}
		return
	}
	if s.canEdit {
		s.open, s.shown = &ref, part
	}
}

func (s *replyStream) reset() {
	s.text.Reset()
	s.open, s.shown, s.broken = nil, "", false
}
