package app

import (
	"fmt"

	"github.com/hermes-go/hermes/internal/config"
	"github.com/hermes-go/hermes/internal/gateway"
	"github.com/hermes-go/hermes/internal/gateway/dingtalk"
)

// dingTalkPlatform builds the DingTalk robot gateway.dingtalk
// configures, or nil when its credentials are not set.
func (a *App) dingTalkPlatform() (gateway.Platform, error) {
	d := a.Config.Config.Gateway.DingTalk
	if !dingTalkConfigured(a.Config.Config) {
		return nil, nil
	}
	opt := dingtalk.Options{ClientID: d.ClientID, ClientSecret: string(d.ClientSecret), RobotCode: d.RobotCode,
		BaseURL: d.BaseURL, Logger: a.Log, Clock: a.opts.Clock}
	if d.Mode == config.DingTalkHTTP {
		opt.HTTPPath = d.Path
		if opt.HTTPPath == "" {
			opt.HTTPPath = config.DefaultDingTalkPath
		}
	}
	p, err := dingtalk.New(opt)
	if err != nil {
		return nil, fmt.Errorf("gateway.dingtalk: %w", err)
	}
	return p, nil
}

// dingTalkConfigured reports whether gateway.dingtalk has its
// credentials.
func dingTalkConfigured(c config.Config) bool {
	return c.Gateway.DingTalk.ClientID != "" && c.Gateway.DingTalk.ClientSecret != ""
}
