package main

import (
	"context"
	"os"
	"slices"
	"strings"
	"testing"
	"time"
)

// -platforms all starts every platform's fake and one serve with all of
// them in its config, and every fake sees serve connect: Matrix and
// email are skipped, and say why, only when their servers are missing.
func TestIdleAllPlatformsConnect(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs hermes serve")
	}
	dir, bin, log := buildServe(t)
	names, err := parsePlatforms("all")
	if err != nil {
		t.Fatal(err)
	}
	s, err := startFleetServe(loadOptions{bin: bin, dir: dir, log: log}, names)
	if err != nil {
		t.Fatal(err)
	}
	defer s.close()
	for _, sk := range s.fleet.skipped {
		if !strings.HasPrefix(sk, "matrix: ") && !strings.HasPrefix(sk, "email: ") {
			t.Errorf("skipped %q; only Matrix and email may be", sk)
		}
		t.Log("skipped", sk)
	}
	for _, n := range names {
		if !slices.Contains(s.fleet.names(), n) && !skippedName(s.fleet.skipped, n) {
			t.Errorf("%s was neither started nor skipped", n)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := s.connected(ctx); err != nil {
		data, _ := os.ReadFile(log.Name())
		t.Fatalf("%v; serve's log:\n%s", err, data)
	}
	if rss, anon, err := s.memory(); err != nil || rss == 0 || anon == 0 {
		t.Errorf("memory: VmRSS %.1f MB, anon %.1f MB, %v", rss, anon, err)
	}
}

// -platforms takes all or known names, once each, and names the one it
// does not know with those it does.
func TestParsePlatforms(t *testing.T) {
	got, err := parsePlatforms("slack, matrix,slack")
	if err != nil || !slices.Equal(got, []string{"slack", "matrix"}) {
		t.Errorf("slack, matrix,slack: %q, %v", got, err)
	}
	if got, _ := parsePlatforms("all"); len(got) != 9 {
		t.Errorf("all is %q", got)
	}
	_, err = parsePlatforms("telegram,irc")
	if err == nil || !strings.Contains(err.Error(), `"irc"`) || !strings.Contains(err.Error(), "dingtalk") {
		t.Errorf("telegram,irc: %v", err)
	}
}

// The gateway section has one wecom block holding the app and the bot,
// and a wecom block of its own for the bot alone.
func TestGatewayYAMLWeCom(t *testing.T) {
	app := member{name: "wecom", config: "  wecom:\n    corp_id: c\n", env: "A=1\n"}
	bot := member{name: "wecombot", config: "    bot: {bot_id: b}\n", env: "B=2\n"}
	f := &fleet{members: []member{bot, {name: "slack", config: "  slack: {}\n"}, app}}
	cfg, env := f.gatewayYAML()
	if strings.Count(cfg, "  wecom:\n") != 1 || !strings.Contains(cfg, "  wecom:\n    corp_id: c\n    bot: {bot_id: b}\n") {
		t.Errorf("app and bot:\n%s", cfg)
	}
	if env != "B=2\nA=1\n" {
		t.Errorf("env %q", env)
	}
	f = &fleet{members: []member{bot}}
	if cfg, _ := f.gatewayYAML(); !strings.Contains(cfg, "  wecom:\n    allow_all: true\n    bot: {bot_id: b}\n") {
		t.Errorf("bot alone:\n%s", cfg)
	}
}
