package main

import (
	"context"
	"fmt"
	"io"
	"net/http/httptest"
	"slices"
	"strings"

	"github.com/hermes-go/hermes/internal/gateway/dingtalk/dingtalktest"
	"github.com/hermes-go/hermes/internal/gateway/discord/discordtest"
	"github.com/hermes-go/hermes/internal/gateway/email/mailtest"
	"github.com/hermes-go/hermes/internal/gateway/feishu/feishutest"
	"github.com/hermes-go/hermes/internal/gateway/matrix/matrixtest"
	"github.com/hermes-go/hermes/internal/gateway/slack/slacktest"
	"github.com/hermes-go/hermes/internal/gateway/telegram/telegramtest"
	"github.com/hermes-go/hermes/internal/gateway/wecom/wecomtest"
)

// platformNames are the platforms -platforms knows, in the order they
// are started and reported: the seven of the gateway's chat apps (WeCom
// as its app callback and its AI bot's long connection), then email.
func platformNames() []string {
	return []string{"telegram", "slack", "discord", "wecom", "wecombot", "feishu", "dingtalk", "matrix", "email"}
}

// parsePlatforms reads -platforms: "all", or names separated by commas.
func parsePlatforms(s string) ([]string, error) {
	if s == "all" {
		return platformNames(), nil
	}
	var out []string
	for _, name := range strings.Split(s, ",") {
		name = strings.TrimSpace(name)
		if !slices.Contains(platformNames(), name) {
			return nil, fmt.Errorf("-platforms: %q is not a platform; give all or a list of %s", name, strings.Join(platformNames(), ","))
		}
		if !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	return out, nil
}

// member is one platform's fake server as hermes serve is pointed at it:
// its lines in gateway (config) and .env (env), and connected, which
// returns once the fake has seen hermes connect, given the base URL of
// serve's webhook listener.
type member struct {
	name   string
	config string
	env    string
	// webhooks says serve takes this platform's events on its webhook
	// listener, so connected needs its URL.
	webhooks  bool
	connected func(ctx context.Context, hooks string) error
	close     func()
}

// fleet is the fake servers of the platforms asked for; skipped says
// which could not start here and why.
type fleet struct {
	members []member
	skipped []string
	tb      *benchTB
}

// startFleet starts a fake server for each of names. Matrix and email
// run real servers (dendrite; Dovecot and Mailpit) and are skipped, with
// the reason, when those are not installed.
func startFleet(names []string, dir string, log io.Writer) (*fleet, error) {
	f := &fleet{tb: newBenchTB(dir, log)}
	for _, name := range names {
		var m member
		var skipped string
		var err error
		switch name {
		case "matrix":
			skipped, err = f.tb.try(func() { m = startMatrix(f.tb) })
		case "email":
			skipped, err = f.tb.try(func() { m = startEmail(f.tb) })
		default:
			m = startFake(name)
		}
		if err != nil {
			f.close()
			return nil, fmt.Errorf("starting %s: %w", name, err)
		}
		if skipped != "" {
			f.skipped = append(f.skipped, name+": "+skipped)
			continue
		}
		f.members = append(f.members, m)
	}
	return f, nil
}

// startFake starts one of the fakes that run in this process.
func startFake(name string) member {
	switch name {
	case "telegram":
		tg := telegramtest.New(telegramtest.Options{})
		return member{name: name, close: tg.Close,
			config: fmt.Sprintf("  telegram: {token: %q, base_url: %q, allow_all: true}\n", tg.Token, tg.URL),
			connected: func(ctx context.Context, _ string) error {
				return tg.Wait(ctx, func() bool { return tg.CallCount("getUpdates") > 0 })
			}}
	case "slack":
		sl := slacktest.New(slacktest.Options{})
		return member{name: name, close: sl.Close,
			config: fmt.Sprintf("  slack: {bot_token: %q, app_token: %q, base_url: %q, allow_all: true}\n", sl.BotToken, sl.AppToken, sl.URL),
			connected: func(ctx context.Context, _ string) error {
				return sl.WaitConnected(ctx, 0)
			}}
	case "discord":
		dc := discordtest.New(discordtest.Options{})
		return member{name: name, close: dc.Close,
			config: fmt.Sprintf("  discord: {token: %q, base_url: %q, allow_all: true}\n", dc.Token, dc.URL),
			connected: func(ctx context.Context, _ string) error {
				return dc.WaitLive(ctx)
			}}
	case "wecom":
		wc := wecomtest.New(wecomtest.Options{})
		return member{name: name, close: wc.Close,
			config: fmt.Sprintf("  wecom:\n    corp_id: %s\n    agent_id: %d\n    secret: ${WECOM_SECRET}\n    token: %s\n    encoding_aes_key: ${WECOM_AES_KEY}\n    base_url: %q\n    allow_all: true\n",
				wc.CorpID, wc.AgentID, wc.Token, wc.URL),
			env:      fmt.Sprintf("WECOM_SECRET=%s\nWECOM_AES_KEY=%s\n", wc.Secret, wc.EncodingAESKey),
			webhooks: true,
			// The app is connected when WeCom's console has verified
			// its callback URL, as an operator saves it.
			connected: func(ctx context.Context, hooks string) error {
				wc.SetCallback(hooks + "/wecom")
				return wc.VerifyURL(ctx)
			}}
	case "wecombot":
		bot := wecomtest.NewBot(wecomtest.BotOptions{})
		return member{name: name, close: bot.Close,
			config: fmt.Sprintf("    bot: {bot_id: %s, secret: \"${WECOM_BOT_SECRET}\", ws_url: %q}\n", bot.BotID, bot.URL),
			env:    "WECOM_BOT_SECRET=" + bot.Secret + "\n",
			connected: func(ctx context.Context, _ string) error {
				return bot.Wait(ctx, bot.Connected)
			}}
	case "feishu":
		fs := feishutest.New(feishutest.Options{})
		return member{name: name, close: fs.Close,
			config: fmt.Sprintf("  feishu: {app_id: %s, app_secret: \"${FEISHU_APP_SECRET}\", base_url: %q, long_connection: true, allow_all: true}\n", fs.AppID, fs.URL),
			env:    "FEISHU_APP_SECRET=" + fs.AppSecret + "\n",
			connected: func(ctx context.Context, _ string) error {
				return fs.Wait(ctx, fs.Connected)
			}}
	case "dingtalk":
		dt := dingtalktest.New(dingtalktest.Options{})
		return member{name: name, close: dt.Close,
			config: fmt.Sprintf("  dingtalk: {client_id: %q, client_secret: %q, base_url: %q, allow_all: true}\n", dt.ClientID, dt.ClientSecret, dt.URL),
			connected: func(ctx context.Context, _ string) error {
				return dt.WaitConnected(ctx, 1)
			}}
	}
	panic("bench: no fake for " + name) // parsePlatforms lets no other name through
}

// startMatrix starts dendrite with a bot account, hermes's access to it
// through a tap that sees its first sync answered.
func startMatrix(tb *benchTB) member {
	hs := matrixtest.Start(tb)
	bot := hs.Register(tb, "hermes")
	tap := &syncTap{next: hs.Proxy(tb), synced: newSignal()}
	front := httptest.NewServer(tap)
	return member{name: "matrix", close: front.Close,
		config: fmt.Sprintf("  matrix: {homeserver: %q, user_id: %q, access_token: \"${MATRIX_ACCESS_TOKEN}\", allow_all: true}\n", front.URL, bot.UserID),
		env:    "MATRIX_ACCESS_TOKEN=" + bot.Token + "\n",
		connected: func(ctx context.Context, _ string) error {
			return waitSignal(ctx, tap.synced)
		}}
}

// startEmail starts Dovecot and Mailpit, hermes reading the mailbox
// through a relay that sees it IDLE.
func startEmail(tb *benchTB) member {
	s := mailtest.Start(tb)
	tap, err := newIMAPTap(s.IMAPAddr)
	if err != nil {
		tb.Fatal(err)
	}
	return member{name: "email", close: tap.close,
		config: fmt.Sprintf("  email:\n    imap: {addr: %q, tls: none}\n    smtp: {addr: %q, tls: none}\n    username: %s\n    password: ${EMAIL_PASSWORD}\n    address: %s\n    poll_every: 1h\n    allow_all: true\n",
			tap.addr(), s.SMTPAddr, s.User, s.Address),
		env: "EMAIL_PASSWORD=" + s.Password + "\n",
		connected: func(ctx context.Context, _ string) error {
			return waitSignal(ctx, tap.idling)
		}}
}

func waitSignal(ctx context.Context, s *signal) error {
	select {
	case <-s.ch:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// gatewayYAML is the gateway section for every member, with a webhook
// listener on a free port (the WeCom app's callback arrives there).
func (f *fleet) gatewayYAML() (config, env string) {
	var b, e strings.Builder
	b.WriteString("gateway:\n  webhook: {listen: \"127.0.0.1:0\"}\n")
	wecom := -1
	for i, m := range f.members {
		if m.name == "wecom" {
			wecom = i
		}
	}
	for i, m := range f.members {
		switch {
		case m.name == "wecombot" && wecom >= 0:
			continue // written inside the app's section below
		case m.name == "wecombot":
			b.WriteString("  wecom:\n    allow_all: true\n")
		}
		b.WriteString(m.config)
		if i == wecom {
			for _, bot := range f.members {
				if bot.name == "wecombot" {
					b.WriteString(bot.config)
				}
			}
		}
	}
	for _, m := range f.members {
		e.WriteString(m.env)
	}
	return b.String(), e.String()
}

// names lists the members' names.
func (f *fleet) names() []string {
	var out []string
	for _, m := range f.members {
		out = append(out, m.name)
	}
	return out
}

// close stops every fake server, then the real ones.
func (f *fleet) close() {
	for _, m := range f.members {
		m.close()
	}
	f.tb.close()
}
