package notify

import (
	"context"
	"reflect"
	"strings"
	"testing"
	"time"
)

// statuses lists each attempt's status in order.
func statuses(rep Report) []string {
	var s []string
	for _, a := range rep.Attempts {
		s = append(s, a.Status)
	}
	return s
}

func TestRetries(t *testing.T) {
	tests := []struct {
		name    string
		replies []reply
		// spec builds the target spec and may adjust cfg for the server.
		spec      func(url string, cfg *Config) string
		delivered string
		statuses  []string
		sleeps    []time.Duration
		tries     int
	}{
		{
			name:     "slack 429 waits the Retry-After",
			replies:  []reply{{429, map[string]string{"Retry-After": "7"}, "rate_limited"}, {200, nil, "ok"}},
			spec:     func(u string, _ *Config) string { return "slack:" + u + "/services/T/B/KEY" },
			statuses: []string{StatusRetry, StatusOK}, sleeps: []time.Duration{7 * time.Second}, tries: 2,
		},
		{
			name: "telegram 429 waits parameters.retry_after",
			replies: []reply{
				{429, nil, `{"ok":false,"error_code":429,"description":"Too Many Requests: retry after 3","parameters":{"retry_after":3}}`},
				{200, nil, `{"ok":true}`},
			},
			spec: func(u string, c *Config) string {
				c.TelegramURL, c.TelegramToken = u, "42:token-value-secret"
				return "telegram:12345"
			},
			statuses: []string{StatusRetry, StatusOK}, sleeps: []time.Duration{3 * time.Second}, tries: 2,
		},
		{
			name: "wecom 45009 backs off",
			replies: []reply{
				{200, nil, `{"errcode":45009,"errmsg":"api freq out of limit"}`},
				{200, nil, `{"errcode":45009,"errmsg":"api freq out of limit"}`},
				{200, nil, `{"errcode":0,"errmsg":"ok"}`},
			},
			spec:     func(u string, c *Config) string { c.WeComURL = u; return "wecom:key-0123456789" },
			statuses: []string{StatusRetry, StatusRetry, StatusOK}, sleeps: []time.Duration{time.Second, 4 * time.Second}, tries: 3,
		},
		{
			name:     "dingtalk rate limit code backs off",
			replies:  []reply{{200, nil, `{"errcode":130101,"errmsg":"send too fast"}`}, {200, nil, `{"errcode":0,"errmsg":"ok"}`}},
			spec:     func(u string, c *Config) string { c.DingTalkURL = u; return "dingtalk:tok-0123456789" },
			statuses: []string{StatusRetry, StatusOK}, sleeps: []time.Duration{time.Second}, tries: 2,
		},
		{
			name:     "feishu 400 with 9499 is a rate limit",
			replies:  []reply{{400, nil, `{"code":9499,"msg":"too many request"}`}, {200, nil, `{"code":0,"msg":"success"}`}},
			spec:     func(u string, _ *Config) string { return "feishu:" + u + "/hook/abcdef-0123456789" },
			statuses: []string{StatusRetry, StatusOK}, sleeps: []time.Duration{time.Second}, tries: 2,
		},
		{
			name:     "500 then ok",
			replies:  []reply{{500, nil, "oops"}, {200, nil, "ok"}},
			spec:     func(u string, _ *Config) string { return "webhook:" + u + "/in" },
			statuses: []string{StatusRetry, StatusOK}, sleeps: []time.Duration{time.Second}, tries: 2,
		},
		{
			name:      "permanent 400 is not retried",
			replies:   []reply{{400, nil, "invalid_payload"}},
			spec:      func(u string, _ *Config) string { return "slack:" + u + "/services/T/B/KEY" },
			delivered: "local",
			statuses:  []string{StatusFailed, StatusOK}, tries: 1,
		},
		{
			name:      "wecom bad key is not retried",
			replies:   []reply{{200, nil, `{"errcode":93000,"errmsg":"invalid webhook url"}`}},
			spec:      func(u string, c *Config) string { c.WeComURL = u; return "wecom:key-0123456789" },
			delivered: "local",
			statuses:  []string{StatusFailed, StatusOK}, tries: 1,
		},
		{
			name:      "a wait longer than MaxRetryAfter gives up",
			replies:   []reply{{429, map[string]string{"Retry-After": "3600"}, ""}},
			spec:      func(u string, _ *Config) string { return "slack:" + u + "/services/T/B/KEY" },
			delivered: "local",
			statuses:  []string{StatusFailed, StatusOK}, tries: 1,
		},
		{
			name:      "500 on every try uses all retries",
			replies:   []reply{{503, nil, "down"}},
			spec:      func(u string, _ *Config) string { return "webhook:" + u + "/in" },
			delivered: "local",
			statuses:  []string{StatusRetry, StatusRetry, StatusRetry, StatusFailed, StatusOK},
			sleeps:    []time.Duration{time.Second, 4 * time.Second, 15 * time.Second}, tries: 4,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg, sl := testConfig(t)
			p := newPlatform(t, tc.replies...)
			spec := tc.spec(p.URL, &cfg)
			target := mustParse(t, spec, cfg)
			rep := New(cfg).Deliver(context.Background(), []Target{target}, sample)
			want := tc.delivered
			if want == "" {
				want = target.String()
			}
			if rep.Delivered != want {
				t.Errorf("Delivered = %q, want %q (%+v)", rep.Delivered, want, rep)
			}
			if got := statuses(rep); !reflect.DeepEqual(got, tc.statuses) {
				t.Errorf("statuses = %v, want %v", got, tc.statuses)
			}
			if got := sl.got(); !reflect.DeepEqual(got, tc.sleeps) {
				t.Errorf("sleeps = %v, want %v", got, tc.sleeps)
			}
			if got := len(p.requests()); got != tc.tries {
				t.Errorf("server saw %d requests, want %d", got, tc.tries)
			}
			for i, a := range rep.Attempts {
				if a.Try < 1 || a.Target == "" || (a.Status != StatusOK) != (a.Error != "") {
					t.Errorf("attempt %d malformed: %+v", i, a)
				}
			}
			if tc.delivered == "local" && !strings.Contains(readLocal(t, cfg, "daily"), "**销售** up 3%") {
				t.Error("the local file did not receive the message")
			}
			assertNoSecret(t, rep, "token-value-secret", "key-0123456789", "tok-0123456789", "abcdef-0123456789", "/services/T/B/KEY")
		})
	}
}

func TestCancelledContextStillWritesLocal(t *testing.T) {
	cfg, _ := testConfig(t)
	p := newPlatform(t, reply{200, nil, "ok"})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	rep := New(cfg).Deliver(ctx, []Target{mustParse(t, "slack:"+p.URL+"/x", cfg)}, sample)
	if rep.Delivered != "local" || len(p.requests()) != 0 {
		t.Fatalf("report %+v, %d requests", rep, len(p.requests()))
	}
}

func TestUnreachableIsTransient(t *testing.T) {
	cfg, sl := testConfig(t)
	cfg.Backoff = []time.Duration{time.Millisecond}
	p := newPlatform(t, reply{200, nil, "ok"})
	url := p.URL
	p.Close()
	rep := New(cfg).Deliver(context.Background(), []Target{mustParse(t, "webhook:"+url+"/in?token=abc123secret", cfg)}, sample)
	if got := statuses(rep); !reflect.DeepEqual(got, []string{StatusRetry, StatusFailed, StatusOK}) {
		t.Fatalf("statuses = %v (%+v)", got, rep)
	}
	if len(sl.got()) != 1 {
		t.Errorf("sleeps = %v", sl.got())
	}
	assertNoSecret(t, rep, "abc123secret")
}
