package config

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestSeedSchedule reads seed 003's weekly job exactly as written there,
// with a single delivery target given as one value.
func TestSeedSchedule(t *testing.T) {
	home := t.TempDir()
	yaml := `schedules:
  weekly_competitor_report:
    cron: 0 9 * * MON
    session_type: new
    timezone: Asia/Shanghai
    deliver: wecom:abc123
    prompt: |
      请先抓取 https://example-competitor.com/news 的页面内容
      找出最近一周的新产品动态和公告，整理成 5 条以内的简要列表，
      最后发送到企业微信群。
  nightly:
    cron: "@daily"
    deliver: [webhook:http://127.0.0.1:9/hook, email:ops@example.com]
    catch_up: skip
    enabled: false
`
	if err := os.WriteFile(filepath.Join(home, "config.yaml"), []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	l, err := Load(LoadOptions{Home: home, Env: MapLookup(nil)})
	if err != nil {
		t.Fatal(err)
	}
	w := l.Config.Schedules["weekly_competitor_report"]
	if w.Cron != "0 9 * * MON" || w.SessionType != "new" || w.Timezone != "Asia/Shanghai" ||
		!slices.Equal(w.Deliver, []string{"wecom:abc123"}) || !strings.Contains(w.Prompt, "企业微信群") || !w.Enabled.Or(true) {
		t.Errorf("weekly job = %+v", w)
	}
	n := l.Config.Schedules["nightly"]
	if len(n.Deliver) != 2 || n.CatchUp != "skip" || n.Enabled.Or(true) {
		t.Errorf("nightly job = %+v", n)
	}
	if l.Config.Approvals.CronMode != NonInteractiveDeny {
		t.Errorf("approvals.cron_mode defaults to %q", l.Config.Approvals.CronMode)
	}
	bad := "schedules:\n  x: {cron: '* * * * *', session_type: forever, catch_up: never}\n"
	os.WriteFile(filepath.Join(home, "config.yaml"), []byte(bad), 0o600)
	_, err = Load(LoadOptions{Home: home, Env: MapLookup(nil)})
	if err == nil || !strings.Contains(err.Error(), "schedules.x.session_type") || !strings.Contains(err.Error(), "new, continue") ||
		!strings.Contains(err.Error(), "schedules.x.catch_up") {
		t.Errorf("bad schedule: %v", err)
	}
}

// TestScheduleScriptExpandsLate: a job's script keeps its ${VAR} when
// config.yaml loads, so a secret it refers to is neither stored with the
// job nor printed; Expand resolves it when the job runs.
func TestScheduleScriptExpandsLate(t *testing.T) {
	home := t.TempDir()
	cfg := "schedules:\n  backup:\n    cron: \"@daily\"\n    script: 'curl -H \"Authorization: ${BACKUP_TOKEN}\" ${BACKUP_URL:-https://backup.example}'\n    prompt: ${GREETING}\n"
	if err := os.WriteFile(filepath.Join(home, "config.yaml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"BACKUP_TOKEN": "tok-1234567890", "GREETING": "hello"}
	l, err := Load(LoadOptions{Home: home, Env: func(k string) (string, bool) { v, ok := env[k]; return v, ok }})
	if err != nil {
		t.Fatal(err)
	}
	s := l.Config.Schedules["backup"]
	if s.Script != `curl -H "Authorization: ${BACKUP_TOKEN}" ${BACKUP_URL:-https://backup.example}` {
		t.Errorf("script at load = %q, want it as written", s.Script)
	}
	if s.Prompt != "hello" {
		t.Errorf("prompt = %q, want expanded at load", s.Prompt)
	}
	if got := l.Expand(s.Script); got != `curl -H "Authorization: tok-1234567890" https://backup.example` {
		t.Errorf("Expand = %q", got)
	}
	if strings.Contains(l.Show(), "tok-1234567890") {
		t.Errorf("config show prints the token:\n%s", l.Show())
	}
}
