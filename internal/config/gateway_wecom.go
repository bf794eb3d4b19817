package config

import (
	"maps"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// WeComGateway is gateway.wecom: a WeCom (企业微信) self-built app, an AI
// bot, or both. The app is on when its corp_id, agent_id or secret is
// set, the bot when its bot_id or secret is.
type WeComGateway struct {
	// CorpID is the company's id (企业ID, under My Company → Company
	// Info).
	CorpID string `yaml:"corp_id"`
	// AgentID is the self-built app's AgentId.
	AgentID int64 `yaml:"agent_id"`
	// Secret is the app's Secret (usually WECOM_SECRET in .env).
	Secret Secret `yaml:"secret"`
	// Token and EncodingAESKey are the app's API-receive settings (接收消息
	// → 设置API接收), with which WeCom signs and encrypts its callbacks.
	Token          Secret `yaml:"token"`
	EncodingAESKey Secret `yaml:"encoding_aes_key"`
	// BaseURL is the API root: a proxy or a test server; empty means
	// https://qyapi.weixin.qq.com.
	BaseURL string `yaml:"base_url" check:"url"`
	// CallbackPath is the path of the app's API receive URL, answered on
	// gateway.webhook.listen behind a TLS proxy; empty means /wecom.
	CallbackPath string `yaml:"callback_path"`
	// Bot is the AI bot (智能机器人) on WeCom's long connection.
	Bot WeComBot `yaml:"bot"`
	// AllowAll answers every member who writes. Off by default.
	AllowAll bool `yaml:"allow_all"`
	// Allow lists the member userids allowed besides paired users.
	Allow []string `yaml:"allow"`
	// Approvers are the userids whose /approve and /deny count; empty
	// means anyone allowed in the chat.
	Approvers []string `yaml:"approvers"`
}

// WeComBot is gateway.wecom.bot.
type WeComBot struct {
	// BotID and Secret are the AI bot's long-connection credentials
	// (API mode: long connection).
	BotID  string `yaml:"bot_id"`
	Secret Secret `yaml:"secret"`
	// WSURL is the long connection's address; empty means
	// wss://openws.work.weixin.qq.com.
	WSURL string `yaml:"ws_url"`
}

// AppOn reports whether the self-built app is configured.
func (w WeComGateway) AppOn() bool { return w.CorpID != "" || w.AgentID != 0 || w.Secret != "" }

// BotOn reports whether the AI bot is configured.
func (w WeComGateway) BotOn() bool { return w.Bot.BotID != "" || w.Bot.Secret != "" }

// validateWeCom checks gateway.wecom: what the app and the bot each need
// once either is on, the shapes WeCom issues, and that the callback path
// is not another route's.
func validateWeCom(g *Gateway, where func(key string) string) []error {
	w := g.WeCom
	var errs []error
	bad := func(key, value, prob string) {
		key = "gateway.wecom." + key
		errs = append(errs, badValue(where(key), key, value, "is not accepted; "+prob))
	}
	if w.AppOn() {
		if !wecomAlnum(w.CorpID) {
			bad("corp_id", w.CorpID, "give the 企业ID from My Company → Company Info, letters and digits such as ww1234567890abcdef")
		}
		if w.AgentID <= 0 {
			bad("agent_id", strconv.FormatInt(w.AgentID, 10), "give the app's AgentId, a positive number such as 1000002")
		}
		if w.Secret == "" {
			bad("secret", "", "give the app's Secret (usually ${WECOM_SECRET} from .env)")
		}
		if w.Token == "" {
			bad("token", "", "give the Token from the app's API receive settings")
		}
		// The key's value is a secret: say what is wrong without it.
		if n := len(w.EncodingAESKey); n != 43 || !wecomAlnum(string(w.EncodingAESKey)) {
			bad("encoding_aes_key", w.EncodingAESKey.String(), "give the 43 letters and digits of the EncodingAESKey from the app's API receive settings (this one has "+strconv.Itoa(n)+" characters)")
		}
		path := w.CallbackPath
		if path == "" {
			path = "/wecom"
		}
		if !strings.HasPrefix(path, "/") {
			bad("callback_path", path, "give the URL path of the app's API receive URL, starting with /, such as /wecom")
		} else if other := wecomPathTaken(g, path); other != "" {
			bad("callback_path", path, other+" answers on that path already")
		}
	}
	if w.BotOn() {
		if w.Bot.BotID == "" {
			bad("bot.bot_id", "", "give the Bot ID shown with the AI bot's long-connection settings")
		}
		if w.Bot.Secret == "" {
			bad("bot.secret", "", "give the Secret shown with the AI bot's long-connection settings (usually ${WECOM_BOT_SECRET} from .env)")
		}
	}
	if ws := w.Bot.WSURL; ws != "" {
		if u, err := url.Parse(ws); err != nil || (u.Scheme != "wss" && u.Scheme != "ws") || u.Host == "" {
			bad("bot.ws_url", ws, "use a wss:// URL such as wss://openws.work.weixin.qq.com")
		}
	}
	return errs
}

// wecomPathTaken names the setting already answering on path, or "".
func wecomPathTaken(g *Gateway, path string) string {
	if u, err := url.Parse(g.Telegram.Webhook.URL); err == nil && g.Telegram.Webhook.URL != "" && u.Path == path {
		return "gateway.telegram.webhook.url"
	}
	if d := g.DingTalk; d.Mode == DingTalkHTTP && d.ClientID != "" && (d.Path == path || d.Path == "" && path == DefaultDingTalkPath) {
		return "gateway.dingtalk.path"
	}
	if f := g.Feishu; f.AppID != "" && !f.LongConnection && (f.Path == path || f.Path == "" && path == DefaultFeishuPath) {
		return "gateway.feishu.path"
	}
	for _, name := range slices.Sorted(maps.Keys(g.Webhook.Routes)) {
		if g.Webhook.Routes[name].Path == path {
			return "gateway.webhook.routes." + name + ".path"
		}
	}
	return ""
}

// wecomAlnum reports whether s is non-empty ASCII letters and digits.
func wecomAlnum(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}
