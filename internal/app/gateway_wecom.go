package app

import (
	"fmt"

	"github.com/hermes-go/hermes/internal/gateway"
	"github.com/hermes-go/hermes/internal/gateway/wecom"
)

// appendWeCom adds to out the WeCom platforms gateway.wecom turns on: the
// self-built app, whose callbacks are served on gateway.webhook.listen,
// and the AI bot on its long connection.
func (a *App) appendWeCom(out []gateway.Platform) ([]gateway.Platform, error) {
	w := a.Config.Config.Gateway.WeCom
	if w.AppOn() {
		p, err := wecom.NewApp(wecom.AppOptions{CorpID: w.CorpID, AgentID: w.AgentID, Secret: string(w.Secret),
			Token: string(w.Token), EncodingAESKey: string(w.EncodingAESKey), BaseURL: w.BaseURL,
			CallbackPath: w.CallbackPath, Logger: a.Log, Clock: a.opts.Clock})
		if err != nil {
			return nil, fmt.Errorf("gateway.wecom: %w", err)
		}
		out = append(out, p)
	}
	if w.BotOn() {
		p, err := wecom.NewBot(wecom.BotOptions{BotID: w.Bot.BotID, Secret: string(w.Bot.Secret), WSURL: w.Bot.WSURL,
			Logger: a.Log, Clock: a.opts.Clock})
		if err != nil {
			return nil, fmt.Errorf("gateway.wecom.bot: %w", err)
		}
		out = append(out, p)
	}
	return out, nil
}
