package app

import (
	"fmt"

	"github.com/hermes-go/hermes/internal/gateway"
	"github.com/hermes-go/hermes/internal/gateway/feishu"
)

// feishuPlatform builds the Feishu adapter when gateway.feishu.app_id is
// set, nil otherwise. Feishu posts its events to the adapter's path on
// gateway.webhook.listen (GatewayHTTP serves it), or sends them down the
// long connection the adapter opens.
func (a *App) feishuPlatform() (gateway.Platform, error) {
	f := a.Config.Config.Gateway.Feishu
	if f.AppID == "" {
		return nil, nil
	}
	p, err := feishu.New(feishu.Options{
		AppID:             f.AppID,
		AppSecret:         string(f.AppSecret),
		VerificationToken: string(f.VerificationToken),
		EncryptKey:        string(f.EncryptKey),
		BaseURL:           f.BaseURL,
		Path:              f.Path,
		LongConnection:    f.LongConnection,
		Logger:            a.Log,
		Clock:             a.opts.Clock,
	})
	if err != nil {
		return nil, fmt.Errorf("gateway.feishu: %w", err)
	}
	return p, nil
}
