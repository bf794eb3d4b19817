package slack

import (
	"context"
	"fmt"
)

// Check asks Slack who the bot is and whether events can reach it, for
// hermes gateway status: auth.test with the bot token, and in Socket Mode
// apps.connections.open with the app token (its URL is not dialed, and
// lapses unused). A token Slack refuses is an error that names the key.
func (a *Adapter) Check(ctx context.Context) (string, error) {
	var me struct {
		User   string `json:"user"`
		UserID string `json:"user_id"`
		Team   string `json:"team"`
	}
	if err := a.call(ctx, "auth.test", a.botToken, map[string]any{}, &me); err != nil {
		if code, ok := refused(err); ok {
			return "", fmt.Errorf("the Web API refused bot_token (%s); give the Bot User OAuth Token (xoxb-…) of the installed app", code)
		}
		return "", err
	}
	who := fmt.Sprintf("@%s (id %s) in %s", me.User, me.UserID, me.Team)
	if a.appToken == "" {
		return who + fmt.Sprintf("; Events API on %s, signed with the signing secret", a.path), nil
	}
	if err := a.call(ctx, "apps.connections.open", a.appToken, map[string]any{}, nil); err != nil {
		if code, ok := refused(err); ok {
			return who, fmt.Errorf("the Web API refused app_token (%s); give an app-level token (xapp-…) with connections:write, and turn Socket Mode on in the app's settings", code)
		}
		return who, err
	}
	return who + "; Socket Mode", nil
}
