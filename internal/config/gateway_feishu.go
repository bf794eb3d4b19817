package config

import "strings"

// FeishuGateway is gateway.feishu: a Feishu (or Lark) self-built app whose
// events and card callbacks Feishu posts to hermes, on path of
// gateway.webhook.listen behind a TLS proxy.
type FeishuGateway struct {
	// AppID is the app's id from the developer console (cli_…); empty
	// leaves Feishu off.
	AppID string `yaml:"app_id"`
	// AppSecret is the app's secret (usually FEISHU_APP_SECRET in .env).
	AppSecret Secret `yaml:"app_secret"`
	// VerificationToken is the token of "Events & callbacks → Encryption
	// strategy", which every event carries; events without it are refused.
	VerificationToken Secret `yaml:"verification_token"`
	// EncryptKey, when set in the console, encrypts events and signs every
	// post (X-Lark-Signature); hermes then refuses posts that are not both.
	EncryptKey Secret `yaml:"encrypt_key"`
	// BaseURL is the Open API root: https://open.feishu.cn (the default)
	// or https://open.larksuite.com for Lark.
	BaseURL string `yaml:"base_url" check:"url"`
	// Path is where hermes takes the posts on gateway.webhook.listen
	// (/feishu/events by default).
	Path string `yaml:"path"`
	// LongConnection has hermes open a WebSocket to Feishu and take the
	// events down it, instead of Feishu posting them to path: no public
	// address is needed (the console's "receive events through
	// persistent connection").
	LongConnection bool `yaml:"long_connection"`
	// AllowAll answers everyone in the tenant who writes to the bot.
	AllowAll bool `yaml:"allow_all"`
	// Allow lists the open_ids (ou_…) allowed besides paired users.
	Allow []string `yaml:"allow"`
	// Approvers are the open_ids whose card buttons approve commands;
	// empty means anyone allowed in the chat.
	Approvers []string `yaml:"approvers"`
}

// DefaultFeishuPath is where Feishu's posts are taken when
// gateway.feishu.path is empty.
const DefaultFeishuPath = "/feishu/events"

// validateFeishu checks gateway.feishu once it is turned on: the
// credentials an app needs and, when Feishu posts its events, the
// verification token and a path no other route answers on (paths maps
// the paths taken to the key that took them).
func validateFeishu(f FeishuGateway, paths map[string]string, where func(key string) string) []error {
	const k = "gateway.feishu."
	if f.AppID == "" {
		if f.AppSecret != "" || f.VerificationToken != "" || f.EncryptKey != "" {
			return []error{badValue(where(k+"app_id"), k+"app_id", "", "is not accepted while other gateway.feishu keys are set; give the app's id (cli_…) from the developer console, or remove the section")}
		}
		return nil
	}
	var errs []error
	if !strings.HasPrefix(f.AppID, "cli_") || strings.ContainsAny(f.AppID, " \t\n/") {
		errs = append(errs, badValue(where(k+"app_id"), k+"app_id", f.AppID, "is not accepted; give the app's id from the developer console, which starts with cli_"))
	}
	// The secrets' values are never shown, only that they are missing.
	if f.AppSecret == "" {
		errs = append(errs, badValue(where(k+"app_secret"), k+"app_secret", "", "is not accepted; give the app's secret from the console's Credentials page (usually ${FEISHU_APP_SECRET} from .env)"))
	}
	if f.LongConnection {
		return errs // nothing is posted: no token or path to check
	}
	if f.VerificationToken == "" {
		errs = append(errs, badValue(where(k+"verification_token"), k+"verification_token", "", "is not accepted; give the Verification Token from the console's Events & callbacks → Encryption strategy, which tells Feishu's posts from anyone else's"))
	}
	path := f.Path
	if path == "" {
		path = DefaultFeishuPath
	}
	switch {
	case !strings.HasPrefix(path, "/") || strings.ContainsAny(path, " ?#"):
		errs = append(errs, badValue(where(k+"path"), k+"path", path, "is not accepted; use a URL path starting with / and without spaces, ? or #, like /feishu/events"))
	case paths[path] != "":
		errs = append(errs, badValue(where(k+"path"), k+"path", path, "is not accepted; "+paths[path]+" answers on that path already"))
	default:
		paths[path] = k + "path"
	}
	return errs
}
