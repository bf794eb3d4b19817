package api_test

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/hermes-go/hermes/internal/agent"
	"github.com/hermes-go/hermes/internal/api"
	"github.com/hermes-go/hermes/internal/llm"
)

// convs is a store of conversations with a turn that answers "you said:
// " and the text, after "let me check." and a tool call when the text
// asks for one, in a child session when it asks for compression, cut at
// the output limit when it asks for a long one. Its session tg-1 stands
// for one held on a chat platform: the API never reaches it.
type convs struct {
	mu     sync.Mutex
	api    map[string]*api.Conversation
	other  map[string]bool
	lastID int64
	n      int
	turns  []api.Turn
}

func newConvs() *convs {
	return &convs{api: map[string]*api.Conversation{}, other: map[string]bool{"tg-1": true}}
}

func notAPI(id string) error {
	return &api.Error{Status: http.StatusNotFound, Message: fmt.Sprintf("%q is not a conversation of the API; use the id of a response hermes returned", id)}
}

func (c *convs) Conversation(_ context.Context, id string) (*api.Conversation, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	conv, ok := c.api[id]
	if !ok {
		return nil, notAPI(id)
	}
	cp := *conv
	cp.Messages = slices.Clone(conv.Messages)
	return &cp, nil
}

func (c *convs) Delete(_ context.Context, id string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.api[id]; !ok {
		return notAPI(id)
	}
	delete(c.api, id)
	return nil
}

func (c *convs) append(id string, m llm.Message) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.lastID++
	c.api[id].Messages = append(c.api[id].Messages, api.StoredMessage{ID: c.lastID, Message: m, CreatedAt: time.Unix(1700000000, 0)})
}

// run runs a turn as the engine does: the session, Ready, Started, then
// the stored messages.
func (c *convs) run(ctx context.Context, t api.Turn, sink agent.Sink) (*api.Result, error) {
	c.mu.Lock()
	c.turns = append(c.turns, t)
	id := t.SessionID
	if id == "" {
		c.n++
		id = fmt.Sprintf("s-%d", c.n)
		c.api[id] = &api.Conversation{ID: id, Model: "test-model"}
	}
	_, ok := c.api[id]
	c.mu.Unlock()
	if !ok {
		return nil, notAPI(id)
	}
	if t.Ready != nil {
		if err := t.Ready(ctx, id); err != nil {
			return nil, err
		}
	}
	if t.Started != nil {
		t.Started(id)
	}
	c.append(id, llm.UserMessage(t.Text))
	if strings.Contains(t.Text, "compress") {
		// The conversation is compressed and goes on in a child.
		child := id + "c"
		c.mu.Lock()
		c.api[child] = &api.Conversation{ID: child}
		c.api[id].ContinuedIn = child
		c.mu.Unlock()
		c.append(child, llm.UserMessage("the summary, and "+t.Text))
		id = child
	}
	if strings.Contains(t.Text, "tool") {
		sink.Event(agent.Event{Kind: agent.EventText, Text: "let me check."})
		c.append(id, llm.AssistantMessage("let me check.", llm.ToolCall{ID: "c1", Name: "terminal"}))
		sink.Event(agent.Event{Kind: agent.EventToolStarted, Tool: &agent.ToolEvent{Call: llm.ToolCall{Name: "terminal"}}})
		c.append(id, llm.ToolResultMessage("c1", "terminal", "ok"))
	}
	sink.Event(agent.Event{Kind: agent.EventText, Text: "you said: "})
	sink.Event(agent.Event{Kind: agent.EventText, Text: t.Text})
	final := "you said: " + t.Text
	c.append(id, llm.AssistantMessage(final))
	stop := agent.StopDone
	if strings.Contains(t.Text, "long") {
		// The answer was cut at the model's output limit.
		stop = agent.StopTruncated
		c.mu.Lock()
		m := c.api[id].Messages
		m[len(m)-1].FinishReason = string(llm.FinishLength)
		c.mu.Unlock()
	}
	return &api.Result{SessionID: id, Result: &agent.Result{Final: final, Stopped: stop,
		Usage: llm.Usage{InputTokens: 10, OutputTokens: 4}}}, nil
}

var _ api.Conversations = (*convs)(nil)
