package app

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/hermes-go/hermes/internal/config"
	"github.com/hermes-go/hermes/internal/gateway"
	"github.com/hermes-go/hermes/internal/gateway/gwstore"
	"github.com/hermes-go/hermes/internal/gateway/telegram"
	"github.com/hermes-go/hermes/internal/safety/writeguard"
	"github.com/hermes-go/hermes/internal/slash"
)

// gatewayDedupeTTL is how long an inbound event's id is remembered, so a
// platform's redelivery within it is answered once. Platforms redeliver
// within minutes (Telegram keeps unconfirmed updates 24 hours).
const gatewayDedupeTTL = 48 * time.Hour

// outboxBurst is how many sends to one chat go at once before its pace
// applies.
const outboxBurst = 3

// GatewayRunner assembles the gateway over platforms: the runner, with an
// outbox per platform, the gateway's state in state.db and the engine.
// The outboxes are closed (what is queued sent or kept) by Close.
func (a *App) GatewayRunner(platforms []gateway.Platform) (*gateway.Runner, error) {
	if a.Engine == nil {
		return nil, fmt.Errorf("app: the gateway needs the whole runtime (app.Open), not just the stores")
	}
	g := a.Config.Config.Gateway
	policy, err := resetPolicy(a.Config.Config)
	if err != nil {
		return nil, err
	}
	byPlatform := platformAccess(g)
	for name, acc := range byPlatform {
		byPlatform[name] = envAllow(a.Config.Env, name, acc)
	}
	global := g.Allow
	if len(global) == 0 {
		global = envAllow(a.Config.Env, "gateway", access{}).allow
	}
	auth := gateway.Authorizer{
		AllowAll:    map[string]bool{},
		Allow:       map[string][]string{},
		GlobalAllow: global,
		Pairings:    a.Gateway,
	}
	for name, acc := range byPlatform {
		auth.AllowAll[name], auth.Allow[name] = acc.allowAll, acc.allow
	}
	undelivered := a.undeliveredFile()
	boxes := make(map[string]*gateway.Outbox, len(platforms))
	for _, p := range platforms {
		// A short burst before the pace applies: a pairing notice or an
		// approval request right before the reply need not hold it a
		// second each, and platforms allow short bursts.
		box := gateway.NewOutbox(gateway.OutboxOptions{Platform: p, Clock: a.opts.Clock, Logger: a.Log,
			Undelivered: a.countUndelivered(p.Name(), undelivered), Burst: outboxBurst})
		boxes[p.Name()] = box
		a.onClose(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			box.Close(ctx)
		})
	}
	a.Metrics.Queue("outbound", func() int { return queued(boxes) })
	commands := a.Slash()
	opt := gateway.Options{
		Engine:    a.Engine,
		Platforms: platforms,
		Seen: func(ctx context.Context, platform, id string) (bool, error) {
			return a.Gateway.Seen(ctx, platform, id, gatewayDedupeTTL)
		},
		Authorize: func(ctx context.Context, platform string, u gateway.User) (bool, string, error) {
			return auth.Allowed(ctx, platform, u.ID)
		},
		Resolve: func(ctx context.Context, key string) (string, bool, error) {
			id, ended, err := a.Gateway.ResolveEnded(ctx, key, a.opts.Clock.Now(), policy)
			a.endChatSession(ctx, ended, "reset")
			return id, ended != "", err
		},
		Bind:    a.Gateway.Bind,
		BindNew: a.Gateway.BindNew,
		Forget: func(ctx context.Context, key string) error {
			id, err := a.Gateway.ForgetEnded(ctx, key)
			a.endChatSession(ctx, id, "new_session")
			return err
		},
		Send: func(ctx context.Context, sessionID string, p gateway.Platform, chat gateway.Chat, m gateway.Outgoing) (gateway.MessageRef, error) {
			if p.Name() == "email" && !mayMail(ctx, auth, chat) && !a.isUser("email", chat.ID) {
				// A From line is easily forged: answering a stranger
				// (a pairing code, a notice) would let anyone make
				// hermes mail any address. Strangers get nothing.
				a.Log.Info("gateway: no mail to an address that is not allowed", slog.String("platform", "email"), slog.String("to", chat.ID))
				return gateway.MessageRef{Chat: chat}, nil
			}
			ref, err := boxes[p.Name()].Send(ctx, sessionID, chat, m)
			if err == nil {
				a.Metrics.GatewayMessage(p.Name(), "out")
			}
			return ref, err
		},
		Received: func(platform string) { a.Metrics.GatewayMessage(platform, "in") },
		Edit: func(ctx context.Context, sessionID string, p gateway.Platform, ref gateway.MessageRef, m gateway.Outgoing) error {
			return boxes[p.Name()].Edit(ctx, sessionID, ref, m)
		},
		GroupSessionsPerUser: g.GroupSessionsPerUser.Or(true),
		RequireMention:       g.RequireMention.Or(true),
		Interrupt:            g.Busy != config.BusyQueue,
		Commands:             &commands,
		Skill:                a.Tools.Skills.Invocation,
		Usage: func(ctx context.Context, key string) string {
			// Looking the session up must not reset it: the reset
			// policy applies to the next message.
			id, _, err := a.Gateway.Resolve(ctx, key, a.opts.Clock.Now(), gwstore.ResetPolicy{Mode: gwstore.ResetNone})
			if err != nil {
				return "usage: " + err.Error()
			}
			return a.UsageReport(ctx, id)
		},
		Compress: func(ctx context.Context, key, focus string) string {
			id, _, err := a.Gateway.Resolve(ctx, key, a.opts.Clock.Now(), gwstore.ResetPolicy{Mode: gwstore.ResetNone})
			if err != nil {
				return "compress: " + err.Error()
			}
			if id == "" {
				return "Nothing to compress yet."
			}
			res, err := a.Engine.Compress(ctx, id, focus)
			if err != nil {
				return "compress: " + err.Error()
			}
			if err := a.Gateway.Bind(ctx, key, res.SessionID); err != nil {
				return "compress: the chat could not be moved to the compressed session: " + err.Error()
			}
			return fmt.Sprintf("Compressed ~%d → ~%d tokens; this chat goes on in session %s.", res.Before, res.After, res.SessionID)
		},
		Tidy:  a.tidy,
		Model: a.chatModel,
		ChatModel: func(ctx context.Context, key string) string {
			m, err := a.Gateway.ChatModel(ctx, key)
			if err != nil {
				a.Log.Warn("gateway: the chat's model could not be read; the configured one answers", slog.String("error", err.Error()))
			}
			return m
		},
		Agent:      a.chatAgent,
		ChatAgent:  a.chatAgentOf,
		Inbox:      gatewayInbox{s: a.Gateway, alive: a.holdersAlive},
		AdoptEvery: rollEvery,
		Logger:     a.Log,
	}
	opt.Workdir = a.Workdir()
	opt.Media = a.gatewayMedia()
	opt.Elector = a.gatewayElector()
	if g.UnauthorizedDMBehavior != config.DMIgnore {
		opt.Pair = func(ctx context.Context, platform string, u gateway.User) (string, error) {
			if platform == "email" {
				// No code for a From line anyone can forge; the mail
				// is not answered (see Send).
				return "", fmt.Errorf("email: pairing is not offered by mail")
			}
			code, _, err := a.Gateway.RequestCode(ctx, platform, u.ID)
			return code, err
		}
	}
	opt.Approvers = func(platform string) []string { return byPlatform[platform].approvers }
	if a.Users.Enabled() {
		a.gatewayUsers(&opt)
	}
	return gateway.New(opt), nil
}

// access is who may talk to hermes on one platform, and who may answer
// its approval requests.
type access struct {
	allowAll         bool
	allow, approvers []string
}

// platformAccess is each platform's access settings, by platform name.
func platformAccess(g config.Gateway) map[string]access {
	return map[string]access{
		"telegram": {g.Telegram.AllowAll, g.Telegram.Allow, g.Telegram.Approvers},
		"dingtalk": {g.DingTalk.AllowAll, g.DingTalk.Allow, g.DingTalk.Approvers},
		"feishu":   {g.Feishu.AllowAll, g.Feishu.Allow, g.Feishu.Approvers},
		"discord":  {g.Discord.AllowAll, g.Discord.Allow, g.Discord.Approvers},
		"wecom":    {g.WeCom.AllowAll, g.WeCom.Allow, g.WeCom.Approvers},
		"wecombot": {g.WeCom.AllowAll, g.WeCom.Allow, g.WeCom.Approvers},
		"matrix":   {g.Matrix.AllowAll, g.Matrix.Allow, g.Matrix.Approvers},
		"slack":    {g.Slack.AllowAll, g.Slack.Allow, g.Slack.Approvers},
		// By email whoever may write to hermes answers its requests.
		"email": {g.Email.AllowAll, g.Email.Allow, nil},
	}
}

// envAllow fills a platform's allowlist, when config.yaml gives none,
// from the variable Hermes Agent keeps it in: <PLATFORM>_ALLOWED_USERS in
// .env, ids separated by commas, "*" for everyone on the platform.
// GATEWAY_ALLOWED_USERS gives ids allowed on every platform; its "*" is
// not taken (the caller keeps only the ids): everyone everywhere is set
// platform by platform.
func envAllow(env config.Lookup, name string, acc access) access {
	if acc.allowAll || len(acc.allow) > 0 || env == nil {
		return acc
	}
	if name == "wecombot" {
		name = "wecom"
	}
	v, _ := env(strings.ToUpper(name) + "_ALLOWED_USERS")
	for _, id := range strings.Split(v, ",") {
		switch id = strings.TrimSpace(id); id {
		case "":
		case "*":
			acc.allowAll = true
		default:
			acc.allow = append(acc.allow, id)
		}
	}
	return acc
}

// gatewayMedia keeps the files people send in chats in
// $HERMES_HOME/sessions/<session id>/files. A file belongs to the
// conversation it came in: the session's id names it wherever the
// session shows (hermes sessions, logs, exports), no two chats share a
// folder, so a reply in one chat cannot attach what another chat was
// sent, and the folder goes with its session. It is not the working
// directory, which is the user's project and every chat's; and inside
// $HERMES_HOME the file tools cannot overwrite it, so a file stays what
// was received. Replies attach from there or the working directory, away
// from the places the file tools keep secrets from.
func (a *App) gatewayMedia() gateway.MediaOptions {
	home := a.Config.Paths.Home
	return gateway.MediaOptions{
		Folder:     func(id string) string { return filepath.Join(home, "sessions", id, "files") },
		MaxInbound: a.Config.Config.Gateway.MaxInboundMediaBytes,
		Guard:      writeguard.FromEnv(hermesRoot(a.Config)),
	}
}

// resetPolicy is gateway.reset as the gateway's store applies it.
func resetPolicy(c config.Config) (gwstore.ResetPolicy, error) {
	r := c.Gateway.Reset
	p := gwstore.ResetPolicy{Mode: gwstore.ResetMode(r.Mode), Idle: time.Duration(r.IdleMinutes) * time.Minute, AtHour: r.AtHour, Zone: time.Local}
	if c.Timezone != "" {
		zone, err := time.LoadLocation(c.Timezone)
		if err != nil {
			return p, fmt.Errorf("timezone %q: %w", c.Timezone, err)
		}
		p.Zone = zone
	}
	return p, p.Validate()
}

// undeliveredFile returns where the outboxes keep what they could not
// send: one JSON line each in $HERMES_HOME/gateway/undelivered.jsonl, so
// a reply that never reached its chat can still be read.
func (a *App) undeliveredFile() func(context.Context, gateway.Undelivered) error {
	var mu sync.Mutex
	path := filepath.Join(a.Config.Paths.Home, "gateway", "undelivered.jsonl")
	return func(_ context.Context, u gateway.Undelivered) error {
		line, err := json.Marshal(struct {
			Time      time.Time `json:"time"`
			SessionID string    `json:"session_id"`
			Chat      string    `json:"chat"`
			Thread    string    `json:"thread,omitempty"`
			Text      string    `json:"text"`
			Error     string    `json:"error"`
			Attempts  int       `json:"attempts"`
		}{u.Time, u.SessionID, u.Chat.ID, u.Chat.Thread, u.Message.Text, fmt.Sprint(u.Err), u.Attempts})
		if err != nil {
			return err
		}
		mu.Lock()
		defer mu.Unlock()
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			return err
		}
		f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
		if err != nil {
			return err
		}
		if _, err := f.Write(append(line, '\n')); err != nil {
			f.Close()
			return err
		}
		return f.Close()
	}
}

// GatewayPlatforms builds the platforms the configuration turns on: each
// one whose credentials are set.
func (a *App) GatewayPlatforms() ([]gateway.Platform, error) {
	var out []gateway.Platform
	if tg := a.Config.Config.Gateway.Telegram; tg.Token != "" {
		opt := telegram.Options{Token: string(tg.Token), BaseURL: tg.BaseURL, Logger: a.Log, Clock: a.opts.Clock, Drafts: tg.Drafts.Or(true)}
		if hook := tg.Webhook; hook.URL != "" {
			opt.Webhook = &telegram.Webhook{URL: hook.URL, Secret: string(hook.Secret), MaxConnections: hook.MaxConnections}
		}
		p, err := telegram.New(opt)
		if err != nil {
			return nil, fmt.Errorf("gateway.telegram: %w", err)
		}
		out = append(out, p)
	}
	if p, err := a.dingTalkPlatform(); err != nil {
		return nil, err
	} else if p != nil {
		out = append(out, p)
	}
	if p, err := a.feishuPlatform(); err != nil {
		return nil, err
	} else if p != nil {
		out = append(out, p)
	}
	if e := a.Config.Config.Gateway.Email; e.IMAP.Addr != "" {
		p, err := a.emailPlatform(e)
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	if err := a.addSlack(&out); err != nil {
		return nil, err
	}
	discordP, err := a.discordPlatforms()
	if err != nil {
		return nil, err
	}
	out = append(out, discordP...)
	out, err = a.appendWeCom(out)
	if err != nil {
		return nil, err
	}
	return a.addMatrix(out)
}

// GatewayConfigured reports whether any platform or webhook route is
// turned on.
func GatewayConfigured(c config.Config) bool {
	return c.Gateway.Telegram.Token != "" || c.Gateway.Email.IMAP.Addr != "" || len(c.Gateway.Webhook.Routes) > 0 ||
		dingTalkConfigured(c) || c.Gateway.Feishu.AppID != "" || c.Gateway.Discord.Token != "" ||
		c.Gateway.WeCom.AppOn() || c.Gateway.WeCom.BotOn() || c.Gateway.Matrix.On() || c.Gateway.Slack.BotToken != ""
}

// AnnounceCommands gives each platform that has a command menu the slash
// commands it takes (Telegram: setMyCommands). A name the platform cannot
// show (Telegram takes a-z, 0-9 and _: a skill named web-search) is left
// out of the menu; it still works when typed.
func (a *App) AnnounceCommands(ctx context.Context, platforms []gateway.Platform) {
	for _, p := range platforms {
		tg, ok := p.(*telegram.Adapter)
		if !ok {
			continue
		}
		var cmds []telegram.Command
		for _, c := range a.Slash().Commands(slash.Chat) {
			if telegramCommandName(c.Name) {
				cmds = append(cmds, telegram.Command{Name: c.Name, Description: c.Description})
			}
		}
		if len(cmds) > 100 {
			cmds = cmds[:100] // Telegram's limit
		}
		if err := tg.SetCommands(ctx, cmds); err != nil {
			a.Log.Warn("gateway: the command menu was not set", slog.String("platform", p.Name()), slog.String("error", err.Error()))
		}
	}
}

// telegramCommandName reports whether Telegram's menu can show name.
func telegramCommandName(name string) bool {
	if name == "" || len(name) > 32 {
		return false
	}
	for _, c := range name {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

// endChatSession closes a chat's session that /new or the reset policy
// ended: it is marked ended and, with long-term memory on, its lasting
// facts are extracted in the background. "" is none.
func (a *App) endChatSession(ctx context.Context, id, reason string) {
	if id == "" || a.Engine == nil {
		return
	}
	if err := a.Engine.EndSession(context.WithoutCancel(ctx), id, reason); err != nil {
		a.Log.Warn("gateway: the chat's old session was not closed", slog.String("session_id", id), slog.String("error", err.Error()))
	}
}
