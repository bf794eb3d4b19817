package app

import (
	"context"
	"errors"
	"fmt"

	"github.com/hermes-go/hermes/internal/engine"
	"github.com/hermes-go/hermes/internal/gateway"
	"github.com/hermes-go/hermes/internal/gateway/gwstore"
	"github.com/hermes-go/hermes/internal/lazy"
)

// modelName is what /model accepts as a model's name: what providers'
// model ids are made of ("gpt-4o-mini", "anthropic/claude-sonnet-4",
// "qwen2.5:7b", "models/gemini-2.5-pro@001"), and nothing that could
// reach a URL or a log line as something else.
var modelName = lazy.Regexp{Expr: `^[A-Za-z0-9][A-Za-z0-9._:/@+-]{0,127}$`}

// chatModel answers /model [name] in the chat whose session key is key.
func (a *App) chatModel(ctx context.Context, key, name string) string {
	main, err := a.Models.Main()
	configured := main.Model
	if err != nil || configured == "" {
		configured = "none configured"
	}
	switch name {
	case "":
		chosen, err := a.Gateway.ChatModel(ctx, key)
		if err != nil {
			return "model: " + err.Error()
		}
		if chosen == "" {
			return fmt.Sprintf("This chat talks to %s, the configured model. `/model NAME` switches it to another model of the same provider.", configured)
		}
		return fmt.Sprintf("This chat talks to %s (chosen with /model). `/model default` goes back to %s.", chosen, configured)
	case "default":
		if err := a.Gateway.SetChatModel(ctx, key, ""); err != nil {
			return "model: " + err.Error()
		}
		return fmt.Sprintf("This chat talks to the configured model again, %s.", configured)
	}
	if !modelName.Get().MatchString(name) {
		// %.64q cuts at a character, never inside one.
		return fmt.Sprintf("%.64q is not a model name: give a provider's model id, up to 128 letters, digits and . _ : / @ + -.", name)
	}
	m, err := a.Models.Model(name)
	if err != nil {
		return "That model cannot be used: " + err.Error()
	}
	if err := a.Gateway.SetChatModel(ctx, key, m.Name); err != nil {
		return "model: " + err.Error()
	}
	return fmt.Sprintf("This chat now talks to %s on %s. `/model default` goes back to %s.", m.Name, main.Provider, configured)
}

// tidy is the gateway's session hygiene: it compresses a session that
// fills more than gateway.HygieneShare of the window before its turn.
func (a *App) tidy(ctx context.Context, sessionID string) (string, string, error) {
	res, err := a.Engine.Tidy(ctx, sessionID, gateway.HygieneShare)
	if errors.Is(err, engine.ErrNothingToCompress) {
		return "", "", nil
	}
	if err != nil || res == nil {
		return "", "", err
	}
	note := fmt.Sprintf("(This conversation was close to the model's context limit, so its older part was summarized: ~%d → ~%d tokens.)", res.Before, res.After)
	return res.SessionID, note, nil
}

// gatewayInbox keeps the gateway's held messages in the database.
// alive tells whether a message's holder is a process still serving;
// only the messages of those that are not are taken over.
type gatewayInbox struct {
	s     *gwstore.Store
	alive func(ctx context.Context) (func(holder string) bool, error)
}

func (b gatewayInbox) Hold(ctx context.Context, platform string, ev gateway.Event, started bool) (int64, error) {
	data, err := gateway.EncodeEvent(ev)
	if err != nil {
		return 0, err
	}
	return b.s.Hold(ctx, platform, ev.ID, data, started)
}

// Take records the message's event as seen and holds the message, in
// one transaction of state.db.
func (b gatewayInbox) Take(ctx context.Context, platform string, ev gateway.Event) (int64, bool, error) {
	data, err := gateway.EncodeEvent(ev)
	if err != nil {
		return 0, false, err
	}
	return b.s.Take(ctx, platform, ev.ID, data, gatewayDedupeTTL)
}

func (b gatewayInbox) Start(ctx context.Context, id int64) error   { return b.s.Start(ctx, id) }
func (b gatewayInbox) Release(ctx context.Context, id int64) error { return b.s.Release(ctx, id) }

// Held takes over the messages held by processes that are gone and
// decodes them; a message that cannot be read is
// given back without its event, so it is released rather than retried
// at every start.
func (b gatewayInbox) Held(ctx context.Context) ([]gateway.HeldEvent, error) {
	alive, err := b.alive(ctx)
	if err != nil {
		return nil, err
	}
	rows, err := b.s.Adopt(ctx, alive)
	if err != nil {
		return nil, err
	}
	out := make([]gateway.HeldEvent, 0, len(rows))
	for _, h := range rows {
		ev, lost, err := gateway.DecodeEvent(h.Event)
		if err != nil {
			ev = gateway.Event{ID: h.EventID}
			h.Platform = "" // no platform: dropped with a warning
		}
		out = append(out, gateway.HeldEvent{ID: h.ID, Platform: h.Platform, Event: ev, Started: !h.Started.IsZero(), LostFiles: lost})
	}
	return out, nil
}
