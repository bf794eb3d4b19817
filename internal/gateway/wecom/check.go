package wecom

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/coder/websocket"

	"github.com/hermes-go/hermes/internal/gateway"
)

// Check fetches an access token and reads the app with it, which proves
// the corp id, the secret, the agent id and that this host may call WeCom
// (a trusted IP), for hermes gateway status.
func (a *App) Check(ctx context.Context) (string, error) {
	who := "app " + strconv.FormatInt(a.agentID, 10) + " of corp " + a.corpID
	var out struct {
		Name string `json:"name"`
	}
	token, err := a.accessToken(ctx)
	if err == nil {
		q := url.Values{"access_token": {token}, "agentid": {strconv.FormatInt(a.agentID, 10)}}
		err = a.do(ctx, http.MethodGet, "/cgi-bin/agent/get", q, nil, &out)
	}
	var ae *apiError
	switch {
	case err == nil:
		return fmt.Sprintf("app %q (%s), messages by callback on %s", out.Name, who[4:], a.path), nil
	case errors.As(err, &ae) && ae.Code == codeNotTrustedIP:
		return who, errors.New("WeCom refuses this host's IP (60020): add its public IP under the app's 企业可信IP (Trusted IP)")
	case errors.As(err, &ae) && (ae.Code == codeInvalidCred || ae.Code == 40013):
		return who, fmt.Errorf("WeCom refused the credentials (errcode %d); check gateway.wecom.corp_id and secret", ae.Code)
	case errors.As(err, &ae) && ae.Code == 40056:
		return who, errors.New("WeCom knows no such app (errcode 40056); check gateway.wecom.agent_id")
	}
	return who, err
}

// Check opens the long connection and closes it without subscribing: WeCom
// keeps one connection per bot, so subscribing would push a running
// hermes serve off. The bot id and secret are checked when serve
// subscribes.
func (b *Bot) Check(ctx context.Context) (string, error) {
	who := "AI bot " + b.id
	ws, _, err := websocket.Dial(ctx, b.url, nil)
	if err != nil {
		return who, fmt.Errorf("the long connection %s cannot be opened: %w", b.url, err)
	}
	ws.Close(websocket.StatusNormalClosure, "checked")
	return who + ", messages over the long connection (its secret is checked when hermes serve subscribes)", nil
}

// withFileNames is m's text with the names of the files it would attach:
// neither the app's text messages nor the bot's streams carry files, so
// the chat is told what was not sent.
func withFileNames(m gateway.Outgoing) string {
	if len(m.Files) == 0 {
		return m.Text
	}
	names := make([]string, len(m.Files))
	for i, f := range m.Files {
		names[i] = filepath.Base(f)
	}
	return strings.TrimSpace(m.Text + "\n\n(Not attached, since hermes sends WeCom text only: " + strings.Join(names, ", ") + ".)")
}

var (
	_ gateway.Checker = (*App)(nil)
	_ gateway.Checker = (*Bot)(nil)
)
