package matrix

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
)

// login makes sure the adapter has a token and knows whose it is: with a
// token it asks whoami (and checks the configured user id), with a
// password it logs in. It then reads the bot's display name, which
// people use to mention it.
func (a *Adapter) login(ctx context.Context) error {
	a.mu.Lock()
	token, want := a.token, a.userID
	a.mu.Unlock()
	if token == "" {
		var out struct {
			Token    string `json:"access_token"`
			UserID   string `json:"user_id"`
			DeviceID string `json:"device_id"`
		}
		body := map[string]any{
			"type":                        "m.login.password",
			"identifier":                  map[string]string{"type": "m.id.user", "user": want},
			"password":                    a.password,
			"initial_device_display_name": "hermes",
		}
		if a.device != "" {
			body["device_id"] = a.device
		}
		if err := a.call(ctx, http.MethodPost, "/_matrix/client/v3/login", nil, body, &out); err != nil {
			var ae *apiError
			if errors.As(err, &ae) && (ae.Code == "M_FORBIDDEN" || ae.Status == 403) {
				return fmt.Errorf("matrix: the homeserver refused the password of %s (%s); check gateway.matrix.user_id and password", want, ae.Code)
			}
			return err
		}
		a.mu.Lock()
		a.token, a.userID = out.Token, out.UserID
		a.mu.Unlock()
		a.log.Info("matrix: logged in", "user_id", out.UserID, "device_id", out.DeviceID)
	} else {
		var out struct {
			UserID string `json:"user_id"`
		}
		if err := a.call(ctx, http.MethodGet, "/_matrix/client/v3/account/whoami", nil, nil, &out); err != nil {
			var ae *apiError
			if errors.As(err, &ae) && (ae.Status == 401 || ae.Code == "M_UNKNOWN_TOKEN") {
				return fmt.Errorf("matrix: the homeserver refused the access token (%d %s); give a current token of the bot's account, or its password", ae.Status, ae.Code)
			}
			return err
		}
		if want != "" && out.UserID != want {
			return fmt.Errorf("matrix: the access token is %s's, not user_id %s; give the bot's own token or fix user_id", out.UserID, want)
		}
		a.mu.Lock()
		a.userID = out.UserID
		a.mu.Unlock()
		a.log.Info("matrix: connected", "user_id", out.UserID)
	}
	user, _ := a.who()
	var prof struct {
		Name string `json:"displayname"`
	}
	if err := a.call(ctx, http.MethodGet, "/_matrix/client/v3/profile/"+pathEsc(user)+"/displayname", nil, nil, &prof); err == nil {
		a.mu.Lock()
		a.name = strings.TrimSpace(prof.Name)
		a.mu.Unlock()
	}
	return nil
}

// fatal reports whether a login error is one retrying cannot mend.
func fatal(err error) bool {
	return err != nil && !temporary(err) && !rateLimitedErr(err)
}

func rateLimitedErr(err error) bool {
	var ae *apiError
	return errors.As(err, &ae) && ae.rateLimited()
}
