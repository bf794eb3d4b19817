package config

import (
	"fmt"
	"strings"
)

// SlackGateway is gateway.slack: a Slack app's bot. It takes events over
// Socket Mode when app_token is set (no public URL needed), else over the
// Events API's HTTP posts, checked with signing_secret, on
// gateway.webhook.listen.
type SlackGateway struct {
	// BotToken is the Bot User OAuth Token (xoxb-…, usually
	// SLACK_BOT_TOKEN in .env); empty leaves Slack off.
	BotToken Secret `yaml:"bot_token"`
	// AppToken is an app-level token (xapp-…, scope connections:write,
	// usually SLACK_APP_TOKEN) that turns Socket Mode on.
	AppToken Secret `yaml:"app_token"`
	// SigningSecret checks that an Events API post comes from Slack
	// (usually SLACK_SIGNING_SECRET); needed without app_token.
	SigningSecret Secret `yaml:"signing_secret"`
	// EventsPath is the path the Events API and interactivity posts are
	// answered on, behind the proxy in front of gateway.webhook.listen
	// (/slack/events by default).
	EventsPath string `yaml:"events_path"`
	// BaseURL is the Web API root: a proxy or a test server; empty means
	// https://slack.com/api.
	BaseURL string `yaml:"base_url" check:"url"`
	// AllowAll answers everyone in the workspace who writes to the bot.
	// Off by default.
	AllowAll bool `yaml:"allow_all"`
	// Allow lists the Slack member ids (U… or W…) allowed besides paired
	// users.
	Allow []string `yaml:"allow"`
	// Approvers are the member ids whose button presses approve
	// commands; empty means anyone allowed in the chat.
	Approvers []string `yaml:"approvers"`
}

// SlackEventsPath is where the Events API is answered when events_path is
// not set.
const SlackEventsPath = "/slack/events"

// validateSlack checks gateway.slack: the tokens' kinds, that one way of
// receiving is set, the member ids, and, over HTTP, that the events path
// is free in paths (which it then takes). Tokens are secrets: what is
// wrong is said without them.
func validateSlack(s *SlackGateway, paths map[string]string, where func(key string) string) []error {
	var errs []error
	bad := func(key, value, prob string) {
		errs = append(errs, badValue(where("gateway.slack."+key), "gateway.slack."+key, value, prob))
	}
	if s.BotToken == "" {
		if s.AppToken != "" || s.SigningSecret != "" {
			bad("bot_token", "", "is not accepted with app_token or signing_secret set; give the Bot User OAuth Token (xoxb-…) from the app's OAuth & Permissions page")
		}
		return errs
	}
	if tok := string(s.BotToken); !strings.HasPrefix(tok, "xoxb-") {
		bad("bot_token", tokenShape(tok), "is not accepted; give the Bot User OAuth Token, which starts with xoxb- (not a user token xoxp- or an app token xapp-)")
	}
	switch tok := string(s.AppToken); {
	case tok != "" && !strings.HasPrefix(tok, "xapp-"):
		bad("app_token", tokenShape(tok), "is not accepted; give an app-level token, which starts with xapp- (Basic Information → App-Level Tokens, scope connections:write)")
	case tok == "" && s.SigningSecret == "":
		bad("app_token", "", "is not accepted without signing_secret; give app_token (xapp-…) for Socket Mode, or signing_secret to take the Events API over HTTP")
	}
	for _, list := range []struct {
		key string
		ids []string
	}{{"allow", s.Allow}, {"approvers", s.Approvers}} {
		for i, id := range list.ids {
			if !isSlackMember(id) {
				bad(fmt.Sprintf("%s[%d]", list.key, i), id, "is not accepted; give a Slack member id such as U024BE7LH (profile → ⋮ → Copy member ID), not a name")
			}
		}
	}
	if s.AppToken != "" {
		return errs
	}
	path := s.EventsPath
	if path == "" {
		path = SlackEventsPath
	}
	if !strings.HasPrefix(path, "/") {
		bad("events_path", path, "is not accepted; use a URL path starting with /, like "+SlackEventsPath)
	} else if other, taken := paths[path]; taken {
		bad("events_path", path, "is not accepted; "+other+" answers on that path already")
	} else {
		paths[path] = "gateway.slack.events_path"
	}
	return errs
}

// tokenShape describes a token without showing it: its prefix and length.
func tokenShape(tok string) string {
	prefix, _, _ := strings.Cut(tok, "-")
	if len(prefix) > 4 {
		prefix = prefix[:4]
	}
	return fmt.Sprintf("%s… (%d characters)", prefix, len(tok))
}

// isSlackMember reports whether id reads like a member id: U or W, then
// upper-case letters and digits.
func isSlackMember(id string) bool {
	if len(id) < 3 || (id[0] != 'U' && id[0] != 'W') {
		return false
	}
	for _, c := range id[1:] {
		if !(c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}
