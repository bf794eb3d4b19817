package gateway

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/agent"
)

// chatLog is a chat as the stream leaves it: messages by id.
type chatLog struct {
	msgs   []string
	sends  int
	edits  int
	failAt int // the send that fails, from 1; 0 for none
}

func (c *chatLog) stream(canEdit bool, max int) *replyStream {
	return &replyStream{ctx: context.Background(), canEdit: canEdit,
		split: func(s string) []string {
			var out []string
			r := []rune(s)
			for len(r) > max {
				out, r = append(out, string(r[:max])), r[max:]
			}
			return append(out, string(r))
		},
		send: func(_ context.Context, m Outgoing) (MessageRef, error) {
			c.sends++
			if c.sends == c.failAt {
				return MessageRef{}, errors.New("flood")
			}
			c.msgs = append(c.msgs, m.Text)
			return MessageRef{ID: fmt.Sprint(len(c.msgs) - 1)}, nil
		},
		edit: func(_ context.Context, ref MessageRef, m Outgoing) error {
			c.edits++
			var i int
			fmt.Sscan(ref.ID, &i)
			c.msgs[i] = m.Text
			return nil
		},
	}
}

func feed(s *replyStream, events ...agent.Event) {
	for _, e := range events {
		s.Event(e)
	}
}

func text(s string) agent.Event { return agent.Event{Kind: agent.EventText, Text: s} }

var (
	toolStart = agent.Event{Kind: agent.EventToolStarted}
	done      = agent.Event{Kind: agent.EventDone}
)

func TestStreamEditsOneMessage(t *testing.T) {
	c := &chatLog{}
	s := c.stream(true, 100)
	feed(s, text("Hel"), text("lo"), text(" world"), done)
	if len(c.msgs) != 1 || c.msgs[0] != "Hello world" || c.sends != 1 || c.edits != 2 {
		t.Errorf("chat %q after %d sends and %d edits, want one message edited to Hello world", c.msgs, c.sends, c.edits)
	}
}

// Text before a tool runs is its own message; the text after it starts
// another, so the chat shows things in the order they happened.
func TestStreamToolsSplitMessages(t *testing.T) {
	c := &chatLog{}
	s := c.stream(true, 100)
	feed(s, text("Looking."), toolStart, toolStart, text("Found it."), done)
	if strings.Join(c.msgs, "|") != "Looking.|Found it." {
		t.Errorf("chat %q", c.msgs)
	}
}

// A reply past the platform's limit goes on in new messages, each within
// it.
func TestStreamPastTheLimit(t *testing.T) {
	c := &chatLog{}
	s := c.stream(true, 5)
	for _, r := range "abcdefghijklm" {
		s.Event(text(string(r)))
	}
	s.Event(done)
	if strings.Join(c.msgs, "|") != "abcde|fghij|klm" {
		t.Errorf("chat %q", c.msgs)
	}
}

// Without edits, text is sent when a step ends.
func TestStreamWithoutEdits(t *testing.T) {
	c := &chatLog{}
	s := c.stream(false, 5)
	feed(s, text("Hello "), text("there"), toolStart, text("ok"), done)
	if strings.Join(c.msgs, "|") != "Hello| ther|e|ok" || c.edits != 0 {
		t.Errorf("chat %q, %d edits", c.msgs, c.edits)
	}
}

// A failed send does not turn every later delta into another failure;
// the step's text is sent when it ends.
func TestStreamAfterAFailedSend(t *testing.T) {
	c := &chatLog{failAt: 1}
	var failures int
	s := c.stream(true, 100)
	s.failed = func(error) { failures++ }
	feed(s, text("a"), text("b"), text("c"), done)
	if failures != 1 || strings.Join(c.msgs, "|") != "abc" {
		t.Errorf("%d failures, chat %q; want 1 and abc", failures, c.msgs)
	}
}

// Where the platform wants final answers only (email), the text of every
// step that ends in a tool call is dropped and the turn's last text is
// one message, even when it is longer than one part.
func TestStreamFinalOnly(t *testing.T) {
	c := &chatLog{}
	s := c.stream(false, 100)
	s.finalOnly = true
	feed(s, text("Looking."), toolStart, text("Still "), text("looking."), toolStart, toolStart,
		text("Found "), text("it."), done)
	if strings.Join(c.msgs, "|") != "Found it." || c.sends != 1 {
		t.Errorf("chat %q after %d sends, want only the final answer", c.msgs, c.sends)
	}

	// Even a platform that can edit sends the answer once, whole.
	c = &chatLog{}
	s = c.stream(true, 5)
	s.finalOnly = true
	feed(s, text("step"), toolStart, text("abc"), text("defgh"), done)
	if strings.Join(c.msgs, "|") != "abcde|fgh" || c.edits != 0 {
		t.Errorf("chat %q after %d edits, want the final answer in two parts and no edits", c.msgs, c.edits)
	}

	// The next turn through the same stream starts clean.
	c = &chatLog{}
	s = c.stream(false, 100)
	s.finalOnly = true
	feed(s, toolStart, done)
	if len(c.msgs) != 0 {
		t.Errorf("a turn with no final text sent %q", c.msgs)
	}
}

// In a group the reply's first message answers the message it is for;
// the messages after it (a long reply's next part, the next step) do not.
func TestStreamRepliesToTheMessage(t *testing.T) {
	var replyTo []string
	c := &chatLog{}
	s := c.stream(false, 10)
	send := s.send
	s.send = func(ctx context.Context, m Outgoing) (MessageRef, error) {
		replyTo = append(replyTo, m.ReplyTo)
		return send(ctx, m)
	}
	s.replyTo = "77"
	feed(s, agent.Event{Kind: agent.EventText, Text: "twelve chars"},
		agent.Event{Kind: agent.EventToolStarted},
		agent.Event{Kind: agent.EventText, Text: "done"},
		agent.Event{Kind: agent.EventDone})
	if strings.Join(replyTo, ",") != "77,," {
		t.Errorf("replies to %q; want only the first message to answer 77", replyTo)
	}
}
