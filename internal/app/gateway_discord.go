package app

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"

	"github.com/hermes-go/hermes/internal/gateway"
	"github.com/hermes-go/hermes/internal/gateway/discord"
)

// discordPlatforms builds the Discord adapter from gateway.discord: one
// platform when its token is set, none when it is not.
func (a *App) discordPlatforms() ([]gateway.Platform, error) {
	d := a.Config.Config.Gateway.Discord
	if d.Token == "" {
		return nil, nil
	}
	// The session is kept under a hash of the token: the bot's, never
	// the token itself.
	sum := sha256.Sum256([]byte(d.Token))
	p, err := discord.New(discord.Options{Token: string(d.Token), BaseURL: d.BaseURL, GatewayURL: d.GatewayURL, Logger: a.Log, Clock: a.opts.Clock,
		Session: gatewayCursor{store: a.Gateway, platform: "discord", name: "session " + hex.EncodeToString(sum[:8])}})
	if err != nil {
		return nil, fmt.Errorf("gateway.discord: %w", err)
	}
	return []gateway.Platform{p}, nil
}
