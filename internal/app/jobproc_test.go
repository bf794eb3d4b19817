package app

import (
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/cron"
	"github.com/hermes-go/hermes/internal/notify"
)

// TestProcRunnerResults: the scheduler's side of a job process reads the
// result line it prints, and turns a process that dies without one into
// a failed run rather than a silent one.
func TestProcRunnerResults(t *testing.T) {
	dir := t.TempDir()
	script := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, tc := range []struct {
		name, body   string
		status, want string
	}{
		{"a result", `grep -q '"Name":"brief"' && echo 'some noise' && echo '{"status":"ok","session_id":"s1","output":"all green"}'`, "ok", "all green"},
		{"a failed run", `echo '{"error":"the job needs a model"}'`, "", "the job needs a model"},
		{"a crash", `echo 'panic: boom' >&2; exit 2`, "", "ended without a result: exit status 2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			home := t.TempDir()
			p := &ProcRunner{Exe: script(strings.ReplaceAll(tc.name, " ", "-"), tc.body), Stderr: io.Discard, Log: slog.New(slog.DiscardHandler),
				Notifier: notify.New(notify.Config{Home: home})}
			res := p.Run(context.Background(), cron.Job{Name: "brief"}, time.Now())
			got := res.Output
			if res.Err != nil {
				got = res.Err.Error()
			}
			if res.Status != tc.status || !strings.Contains(got, tc.want) {
				t.Errorf("result = %q %q, want %q %q", res.Status, got, tc.status, tc.want)
			}
			// The job process delivers its own result; serve delivers only
			// the notice of a process that died without one.
			notice, _ := os.ReadFile(filepath.Join(home, "deliveries", "brief.md"))
			if crashed := tc.name == "a crash"; strings.Contains(string(notice), "ended without a result") != crashed {
				t.Errorf("failure notice delivered = %v, want %v:\n%s", !crashed, crashed, notice)
			}
		})
	}
}
