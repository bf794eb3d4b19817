package app

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/hermes-go/hermes/internal/api"
	"github.com/hermes-go/hermes/internal/session"
)

// apiConversations gives the API server the sessions it made, and only
// those: an id of a session held at the terminal or on a chat platform
// is answered as unknown, so an API key never reads or deletes them.
type apiConversations struct {
	store session.Store
	// delete deletes a session unless a turn runs in it, here or in
	// another process (the engine's DeleteSession); nil deletes from
	// the store at once.
	delete func(ctx context.Context, id string) error
}

// Conversation returns the API session id with its messages.
func (c apiConversations) Conversation(ctx context.Context, id string) (*api.Conversation, error) {
	s, err := c.session(ctx, id)
	if err != nil {
		return nil, err
	}
	msgs, err := c.store.Messages(ctx, id)
	if err != nil {
		return nil, err
	}
	newest, err := session.Newest(ctx, c.store, id)
	if err != nil {
		return nil, err
	}
	out := &api.Conversation{ID: s.ID, Model: s.Model, Messages: make([]api.StoredMessage, len(msgs))}
	if newest != id {
		out.ContinuedIn = newest
	}
	for i, m := range msgs {
		out.Messages[i] = api.StoredMessage{ID: m.ID, Message: m.Message, FinishReason: m.FinishReason, CreatedAt: m.CreatedAt}
	}
	return out, nil
}

// Delete removes the API session id and its messages, in the one
// transaction of the store's Delete, refusing while a turn runs in it.
func (c apiConversations) Delete(ctx context.Context, id string) error {
	if _, err := c.session(ctx, id); err != nil {
		return err
	}
	del := c.delete
	if del == nil {
		del = c.store.Delete
	}
	err := del(ctx, id)
	if errors.Is(err, session.ErrNotFound) {
		return notAPISession(id)
	}
	return err
}

// session returns the session id when the API made it.
func (c apiConversations) session(ctx context.Context, id string) (*session.Session, error) {
	s, err := c.store.Get(ctx, id)
	hidden := err == nil && (s.Source != apiSource || !api.CallerFrom(ctx).Sees(s))
	if errors.Is(err, session.ErrNotFound) || hidden {
		return nil, notAPISession(id)
	}
	return s, err
}

func notAPISession(id string) error {
	return &api.Error{Status: http.StatusNotFound, Message: fmt.Sprintf("%q is not a conversation of the API; use the id of a response hermes returned", id)}
}

var _ api.Conversations = apiConversations{}
