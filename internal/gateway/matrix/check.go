package matrix

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
)

// Check logs in as Receive would (with a password, in a session it then
// logs out of, so no device is left behind) and says who the bot is and
// how many rooms it is in.
func (a *Adapter) Check(ctx context.Context) (string, error) {
	a.mu.Lock()
	hadToken := a.token != ""
	a.mu.Unlock()
	if err := a.login(ctx); err != nil {
		return "", err
	}
	if !hadToken {
		defer func() {
			if err := a.call(ctx, http.MethodPost, "/_matrix/client/v3/logout", nil, struct{}{}, nil); err != nil {
				a.log.Warn("matrix: logging out of the check's session failed", "err", err)
			}
			a.mu.Lock()
			a.token = ""
			a.mu.Unlock()
		}()
	}
	me, _ := a.who()
	var rooms struct {
		Joined []string `json:"joined_rooms"`
	}
	if err := a.call(ctx, http.MethodGet, "/_matrix/client/v3/joined_rooms", nil, nil, &rooms); err != nil {
		return me, err
	}
	return fmt.Sprintf("%s on %s, in %d rooms; unencrypted rooms only", me, hostOf(a.base), len(rooms.Joined)), nil
}

// hostOf is the host of a URL, for output that must not carry a
// password written into it.
func hostOf(u string) string {
	p, err := url.Parse(u)
	if err != nil {
		return "?"
	}
	return p.Host
}
