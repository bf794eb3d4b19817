package telegram

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Check asks the Bot API who the bot is and how updates reach it: the
// webhook Telegram posts to, with the last error it met there, or a
// webhook left by another program that polling will remove.
func (a *Adapter) Check(ctx context.Context) (string, error) {
	var me tgUser
	if err := a.call(ctx, "getMe", struct{}{}, &me); err != nil {
		var ae *apiError
		if errors.As(err, &ae) && (ae.Code == 401 || ae.Code == 404) {
			return "", fmt.Errorf("the Bot API refused the token (%d %s); check the token @BotFather issued", ae.Code, ae.Description)
		}
		return "", err
	}
	who := fmt.Sprintf("@%s (id %d)", me.Username, me.ID)
	var info struct {
		URL              string `json:"url"`
		Pending          int    `json:"pending_update_count"`
		LastErrorDate    int64  `json:"last_error_date"`
		LastErrorMessage string `json:"last_error_message"`
	}
	if err := a.call(ctx, "getWebhookInfo", struct{}{}, &info); err != nil {
		return who, nil
	}
	switch {
	case a.hook == nil && info.URL != "":
		who += fmt.Sprintf("; polling, but a webhook to %s is set: hermes serve deletes it when it starts", hostOf(info.URL))
	case a.hook == nil:
		who += "; polling"
	case info.URL != a.hook.cfg.URL:
		who += "; webhook mode, not set yet: hermes serve sets it when it starts"
	default:
		who += fmt.Sprintf("; webhook to %s, %d updates waiting", hostOf(info.URL), info.Pending)
		if info.LastErrorMessage != "" {
			at := time.Unix(info.LastErrorDate, 0).UTC().Format(time.RFC3339)
			return who, fmt.Errorf("Telegram's last post to the webhook failed at %s: %s", at, info.LastErrorMessage)
		}
	}
	return who, nil
}
