package telegram

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/hermes-go/hermes/internal/gateway"
)

// allowedUpdates are the update types the adapter asks for, always
// explicitly, because an omitted list keeps whatever an earlier poller or
// webhook set. Edited messages are left out: an edit is not a new request,
// and running a second turn for it would answer twice.
func allowedUpdates() []string { return []string{"message", "callback_query", "my_chat_member"} }

// The backoff after a failed poll or delivery doubles from minBackoff to
// maxBackoff.
const (
	minBackoff = time.Second
	maxBackoff = time.Minute
)

// Receive learns who the bot is, removes a webhook that would make every
// poll fail, then long-polls getUpdates. An update is confirmed (the next
// offset passes it) only after deliver took it, so one that deliver
// refused is offered again. It returns when ctx ends, or when Telegram
// refuses the token.
func (a *Adapter) Receive(ctx context.Context, deliver func(context.Context, gateway.Event) error) error {
	if err := a.start(ctx); err != nil {
		return err
	}
	if a.hook != nil {
		return a.receiveWebhook(ctx, deliver)
	}
	offset, backoff := 0, time.Duration(0)
	wait := func(reason string, err error) error {
		backoff = min(max(2*backoff, minBackoff), maxBackoff)
		var ae *apiError
		if errors.As(err, &ae) && ae.RetryAfter > 0 {
			// Flood control names its own wait, which may be longer.
			backoff = max(backoff, time.Duration(ae.RetryAfter)*time.Second)
		}
		a.log.Warn(reason, "err", err, "retry_in", backoff)
		return a.clock.Sleep(ctx, backoff)
	}
	for ctx.Err() == nil {
		updates, err := a.getUpdates(ctx, offset)
		if err != nil {
			if ctx.Err() != nil {
				break
			}
			var ae *apiError
			switch {
			case errors.As(err, &ae) && ae.Code == 401:
				return fmt.Errorf("telegram: the Bot API refused the token (401 Unauthorized); check the token @BotFather issued")
			case errors.As(err, &ae) && ae.Code == 409:
				err = wait("telegram: another getUpdates poller or a webhook is active for this bot; only one hermes may poll a bot", err)
			default:
				err = wait("telegram: getUpdates failed", err)
			}
			if err != nil {
				break
			}
			continue
		}
		next, err := a.hand(ctx, updates, offset, deliver)
		offset = next
		if err != nil {
			// Not confirmed: the next poll offers it again.
			_ = wait("telegram: an update was not taken; it will be offered again", err)
			continue
		}
		backoff = 0
	}
	return nil
}

// hand gives the updates to deliver in order and returns the offset that
// confirms those it took; it stops at the first one deliver refused.
// Updates with nothing for the gateway are confirmed and skipped.
func (a *Adapter) hand(ctx context.Context, updates []tgUpdate, offset int, deliver func(context.Context, gateway.Event) error) (int, error) {
	for _, u := range updates {
		if ev, ok := a.event(u); !ok {
			a.log.Debug("telegram: an update with nothing for the gateway is confirmed and skipped", "update_id", u.UpdateID)
		} else if err := deliver(ctx, ev); err != nil {
			return offset, fmt.Errorf("update %d: %w", u.UpdateID, err)
		}
		offset = u.UpdateID + 1
	}
	return offset, nil
}

// start calls getMe (retrying until it answers) and, when polling,
// deletes a webhook if one is set.
func (a *Adapter) start(ctx context.Context) error {
	backoff := time.Duration(0)
	for {
		err := a.getMe(ctx)
		if err == nil {
			break
		}
		var ae *apiError
		if errors.As(err, &ae) && (ae.Code == 401 || ae.Code == 404) {
			return fmt.Errorf("telegram: the Bot API refused the token (%d %s); check the token @BotFather issued", ae.Code, ae.Description)
		}
		backoff = min(max(2*backoff, minBackoff), maxBackoff)
		a.log.Warn("telegram: getMe failed", "err", err, "retry_in", backoff)
		if a.clock.Sleep(ctx, backoff) != nil {
			return nil
		}
	}
	var info struct {
		URL string `json:"url"`
	}
	if err := a.call(ctx, "getWebhookInfo", struct{}{}, &info); err != nil {
		a.log.Warn("telegram: getWebhookInfo failed", "err", err)
		return nil
	}
	if info.URL != "" && a.hook == nil {
		a.log.Warn("telegram: a webhook is set for this bot; deleting it so that polling works", "webhook_host", hostOf(info.URL))
		if err := a.call(ctx, "deleteWebhook", map[string]any{"drop_pending_updates": false}, nil); err != nil {
			a.log.Warn("telegram: deleteWebhook failed", "err", err)
		}
	}
	return nil
}

func (a *Adapter) getMe(ctx context.Context) error {
	var me tgUser
	if err := a.call(ctx, "getMe", struct{}{}, &me); err != nil {
		return err
	}
	a.mu.Lock()
	a.botID, a.botName = me.ID, me.Username
	a.mu.Unlock()
	a.log.Info("telegram: connected", "bot", me.Username, "bot_id", me.ID)
	return nil
}

func (a *Adapter) getUpdates(ctx context.Context, offset int) ([]tgUpdate, error) {
	ctx, cancel := context.WithTimeout(ctx, a.poll+callTimeout)
	defer cancel()
	var updates []tgUpdate
	err := a.call(ctx, "getUpdates", map[string]any{
		"offset":          offset,
		"timeout":         int((a.poll + time.Second - 1) / time.Second), // never 0, a short poll that would spin
		"allowed_updates": allowedUpdates(),
	}, &updates)
	return updates, err
}
