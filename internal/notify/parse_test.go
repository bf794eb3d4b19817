package notify

import (
	"context"
	"strings"
	"testing"
	"time"
)

func TestParse(t *testing.T) {
	cfg := Config{
		Home:          "/srv/hermes",
		TelegramToken: "99:telegram-secret-token",
		SMTP:          SMTP{Host: "mail.example.com", From: "hermes@example.com", Password: "smtp-secret-pw"},
	}
	tests := []struct {
		spec string
		want string // String() of the target, or "" when an error is expected
		err  string // part of the error
	}{
		{"wecom:693a91f6-7xxx-4bc4-97a0-0ec2sifa5aaa", "wecom:****5aaa", ""},
		{"WeCom: https://qyapi.weixin.qq.com/cgi-bin/webhook/send?key=693a91f6-7xxx", "wecom:****7xxx", ""},
		{"wecom:https://qyapi.weixin.qq.com/cgi-bin/webhook/send", "", `"wecom:https://qyapi.weixin.qq.com/****": the webhook URL has no key= parameter`},
		{"feishu:https://open.feishu.cn/open-apis/bot/v2/hook/abcd-efgh-1234#sec", "feishu:****1234", ""},
		{"dingtalk:https://oapi.dingtalk.com/robot/send?access_token=abcdef0123#SEC00", "dingtalk:****0123", ""},
		{"dingtalk:https://oapi.dingtalk.com/robot/send#SEC00", "", "no access_token= parameter"},
		{"slack:https://hooks.slack.com/services/T0/B0/secretpath", "slack:https://hooks.slack.com/****", ""},
		{"slack:not-a-url-secret", "", `"slack:****cret": not an http(s) URL`},
		{"telegram:-1001234567890", "telegram:-1001234567890", ""},
		{"telegram:@news", "telegram:@news", ""},
		{"telegram:bob", "", "a chat_id is a number"},
		{"email:ops@example.com", "email:ops@example.com", ""},
		{"email:Ops <ops@example.com>, b@example.com", "email:ops@example.com,b@example.com", ""},
		{"email:not an address", "", "not an address list"},
		{"webhook:https://example.com/hook?token=xyz-secret", "webhook:https://example.com/****", ""},
		{"local", "local", ""},
		{"local:reports", "local:reports", ""},
		{"local:../etc", "", "a local name has only letters"},
		{"pager:123", "", `unknown kind "pager"`},
		{"", "", "empty target"},
		{"wecom:", "", "missing the part after wecom:"},
	}
	for _, tc := range tests {
		t.Run(tc.spec, func(t *testing.T) {
			tg, err := Parse(tc.spec, cfg)
			if tc.want != "" {
				if err != nil {
					t.Fatalf("Parse: %v", err)
				}
				if tg.String() != tc.want {
					t.Errorf("String() = %q, want %q", tg.String(), tc.want)
				}
				return
			}
			if err == nil {
				t.Fatalf("Parse succeeded: %s", tg)
			}
			msg := err.Error()
			if !strings.Contains(msg, tc.err) || !strings.Contains(msg, "accepted forms: wecom:") {
				t.Errorf("error %q lacks %q or the accepted forms", msg, tc.err)
			}
			for _, secret := range []string{"secretpath", "not-a-url-secret", "telegram-secret-token", "smtp-secret-pw"} {
				if strings.Contains(msg, secret) {
					t.Errorf("error shows a secret: %q", msg)
				}
			}
		})
	}
}

func TestParseNeedsConfig(t *testing.T) {
	for spec, want := range map[string]string{
		"telegram:123":        "no Telegram bot token",
		"email:a@example.com": "no SMTP server",
		"local":               "no hermes home",
	} {
		if _, err := Parse(spec, Config{}); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Parse(%q) error = %v, want %q", spec, err, want)
		}
	}
}

// TestErrorsMasked checks the safeguard: a target whose error quotes its
// own secrets still yields a clean Report.
func TestErrorsMasked(t *testing.T) {
	cfg, _ := testConfig(t)
	cfg.Backoff = []time.Duration{}
	tg := mustParse(t, "wecom:leaky-key-0123456789", cfg)
	leaky := leakyTarget{Target: tg, secret: "leaky-key-0123456789"}
	rep := New(cfg).Deliver(context.Background(), []Target{leaky}, sample)
	if !strings.HasPrefix(rep.Attempts[0].Error, "boom at https://qyapi.weixin.qq.com/cgi-bin/webhook/send?key=") {
		t.Errorf("error = %q", rep.Attempts[0].Error)
	}
	assertNoSecret(t, rep, "leaky-key-0123456789")
}

type leakyTarget struct {
	Target
	secret string
}

func (l leakyTarget) secrets() []string { return []string{l.secret} }

func (l leakyTarget) Send(context.Context, Part) error {
	return Permanent("boom at https://qyapi.weixin.qq.com/cgi-bin/webhook/send?key=%s", l.secret)
}

func TestMask(t *testing.T) {
	for spec, want := range map[string]string{
		"wecom:693a91f6-7xxx-4bc4-97a0-0ec2sifa5aaa":                     "wecom:****5aaa",
		"wecom:https://qyapi.weixin.qq.com/cgi-bin/webhook/send?key=abc": "wecom:https://qyapi.weixin.qq.com/****",
		"webhook:https://hooks.example.com/T123/B456/secret":             "webhook:https://hooks.example.com/****",
		"feishu:https://open.feishu.cn/open-apis/bot/v2/hook/x#sign":     "feishu:https://open.feishu.cn/****",
		"telegram:-1001234567":                                           "telegram:-1001234567",
		"email:ops@example.com":                                          "email:ops@example.com",
		"local":                                                          "local",
	} {
		if got := Mask(spec); got != want {
			t.Errorf("Mask(%q) = %q, want %q", spec, got, want)
		}
	}
}
