package feishu

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/hermes-go/hermes/internal/gateway"
)

// press hands a card button's press to the gateway and answers the
// callback at once, well within Feishu's three seconds: with a toast of
// what the gateway said (through Answer), or empty for a press already
// taken.
func (a *Adapter) press(ctx context.Context, env envelope, deliver func(context.Context, gateway.Event) error) (int, any) {
	var e cardEvent
	var value cardButton
	if json.Unmarshal(env.Event, &e) != nil || json.Unmarshal(e.Action.Value, &value) != nil ||
		value.Data == "" || e.Context.ChatID == "" || env.Header.EventID == "" {
		return http.StatusOK, struct{}{}
	}
	chat := gateway.Chat{ID: e.Context.ChatID, Type: gateway.Group}
	if c, ok := a.cardChat(e.Context.MessageID); ok && c.ID == chat.ID {
		chat = c // with its thread, which the callback does not name
	}
	ev := gateway.Event{
		ID: env.Header.EventID, Kind: gateway.KindButton, Received: a.clock.Now(),
		Chat: chat, User: gateway.User{ID: e.Operator.OpenID, Name: e.Operator.OpenID},
		Addressed: true, Data: value.Data,
		Ref: gateway.MessageRef{Chat: chat, ID: e.Context.MessageID},
		Raw: env.Header.EventID,
	}
	ch := make(chan string, 1)
	a.mu.Lock()
	a.answers[ev.ID] = ch
	a.mu.Unlock()
	defer func() {
		a.mu.Lock()
		delete(a.answers, ev.ID)
		a.mu.Unlock()
	}()
	if err := deliver(ctx, ev); err != nil {
		a.log.Warn("feishu: a card press was not taken; Feishu will send it again", "event_id", ev.ID, "err", err)
		return http.StatusServiceUnavailable, nil
	}
	// The gateway answers a press while it delivers it; a press it
	// dropped as already taken has no answer.
	select {
	case text := <-ch:
		return http.StatusOK, map[string]any{"toast": map[string]string{"type": toastType(text), "content": text}}
	default:
		return http.StatusOK, struct{}{}
	}
}

// toastType is "success" for the gateway's "Done." and "error" for the
// reasons a press was refused.
func toastType(text string) string {
	if text == "Done." {
		return "success"
	}
	return "error"
}
