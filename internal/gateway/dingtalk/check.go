package dingtalk

import (
	"context"
	"errors"
	"fmt"
)

// Check fetches an access token with the app's credentials, which is
// what every send needs, and says how messages reach hermes.
func (a *Adapter) Check(ctx context.Context) (string, error) {
	who := "robot " + a.robot
	if _, err := a.tokens.get(ctx, a); err != nil {
		var ae *apiError
		if errors.As(err, &ae) && ae.Status >= 400 && ae.Status < 500 {
			return who, fmt.Errorf("DingTalk refused the credentials (%d %s); check client_id and client_secret", ae.Status, ae.Code)
		}
		return who, err
	}
	if a.path != "" {
		return who + ", messages by HTTP callback on " + a.path, nil
	}
	return who + ", messages over a Stream connection", nil
}
