package config

import (
	"fmt"
	"net/url"
	"strings"
)

// DiscordGateway is gateway.discord: a Discord bot, reached over the
// Gateway WebSocket and the REST API.
type DiscordGateway struct {
	// Token is the bot token from the developer portal (usually
	// DISCORD_BOT_TOKEN in .env); empty leaves Discord off.
	Token Secret `yaml:"token"`
	// BaseURL is the REST root: a proxy or a test server; empty means
	// https://discord.com/api/v10.
	BaseURL string `yaml:"base_url" check:"url"`
	// GatewayURL is the Gateway WebSocket's address (ws:// or wss://);
	// empty asks Discord (GET /gateway/bot), as bots should.
	GatewayURL string `yaml:"gateway_url"`
	// AllowAll answers everyone who writes to the bot or mentions it.
	// Off by default: anyone in a server the bot is in can write to it.
	AllowAll bool `yaml:"allow_all"`
	// Allow lists the Discord user ids allowed besides paired users.
	Allow []string `yaml:"allow"`
	// Approvers are the user ids whose button presses approve commands;
	// empty means anyone allowed in the channel.
	Approvers []string `yaml:"approvers"`
}

// validateDiscord checks gateway.discord: the token's shape (never
// showing it), the Gateway address's scheme, and that the allowed users
// and approvers are user ids, not names.
func validateDiscord(d *DiscordGateway, where func(key string) string) []error {
	var errs []error
	if t := string(d.Token); t != "" {
		key := "gateway.discord.token"
		switch {
		case strings.HasPrefix(strings.ToLower(t), "bot "):
			errs = append(errs, badValue(where(key), key, Redact(t), "is not accepted; give the token alone, without the \"Bot \" prefix hermes adds"))
		case strings.Count(t, ".") != 2 || strings.ContainsAny(t, " \t\r\n"):
			errs = append(errs, badValue(where(key), key, Redact(t), fmt.Sprintf("is not accepted (%d characters); a bot token is three parts separated by dots, as Bot → Reset Token in the developer portal shows it", len(t))))
		}
	}
	if g := d.GatewayURL; g != "" {
		if u, err := url.Parse(g); err != nil || (u.Scheme != "ws" && u.Scheme != "wss") || u.Host == "" {
			key := "gateway.discord.gateway_url"
			errs = append(errs, badValue(where(key), key, g, "is not accepted; give a ws:// or wss:// address such as wss://gateway.discord.gg, or leave it empty to ask Discord"))
		}
	}
	for _, list := range []struct {
		key string
		ids []string
	}{{"gateway.discord.allow", d.Allow}, {"gateway.discord.approvers", d.Approvers}} {
		for i, id := range list.ids {
			if !isSnowflake(id) {
				key := fmt.Sprintf("%s[%d]", list.key, i)
				errs = append(errs, badValue(where(list.key), key, id, "is not accepted; give the user's id, a number such as 80351110224678912 (Developer Mode on, then Copy User ID on the user)"))
			}
		}
	}
	return errs
}

// isSnowflake reports whether s is a Discord id: up to 20 decimal digits.
func isSnowflake(s string) bool {
	return s != "" && len(s) <= 20 && strings.Trim(s, "0123456789") == ""
}
